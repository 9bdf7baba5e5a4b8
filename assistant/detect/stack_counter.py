"""Chips in a stack, counted from its side as a calibrated camera sees it.

A zone crop shows the table plane, where a stack seen obliquely is smeared away from the
camera and often runs out of the crop: the crop alone cannot count it. Here a stack found
in a bet or pot zone by the stack finder (:mod:`assistant.detect.stack_finder`, in the
camera's own frame, where the stack stands upright) or at a box of a zone crop (placed
on the table by :func:`~assistant.vision.stack_view.base_from_plane_box`) has its side
cut out of the camera's frame as one fixed upright view (:func:`~assistant.vision.stack_view.stack_view`)
and the counter network (``stack_counter.onnx``, the ``count`` head of
:class:`~assistant.detect.reader_model.CropReader`) reads how many chips stand there.
A stack the camera sees too steeply from above for one chip to show, and a reading less
sure than :data:`MIN_COUNT_CONFIDENCE`, come back as ``None``: the dealer says the count.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from assistant.detect.readers import OnnxReader
from assistant.vision.calibration import Calibration
from assistant.vision.lens import distort_points
from assistant.vision.rectify import ZoneCrop
from assistant.vision.stack_view import CHIP_THICKNESS_MM, Point, base_from_plane_box, readable, stack_view
from assistant.vision.stacks import CHIP_DIAMETER_MM, box_outline, camera_model

if TYPE_CHECKING:
    from assistant.detect.pipeline import ChipStack
    from assistant.detect.stack_finder import StackFinder

#: Counts read less surely than this are not given (the dealer confirms the bet).
MIN_COUNT_CONFIDENCE = 0.5
#: Zones whose stacks the counter's own stage 1 finds (``"seat3.bet" -> "bet"``).
CHIP_ZONE_KINDS = ("bet", "pot")


def chip_zone(key: str) -> bool:
    """Whether a rectifier's zone key names a zone of chips (a seat's bet, the pot)."""
    return key.rsplit(".", 1)[-1] in CHIP_ZONE_KINDS


def chip_items(stacks: Sequence[ChipStack]) -> list[dict[str, Any]]:
    """Detected stacks in the ``detect --json`` shape (boxes unrounded), with confidence."""
    return [
        {"colour": s.colour, "count": s.count, "box": list(s.box), "confidence": s.confidence} for s in stacks
    ]


class StackCounter:
    """The stack counter of one calibrated camera, with the stack finder that finds its
    stacks in bet and pot zones (where one is given)."""

    def __init__(
        self, reader: OnnxReader, calibration: Calibration, stack_finder: StackFinder | None = None
    ) -> None:
        if "count" not in reader.heads:
            raise ValueError("the stack counter's network has no 'count' output")
        self.reader = reader
        self.calibration = calibration
        self.model = stack_finder.model if stack_finder is not None else camera_model(calibration)
        self.stack_finder = stack_finder

    @classmethod
    def from_file(
        cls, path: Path, calibration: Calibration, threads: int = 0, stack_finder: StackFinder | None = None
    ) -> StackCounter:
        return cls(OnnxReader(path, threads), calibration, stack_finder)

    def count(self, frame: npt.NDArray[np.uint8], bases: Sequence[Point]) -> list[tuple[int | None, float]]:
        """(count or ``None``, confidence) of the stacks standing at ``bases`` (table mm)."""
        views, where = [], []
        for i, base in enumerate(bases):
            if not readable(self.model, base):
                continue
            view = stack_view(frame, self.calibration, base, self.model)
            if view is not None:
                views.append(view)
                where.append(i)
        out: list[tuple[int | None, float]] = [(None, 0.0)] * len(bases)
        if not views:
            return out
        probs = self.reader.read_views(np.stack(views))["count"]
        for i, p in zip(where, probs, strict=True):
            k = int(p.argmax())
            sure = float(p[k])
            out[i] = (k if k > 0 and sure >= MIN_COUNT_CONFIDENCE else None, sure)
        return out

    def bases_in_crop(self, crop: ZoneCrop, boxes: Sequence[Sequence[float]]) -> list[Point]:
        """Where the stacks found at ``boxes`` in a zone crop stand on the table (mm)."""
        return [base_from_plane_box(b, crop.crop_to_table, self.model, crop.mm_per_px) for b in boxes]

    def count_in_crop(
        self, frame: npt.NDArray[np.uint8], crop: ZoneCrop, boxes: Sequence[Sequence[float]]
    ) -> list[tuple[int | None, float]]:
        """Like :meth:`count`, for stacks found at ``boxes`` in ``crop`` (a zone crop of ``frame``)."""
        return self.count(frame, self.bases_in_crop(crop, boxes))

    def chips_in_crop(
        self, frame: npt.NDArray[np.uint8], crop: ZoneCrop, found: Sequence[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """A zone's chip stacks in the ``detect --json`` shape, each counted from its side
        and with where it stands (``base_mm``, table millimetres).

        In a bet or pot zone the stack finder finds the stacks in the frame (``frame_box``
        is then a stack's box in the frame, ``box`` what it covers of the crop, ``foot``
        where it stands in the crop, which decides the zone it belongs to); elsewhere, and
        without a finder, the stacks ``found`` in the crop are counted where they lie."""
        if self.stack_finder is not None and chip_zone(crop.key):
            stacks = self.stack_finder.find(frame, crop.key)
            counts = self.count(frame, [s.base for s in stacks])
            return [
                {
                    "colour": s.colour,
                    "count": count,
                    "box": list(self.plane_box(crop, s.box, s.base)),
                    "foot": [float(v) for v in crop.from_table([s.base])[0]],
                    "confidence": s.confidence,
                    "base_mm": list(s.base),
                    "frame_box": list(s.box),
                }
                for s, (count, _) in zip(stacks, counts, strict=True)
            ]
        bases = self.bases_in_crop(crop, [item["box"] for item in found])
        counts = self.count(frame, bases)
        return [
            {**item, "count": count, "base_mm": list(base)}
            for item, base, (count, _) in zip(found, bases, counts, strict=True)
        ]

    def plane_box(
        self, crop: ZoneCrop, frame_box: Sequence[float], base: Point
    ) -> tuple[float, float, float, float]:
        """What a stack seen at ``frame_box`` (frame pixels) covers of a zone crop (the
        table plane, where its side is smeared away from the camera), with its foot at
        ``base`` (table mm); cut to the crop."""
        outline = box_outline(frame_box)
        radius = CHIP_DIAMETER_MM / 2.0
        angles = np.linspace(0.0, 2.0 * np.pi, 16, endpoint=False)
        rim = np.column_stack([base[0] + radius * np.cos(angles), base[1] + radius * np.sin(angles)])
        pixels = crop.from_table(np.vstack([self.calibration.to_table(outline), rim]))
        height, width = crop.image.shape[:2]
        (left, top), (right, bottom) = pixels.min(axis=0), pixels.max(axis=0)
        return (
            float(np.clip(left, 0, width)),
            float(np.clip(top, 0, height)),
            float(np.clip(right, 0, width)),
            float(np.clip(bottom, 0, height)),
        )

    def image_box(self, base: Point, count: int) -> tuple[float, float, float, float]:
        """The box in the frame (pixels as seen) of ``count`` chips standing at ``base``."""
        angles = np.linspace(0.0, 2.0 * np.pi, 48, endpoint=False)
        radius = CHIP_DIAMETER_MM / 2.0
        rims = [
            (base[0] + radius * np.cos(a), base[1] + radius * np.sin(a), -z)
            for a in angles
            for z in (0.0, count * CHIP_THICKNESS_MM)
        ]
        pixels = distort_points(
            self.model.project(rims), self.calibration.distortion, self.calibration.image_size
        )
        (x1, y1), (x2, y2) = pixels.min(axis=0), pixels.max(axis=0)
        return float(x1), float(y1), float(x2), float(y2)


def load_stack_counter(models: Path, calibration: Calibration) -> StackCounter | None:
    """The stack counter of ``models`` for this camera, with ``stack_finder.onnx`` to find
    the stacks in the frame where shipped; ``None`` when no counter is shipped there."""
    from assistant.detect.pipeline import STACK_COUNTER, STACK_FINDER_ONNX
    from assistant.detect.stack_finder import StackFinder

    path = models / STACK_COUNTER
    if not path.is_file():
        return None
    finder = None
    if (models / STACK_FINDER_ONNX).is_file():
        finder = StackFinder.from_file(models / STACK_FINDER_ONNX, calibration)
    return StackCounter.from_file(path, calibration, stack_finder=finder)
