"""Training crops for the stage-2 readers, cut from a renderer dataset's truth files.

Every labelled corner index becomes a context patch (``CONTEXT`` times the square the
reader will see at inference), so training can jitter the box the way a detector's box
wobbles. Deck designs that would teach the wrong reading for most real tables are not
dropped but masked where they mislead (see :func:`deck_masks`):

* court letters other than J/Q/K (B/D/K, V/D/R, F/D/R, Cyrillic): no rank target for
  J, Q, K (and none for the ace of decks whose aces print another letter);
* four-colour decks: no suit target (their diamonds and clubs are blue and green);
* indices printed without a suit pip (KDE Oxygen decks, the right-hand corners of the
  Dondorf decks): no suit target.

Chip stacks become patches labelled with their count, or 0 ("unknown") when the camera
looks down so steeply that one chip more adds less than :data:`MIN_CHIP_PX` of side
(see :func:`chip_target`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.crops import STRIP_SIZE, square_crop, strip_crop
from assistant.detect.labels import MAX_CHIPS, RANKS, SUITS

CONTEXT = 1.6  # patch side over the inference crop's side (which is 1.15 x the box)
INFERENCE_SCALE = 1.15
CHIP_THICKNESS_CM = 0.33
MIN_CHIP_PX = 1.5
EDGE_PX = 1.0  # a stack's box this near the image's edge is cut by it
NO_TARGET = -1


@dataclass
class CropSet:
    """Patches (N, S, S, 3) uint8 BGR with integer targets (``NO_TARGET`` masks one)."""

    patches: npt.NDArray[np.uint8]
    rank: npt.NDArray[np.int64]
    suit: npt.NDArray[np.int64]
    deck: list[str]

    def save(self, path: Path) -> None:
        np.savez_compressed(
            path, patches=self.patches, rank=self.rank, suit=self.suit, deck=np.array(self.deck)
        )

    @classmethod
    def join(cls, sets: list[CropSet]) -> CropSet:
        """All ``sets`` in order, copied once."""
        return cls(
            np.concatenate([c.patches for c in sets]),
            np.concatenate([c.rank for c in sets]),
            np.concatenate([c.suit for c in sets]),
            [d for c in sets for d in c.deck],
        )

    @classmethod
    def load(cls, path: Path) -> CropSet:
        with np.load(path) as z:
            return cls(z["patches"], z["rank"], z["suit"], [str(d) for d in z["deck"]])


@dataclass(frozen=True)
class DeckTargets:
    """What one deck design's corner indices can teach the reader."""

    bad_ranks: frozenset[str] = frozenset()  # ranks printed with other letters
    suit_colours_ok: bool = True  # two-colour deck: its suit pips look like most decks'
    rank_corners: frozenset[str] | None = None  # corners that show the rank (None: all)
    pip_corners: frozenset[str] | None = None  # corners that show the suit pip (None: all)

    def targets(self, corner: str, card: str) -> tuple[int, int]:
        rank, suit = card[:-1], card[-1]
        rank_ok = rank not in self.bad_ranks and (self.rank_corners is None or corner in self.rank_corners)
        suit_ok = self.suit_colours_ok and (self.pip_corners is None or corner in self.pip_corners)
        return (
            RANKS.index(rank) if rank_ok else NO_TARGET,
            SUITS.index(suit) if suit_ok else NO_TARGET,
        )


def deck_targets() -> dict[str, DeckTargets]:
    """Per deck design, which targets its indices teach (from ``assistant/synth/decks.json``)."""
    from assistant.synth.decks import load_records

    out: dict[str, DeckTargets] = {}
    for r in load_records():
        bad: set[str] = set()
        if r.court_letters.upper() != "JQK":
            bad |= {"J", "Q", "K"}
        if "aces print" in r.notes:
            bad.add("A")
        rank_corners: frozenset[str] | None = None
        pip_corners: frozenset[str] | None = None
        if not getattr(r, "index_has_suit", True):  # KDE Oxygen: the index is a bare rank
            pip_corners = frozenset()
        elif "rank only" in r.notes:  # KDE Oxygen: rank at tr/bl, suit pip at tl/br
            rank_corners = frozenset({"tr", "bl"})
            pip_corners = frozenset({"tl", "br"})
        elif "suit pip under the left ones only" in r.notes:  # Dondorf
            pip_corners = frozenset({"tl", "bl"})
        out[r.id] = DeckTargets(frozenset(bad), r.suit_colours == 2, rank_corners, pip_corners)
    return out


