"""Stage-2 readers at run time: ONNX Runtime over batches of square crops."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from assistant.detect.cpu_sessions import cpu_session
from assistant.detect.crops import STRIP_SIZE, Box, batch_crops, strip_crop

INDEX_CROP_SCALE = 1.15  # the crop the reader saw in training (see reader_data)

#: A reader's output: probabilities per head, (N, classes) each.
Probs = dict[str, npt.NDArray[np.float32]]


@dataclass(frozen=True)
class CropViews:
    """The views of one box that a reader reads and averages (test-time augmentation).

    Each view cuts the square crop ``scale`` times the box's longer side, its centre moved
    by ``shift`` (x, y) times that side. A printed index reads alike in every view; a
    reading that hangs on one pixel's worth of framing does not, and averaging evens it out.
    The default is the single view the reader was trained on.

    ``enough``: a box whose reading in the trained view alone is at least this sure (the
    product of the heads' top probabilities) keeps that reading, and only the others are
    read in every view. ``None``: every box is read in every view.
    """

    scales: tuple[float, ...] = (INDEX_CROP_SCALE,)
    shifts: tuple[tuple[float, float], ...] = ((0.0, 0.0),)
    enough: float | None = None

    def __post_init__(self) -> None:
        if not self.scales or not self.shifts or min(self.scales) <= 0:
            raise ValueError("crop views need at least one positive scale and one shift")
        if self.enough is not None and not 0 < self.enough <= 1:
            raise ValueError("enough must be a probability in (0, 1]")

    def __len__(self) -> int:
        return len(self.scales) * len(self.shifts)

    def trained(self) -> CropViews:
        return TRAINED_VIEW

    def crops(self, image: npt.NDArray[np.uint8], boxes: Sequence[Box], size: int) -> npt.NDArray[np.uint8]:
        """(views, N, size, size, 3): every view of every box."""
        out: list[npt.NDArray[np.uint8]] = []
        for dx, dy in self.shifts:
            moved = [_shifted(b, dx, dy) for b in boxes]
            out.extend(batch_crops(image, moved, size, scale) for scale in self.scales)
        return np.stack(out)


#: The one view the reader was trained on.
TRAINED_VIEW = CropViews()


@dataclass(frozen=True)
class StripViews:
    """The cuts of one card's strip (:func:`~assistant.detect.crops.strip_crop`) that the
    strip reader reads and averages: the card's box moved by each of ``shifts`` (x, y,
    pixels). A stage-1 box lies a pixel or two off the card's edge, and the strip is cut
    at its corner. ``enough`` as for :class:`CropViews`. The default is the one cut the
    reader was trained on.
    """

    shifts: tuple[tuple[float, float], ...] = ((0.0, 0.0),)
    enough: float | None = None

    def __post_init__(self) -> None:
        if not self.shifts:
            raise ValueError("strip views need at least one shift")
        if self.enough is not None and not 0 < self.enough <= 1:
            raise ValueError("enough must be a probability in (0, 1]")

    def __len__(self) -> int:
        return len(self.shifts)

    def trained(self) -> StripViews:
        return TRAINED_STRIP

    def crops(
        self, image: npt.NDArray[np.uint8], boxes: Sequence[Box], size: tuple[int, int] = STRIP_SIZE
    ) -> npt.NDArray[np.uint8]:
        """(views, N, height, width, 3): every cut of every box's strip, ``size`` (width,
        height) each."""
        cuts = [
            [strip_crop(image, _shifted_px(b, dx, dy), size=size) for b in boxes] for dx, dy in self.shifts
        ]
        return np.stack([np.stack(cut) for cut in cuts])


#: The one cut the strip reader was trained on.
TRAINED_STRIP = StripViews()


def sureness(probs: Probs) -> npt.NDArray[np.float32]:
    """How sure each reading is: the product of its heads' top probabilities, (N,)."""
    sure = np.ones(len(next(iter(probs.values()))), np.float32)
    for p in probs.values():
        sure *= p.max(1)
    return sure


def _shifted_px(box: Box, dx: float, dy: float) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = (float(v) for v in box[:4])
    return x1 + dx, y1 + dy, x2 + dx, y2 + dy


def _shifted(box: Box, dx: float, dy: float) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(x2 - x1, y2 - y1, 1.0)
    return (x1 + dx * side, y1 + dy * side, x2 + dx * side, y2 + dy * side)


#: Either kind of views; ``OnnxReader._in_views`` reads boxes in them: ``read(views, boxes)``.
V = TypeVar("V", CropViews, StripViews)


class ReaderMismatchError(ValueError):
    """Readers read together must read crops of one size into the same heads."""