def _truth_files(dataset: Path, split: str) -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in sorted((dataset / "truth" / split).glob("*.json")):
        yield dataset / "images" / split / path.with_suffix(".jpg").name, json.loads(path.read_text())


def quad_box(quad: npt.ArrayLike) -> tuple[float, float, float, float]:
    q = np.asarray(quad, dtype=np.float64)
    return (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))


class _Collector:
    def __init__(self, patch: int, min_px: float) -> None:
        self.patch, self.min_px = patch, min_px
        self.targets = deck_targets()
        self.patches: list[npt.NDArray[np.uint8]] = []
        self.ranks: list[int] = []
        self.suits: list[int] = []
        self.decks: list[str] = []

    def add(self, image: npt.NDArray[Any], deck: str, objects: list[dict[str, Any]]) -> None:
        targets = self.targets.get(deck, DeckTargets())
        for obj in objects:
            card = obj.get("card")
            if obj["kind"] != "card" or not card:
                continue
            for idx in obj["indices"]:
                if not idx["labelled"]:
                    continue
                box = quad_box(idx["quad"])
                if max(box[2] - box[0], box[3] - box[1]) < self.min_px:
                    continue
                rank, suit = targets.targets(idx["corner"], card)
                if rank == NO_TARGET and suit == NO_TARGET:
                    continue
                crop = square_crop(image, box, self.patch, INFERENCE_SCALE * CONTEXT)
                self.patches.append(upright(crop, idx["quad"]))
                self.ranks.append(rank)
                self.suits.append(suit)
                self.decks.append(deck)

    def result(self) -> CropSet:
        p = self.patch
        return CropSet(
            np.stack(self.patches) if self.patches else np.zeros((0, p, p, 3), np.uint8),
            np.array(self.ranks, np.int64),
            np.array(self.suits, np.int64),
            self.decks,
        )


def quarter_turns(quad: npt.ArrayLike) -> int:
    """Quarter turns (``np.rot90``'s k) that bring an index within 45 degrees of upright.

    ``quad`` is the printed index's outline in reading order (top-left, top-right, ...).
    """
    q = np.asarray(quad, dtype=np.float64)
    dx, dy = q[1] - q[0]
    return round(math.degrees(math.atan2(dy, dx)) / 90) % 4