class OnnxReader:
    """A reader network exported by :func:`assistant.detect.train_reader.export_reader`.

    ``views``: how each box is cut out; :meth:`read`, :meth:`read_turned` and
    :meth:`read_any_turn` average the probabilities over them (with ``views.enough``, for
    the boxes read less surely than that in the trained view alone).

    ``also``: more readers of the same crops and heads, trained apart. Every crop is read
    by each, and each head's probabilities are their mean (an ensemble: readers trained
    apart misread different crops). Views, sureness and turns work on the mean as they
    work on one reader's probabilities.
    """

    def __init__(
        self, path: Path, threads: int = 0, views: CropViews | None = None, *, also: Sequence[Path] = ()
    ) -> None:
        self.sessions = tuple(cpu_session(p, threads) for p in (path, *also))
        self.session = self.sessions[0]
        inp = self.session.get_inputs()[0]
        self.input = inp.name
        self.size = int(inp.shape[2])
        self.width = int(inp.shape[3])
        self.heads = tuple(o.name for o in self.session.get_outputs())
        self.views = views or CropViews()
        for other, session in zip(also, self.sessions[1:], strict=True):
            theirs = session.get_inputs()[0]
            if theirs.name != self.input or list(theirs.shape[1:]) != list(inp.shape[1:]):
                raise ReaderMismatchError(
                    f"{other} reads {theirs.name} {theirs.shape[1:]}, "
                    f"not {self.input} {inp.shape[1:]} as {path} does"
                )
            if tuple(o.name for o in session.get_outputs()) != self.heads:
                raise ReaderMismatchError(f"{other} has other heads than {path}: not {', '.join(self.heads)}")

    def in_views(self, views: CropViews) -> OnnxReader:
        """This reader reading in ``views`` (the same session: nothing is loaded again)."""
        twin = copy.copy(self)
        twin.views = views
        return twin

    def read(self, image: npt.NDArray[np.uint8], boxes: Sequence[Box]) -> dict[str, npt.NDArray[np.float32]]:
        """Probabilities per head, (N, classes), for the crops of ``boxes``."""
        return self.read_turned(image, boxes, 0)

    def read_strips(
        self, image: npt.NDArray[np.uint8], boxes: Sequence[Box], views: StripViews | None = None
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Rank and suit from the upright strips of cards whose boxes are ``boxes``, averaged
        over the cuts of ``views`` (the one trained cut by default). The strips are as wide
        as the reader's input: a reader of whole card faces is read the same way."""
        if not boxes:
            return self._run(np.zeros((0, self.size, self.width, 3), np.uint8))
        size = (self.width, self.size)
        return self._in_views(
            views or TRAINED_STRIP, boxes, lambda v, b: self._averaged(v.crops(image, b, size))
        )

    def read_turned(
        self,
        image: npt.NDArray[np.uint8],
        boxes: Sequence[Box],
        turns: int,
        views: CropViews | None = None,
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Like :meth:`read`, each crop first turned ``turns`` quarter turns (``np.rot90``).

        ``views`` replaces the reader's own for this call.
        """
        return self._in_views(
            views or self.views,
            boxes,
            lambda v, b: self._averaged(np.rot90(v.crops(image, b, self.size), turns, axes=(2, 3))),
        )

    def read_any_turn(
        self, image: npt.NDArray[np.uint8], boxes: Sequence[Box]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Like :meth:`read`, for a reader trained on upright crops (within 45 degrees).

        Each crop is read in its four quarter turns; the turn whose reading is surest
        (product of the heads' top probabilities) is kept. Upside down, a printed index
        has its pip above the rank, which the reader never saw upright, so 6 and 9 part.
        """
        return self._in_views(self.views, boxes, lambda v, b: self._surest_turn(v.crops(image, b, self.size)))

    def _in_views(self, views: V, boxes: Sequence[Box], read: Callable[[V, Sequence[Box]], Probs]) -> Probs:
        """``read(views, boxes)``; with ``views.enough`` set, first ``read`` in the trained
        view alone, then again in every view for the boxes read less surely than that."""
        if views.enough is None or len(views) == 1 or len(boxes) == 0:
            return read(views, boxes)
        probs = read(views.trained(), boxes)
        unsure = np.flatnonzero(sureness(probs) < views.enough)
        if len(unsure):
            more = read(views, [boxes[int(i)] for i in unsure])
            for head, p in probs.items():
                p[unsure] = more[head]
        return probs

    def _surest_turn(self, views: npt.NDArray[np.uint8]) -> Probs:
        """Probabilities per head of (views, N, H, W, 3), averaged over the views, in the
        quarter turn of each box whose reading is surest."""
        n = views.shape[1]
        if n == 0:
            return self._run(views[0])
        v = views.shape[0]  # every view in all four turns, in one run
        turned = self._run(
            np.concatenate([np.rot90(views, k, axes=(2, 3)) for k in range(4)]).reshape(-1, *views.shape[2:])
        )
        probs = {h: p.reshape(4, v, n, -1).mean(1).reshape(4 * n, -1) for h, p in turned.items()}
        best = sureness(probs).reshape(4, n).argmax(0)
        pick = best * n + np.arange(n)
        return {h: p[pick] for h, p in probs.items()}

    def read_views(self, views: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[np.float32]]:
        """Probabilities per head for crops already cut to the reader's size, (N, H, W, 3)."""
        return self._run(views)

    def _averaged(self, views: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[np.float32]]:
        """Probabilities per head of (views, N, H, W, 3), averaged over the views."""
        v, n = views.shape[:2]
        probs = self._run(views.reshape(v * n, *views.shape[2:]))
        if n == 0:
            return probs
        return {h: p.reshape(v, n, -1).mean(0) for h, p in probs.items()}

    def _run(self, crops: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[np.float32]]:
        if len(crops) == 0:
            return {h: np.zeros((0, 0), np.float32) for h in self.heads}
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32)
        outputs = [np.asarray(o, np.float32) for o in self.sessions[0].run(None, {self.input: x})]
        for session in self.sessions[1:]:  # an ensemble: each head the mean of its readers'
            for total, o in zip(outputs, session.run(None, {self.input: x}), strict=True):
                total += np.asarray(o, np.float32)
        if len(self.sessions) > 1:
            outputs = [o / np.float32(len(self.sessions)) for o in outputs]
        return dict(zip(self.heads, outputs, strict=True))