def upright(crop: npt.NDArray[np.uint8], quad: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    return np.ascontiguousarray(np.rot90(crop, quarter_turns(quad)))


def index_crops(dataset: Path, split: str, patch: int, min_px: float) -> CropSet:
    """Context patches of every labelled corner index of a written dataset's ``split``."""
    out = _Collector(patch, min_px)
    for image_path, truth in _truth_files(dataset, split):
        image = cv2.imread(str(image_path))
        if image is not None:
            out.add(image, truth["deck"], truth["objects"])
    return out.result()


#: Stand-ins for an index's size (1 mm/px) where an image has no labelled index.
DEFAULT_INDEX_PX = (9.0, 20.0)


def negative_crops(dataset: Path, split: str, patch: int, per_image: int, seed: int = 0) -> CropSet:
    """Index-sized patches that show no corner index, cut as :func:`index_crops` cuts one.

    They teach the index reader's ``index`` head to say "not an index": where a card box
    whose index stage 1 missed is read by geometry, a back taken for a card, a court
    picture or a pip must not come out as a card. Per image with cards, ``per_image``
    boxes of the image's index size are drawn: where an upright card's top-left index
    would lie on a face-down card, or anywhere on a card or back, and now and then
    anywhere at all; none may come near a printed index (covered or not).
    """
    rng = np.random.default_rng(seed)
    patches: list[npt.NDArray[np.uint8]] = []
    decks: list[str] = []
    for image_path, truth in _truth_files(dataset, split):
        cards = [o for o in truth["objects"] if o["kind"] in ("card", "face_down") and o.get("corners")]
        if not cards:
            continue
        image = cv2.imread(str(image_path))
        if image is None:
            continue
        h, w = image.shape[:2]
        indices = [quad_box(i["quad"]) for o in cards for i in o.get("indices", [])]
        sizes = [(b[2] - b[0], b[3] - b[1]) for b in indices if b[3] - b[1] >= 6]
        iw, ih = (
            (float(np.median([s[0] for s in sizes])), float(np.median([s[1] for s in sizes])))
            if sizes
            else DEFAULT_INDEX_PX
        )
        backs = [quad_box(o["corners"]) for o in cards if o["kind"] == "face_down"]
        made, tries = 0, 0
        while made < per_image and tries < 20 * per_image:
            tries += 1
            bw, bh = iw * rng.uniform(0.8, 1.25), ih * rng.uniform(0.8, 1.25)
            where = rng.random()
            if where < 0.4 and backs:
                x1, y1, x2, y2 = backs[int(rng.integers(len(backs)))]
                cx = x1 + 0.1 * (x2 - x1) + rng.uniform(-3, 3)
                cy = y1 + 0.15 * (y2 - y1) + rng.uniform(-3, 3)
            elif where < 0.85:
                x1, y1, x2, y2 = quad_box(cards[int(rng.integers(len(cards)))]["corners"])
                cx, cy = rng.uniform(x1, x2), rng.uniform(y1, y2)
            else:
                cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            if not (0 <= cx < w and 0 <= cy < h):
                continue
            if any(_near(b, cx, cy, bw, bh) for b in indices):
                continue
            box = (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2)
            patches.append(square_crop(image, box, patch, INFERENCE_SCALE * CONTEXT))
            decks.append(truth["deck"])
            made += 1
    n = len(patches)
    return CropSet(
        np.stack(patches) if patches else np.zeros((0, patch, patch, 3), np.uint8),
        np.full(n, NO_TARGET, np.int64),
        np.full(n, NO_TARGET, np.int64),
        decks,
    )


def _near(index: tuple[float, float, float, float], x: float, y: float, w: float, h: float) -> bool:
    """Whether a box of size (w, h) centred at (x, y) would show much of ``index``."""
    cx, cy = (index[0] + index[2]) / 2, (index[1] + index[3]) / 2
    return abs(x - cx) < 0.75 * max(w, index[2] - index[0]) and abs(y - cy) < 0.75 * max(
        h, index[3] - index[1]
    )


def closeup_index_crops(
    seed: int,
    images: int,
    split: str,
    patch: int,
    min_px: float,
    progress: Callable[[int], None] | None = None,
) -> CropSet:
    """Index patches rendered on the fly from close-up scenes (cards large in the frame).

    Close-ups show indices of 10-45 px where a table view shows 6-15 px: the reader
    learns what the printed ranks look like there, and the table views teach it blur.
    """
    from assistant.synth.dataset import SPLITS, render_sample

    out = _Collector(patch, min_px)
    for i in range(images):
        sample = render_sample(seed, i, SPLITS[split], closeup=True)
        out.add(sample.rendered.image, sample.record.id, [t.to_json() for t in sample.truths])
        if progress is not None:
            progress(i + 1)
    return out.result()


def chip_side_px(camera: dict[str, Any], box: tuple[float, float, float, float]) -> float:
    """Pixels that one chip's thickness spans at ``box``'s stack (pinhole, table at z=0)."""
    r = np.array(camera["rotation_world_to_camera"], dtype=np.float64)
    c = np.array(camera["position_cm"], dtype=np.float64)
    f = float(camera["focal_px"])
    px, py = camera["principal_point"]
    u, v = (box[0] + box[2]) / 2, box[3] - (box[2] - box[0]) / 2  # near the stack's foot
    ray = r.T @ np.array([(u - px) / f, (v - py) / f, 1.0])
    if abs(ray[2]) < 1e-9:
        return 0.0
    t = -c[2] / ray[2]
    foot = c + t * ray
    top = foot + np.array([0.0, 0.0, CHIP_THICKNESS_CM])
    a, b = (r @ (p - c) for p in (foot, top))
    if a[2] <= 0 or b[2] <= 0:
        return 0.0
    return float(math.hypot(*(f * (a[:2] / a[2] - b[:2] / b[2]))))


def chip_target(truth: dict[str, Any], obj: dict[str, Any]) -> int | None:
    """What the chip reader should say of the stack ``obj`` of a truth file.

    Its count (at most ``MAX_CHIPS``) when one chip more adds at least
    :data:`MIN_CHIP_PX` of side in the camera's frame, 0 ("unknown") when it adds less.
    A zone crop's truth carries that side as ``side_px`` (its boxes are in crop pixels,
    which the camera's model does not map); a whole-frame truth's box is in the
    camera's pixels, so the side is worked out from it. ``None`` for a zone crop
    written without ``side_px`` (its stacks cannot be judged), and for a stack whose side
    shows but whose box touches the image's edge (its whole height is not in the image).
    """
    if "side_px" in obj:
        side = float(obj["side_px"])
    elif "zone" in truth:
        return None
    else:
        side = chip_side_px(truth["camera"], tuple(obj["box"]))
    if side < MIN_CHIP_PX:
        return 0
    if "size" in truth:
        w, h = truth["size"]
        x0, y0, x1, y1 = obj["box"]
        if min(x0, y0) <= EDGE_PX or x1 >= w - EDGE_PX or y1 >= h - EDGE_PX:
            return None
    return min(int(obj["count"]), MAX_CHIPS)


def chip_crops(dataset: Path, split: str, patch: int) -> CropSet:
    """Context patches of chip stacks at least 80% visible, with :func:`chip_target` as
    target (the count, or 0 when unreadable from above); stacks it cannot judge are left out."""
    patches, counts = [], []
    decks: list[str] = []
    for image_path, truth in _truth_files(dataset, split):
        stacks = []
        for obj in truth["objects"]:
            if obj["kind"] != "chips" or not obj["labelled"] or obj["box"] is None:
                continue
            if obj["visible"] < 0.8:
                continue  # a half-hidden stack's count is not in its image
            target = chip_target(truth, obj)
            if target is not None:
                stacks.append((tuple(obj["box"]), target))
        image = cv2.imread(str(image_path)) if stacks else None
        if image is None:
            continue
        for box, target in stacks:
            patches.append(square_crop(image, box, patch, INFERENCE_SCALE * CONTEXT))
            counts.append(target)
            decks.append(truth["deck"])
    n = len(counts)
    return CropSet(
        np.stack(patches) if patches else np.zeros((0, patch, patch, 3), np.uint8),
        np.array(counts, np.int64),
        np.full(n, NO_TARGET, np.int64),
        decks,
    )


def fewer_unknown(crops: CropSet, keep: int, seed: int = 0) -> CropSet:
    """``crops`` with at most ``keep`` of its "unknown" (target 0) chip crops, a seeded
    random choice, the others in their order: whole renders and overhead zone crops hold
    many times more stacks seen from above than stacks whose side shows."""
    unknown = np.flatnonzero(crops.rank == 0)
    if len(unknown) <= keep:
        return crops
    drop = np.random.default_rng(seed).choice(unknown, len(unknown) - keep, replace=False)
    kept = np.setdiff1d(np.arange(len(crops.rank)), drop)
    return CropSet(crops.patches[kept], crops.rank[kept], crops.suit[kept], [crops.deck[i] for i in kept])


STRIP_PAD = 6  # pixels of context around a strip, for jittering it in training


def card_turns(corners: npt.ArrayLike) -> int | None:
    """How a card lies in its crop: 0 upright, 2 upside down (``np.rot90``'s k), None
    sideways. ``corners``: its outline in its own reading order (top-left, top-right,
    bottom-right, bottom-left).

    >>> card_turns([[0, 0], [63, 0], [63, 88], [0, 88]]), card_turns([[63, 88], [0, 88], [0, 0], [63, 0]])
    (0, 2)
    >>> card_turns([[88, 0], [88, 63], [0, 63], [0, 0]]) is None
    True
    """
    q = np.asarray(corners, dtype=np.float64)
    dx, dy = q[3] - q[0]  # the card's own "down"
    if abs(dy) < 2 * abs(dx):
        return None
    return 0 if dy > 0 else 2


STRIP_MIN_VISIBLE = 0.6  # share of the corner index at the strip's top that must be in view
STRIP_MIN_BOX = (20.0, 40.0)  # px: narrower or shorter card boxes (cut by the crop's edge) are left out


def strip_crops(
    dataset: Path, split: str, pad: int = STRIP_PAD, size: tuple[int, int] = STRIP_SIZE
) -> CropSet:
    """Upright card strips (see :func:`~assistant.detect.crops.strip_crop`) of a zone
    dataset, ``size`` (width, height) each.

    One per labelled face-up card lying upright or upside down whose corner index at its
    box's top-left is in view, cut from the card's box with ``pad`` pixels of context
    (for jittering it in training). Targets are masked per deck design as for the index
    reader, by that corner.
    """
    targets = deck_targets()
    patches: list[npt.NDArray[np.uint8]] = []
    ranks: list[int] = []
    suits: list[int] = []
    decks: list[str] = []
    for image_path, truth in _truth_files(dataset, split):
        image = None
        deck = truth["deck"]
        for obj in truth["objects"]:
            card = obj.get("card")
            if obj["kind"] != "card" or not card or not obj.get("labelled"):
                continue
            turns = card_turns(obj["corners"])
            if turns is None:
                continue
            corner = "tl" if turns == 0 else "br"
            shown = [i for i in obj["indices"] if i["corner"] == corner]
            if not shown or shown[0]["visible"] < STRIP_MIN_VISIBLE:
                continue
            box = obj["box"]
            if not _strip_sized(box):
                continue
            rank, suit = targets.get(deck, DeckTargets()).targets(corner, card)
            if rank == NO_TARGET and suit == NO_TARGET:
                continue
            if image is None:
                image = cv2.imread(str(image_path))
                if image is None:
                    break
            patches.append(strip_crop(image, box, pad, size))
            ranks.append(rank)
            suits.append(suit)
            decks.append(deck)
    return _strip_set(patches, ranks, suits, decks, pad, size)


#: The back reader's one head, ``face``: 1 where a card box's strip shows a card lying
#: face up, 0 where it shows a back. Its target is kept in a crop set's ``rank``.
FACE_UP, FACE_DOWN = 1, 0


def face_or_back_strips(
    dataset: Path, split: str, pad: int = STRIP_PAD, size: tuple[int, int] = STRIP_SIZE
) -> CropSet:
    """Upright strips of a zone dataset's cards, each with whether the card lies face up
    (``FACE_UP``) or shows its back (``FACE_DOWN``), in ``rank``; ``suit`` is masked.

    One per labelled card, face up or face down, lying upright or upside down with a box
    at least ``STRIP_MIN_BOX``, cut from the card's box as :func:`strip_crops` cuts them;
    a face-up card counts whether or not its corner index is in view (the back reader
    judges the card boxes whose index stage 1 did not find).
    """
    patches: list[npt.NDArray[np.uint8]] = []
    faces: list[int] = []
    decks: list[str] = []
    for image_path, truth in _truth_files(dataset, split):
        shown = [
            (obj["box"], FACE_UP if obj["kind"] == "card" else FACE_DOWN)
            for obj in truth["objects"]
            if obj["kind"] in ("card", "face_down")
            and obj.get("labelled")
            and obj.get("corners") is not None
            and obj.get("box") is not None
            and card_turns(obj["corners"]) is not None
            and _strip_sized(obj["box"])
        ]
        image = cv2.imread(str(image_path)) if shown else None
        if image is None:
            continue
        for box, face in shown:
            patches.append(strip_crop(image, box, pad, size))
            faces.append(face)
            decks.append(truth["deck"])
    return _strip_set(patches, faces, [NO_TARGET] * len(faces), decks, pad, size)


def _strip_sized(box: list[float]) -> bool:
    """Whether a card box is at least ``STRIP_MIN_BOX`` (narrower or shorter ones are cut by
    the crop's edge)."""
    return box[2] - box[0] >= STRIP_MIN_BOX[0] and box[3] - box[1] >= STRIP_MIN_BOX[1]


def _strip_set(
    patches: list[npt.NDArray[np.uint8]],
    ranks: list[int],
    suits: list[int],
    decks: list[str],
    pad: int,
    size: tuple[int, int],
) -> CropSet:
    if patches:
        stacked = np.stack(patches)
    else:
        stacked = np.zeros((0, size[1] + 2 * pad, size[0] + 2 * pad, 3), np.uint8)
    return CropSet(stacked, np.array(ranks, np.int64), np.array(suits, np.int64), decks)
