"""Cards in an uncalibrated photo, read by the zone-trained detector.

The shipped models learnt cards only from rectified 1 mm/px zone crops: a card there is
about 63 x 88 px and nearly upright. In an ordinary photo a card can lie at any scale and
any in-plane angle, so :class:`PhotoDetector` brings each card into that view first
(a photo longer than ``max_side`` is shrunk to it first, and its boxes scaled back):

1. **Where to look**: stage 1 runs once on the whole photo as it is; any box it gives
   (however unsure: the cards there are at the wrong scale) marks a region of interest.
   Overlapping regions are joined.
2. **Sweep**: each region is turned through ``angles`` (0-180 degrees: an index upside
   down is known to the model) and enlarged by each of ``scales`` (small cards); the
   whole photo is turned likewise and shrunk by each of ``whole_scales`` (big cards).
   Stage 1, configured as for zone crops, runs on every such view. A card box there
   counts only where the card comes out upright at about zone-crop size; it is mapped
   back to the photo as a quadrilateral, and boxes of one card from several views are
   merged by their overlap.
3. **Read**: around each card found, a patch is warped from the photo so that the card
   stands upright at 63 x 88 px in its middle with table around it, as in a zone crop
   (also turned by each of ``turns``: the sweep's angles are coarse), and
   :meth:`CardDetector.detect` (the zone detector) reads it, every index in all the
   zone views (``index_views``). The card read where the
   card should be (box overlap) is the one, the surest of the turns; one read off its
   place is read again in a patch fitted to it. Its box, mapped back to the photo, is
   the axis-aligned box of the card's outline there. (A card read from stage-1 indices
   is not read again at its searched corners here, as it is in a zone crop: on the
   validation renders that second reading cost more than it gave.)
4. **Report**: a card lying inside a bigger card read more surely is part of it (in a
   close-up a pip or a court picture, enlarged to zone size, can read as a card) and
   goes; a card at least ``sure_size`` px long was read from a patch at full zone-crop
   detail, where right readings are mostly sure, so it needs ``sure_confidence``; a
   smaller one, read from an enlarged and blurred patch, needs ``min_confidence``.

Face-down cards and chip stacks found in the sweep are mapped back too, but only from
views that show the photo's read cards at about zone-crop size (``extra_scale``: the
scale the stage-1 model learnt them at) and from ``extra_conf`` on; one lying on a card
read face up, or inside a surer one of its kind, is a part of that and goes; a photo
where no card is read reports none (stop 34: before, every view's boxes from confidence
0.05 were merged, and the 60 validation close-ups got over 1,000 face-down boxes and
2,000 chip stacks where 16 backs and 28 stacks lie). The chip count is read in the view
where the stack was found.

On the validation renders (``/work/data/det_a`` val, 640 px, cards 16-560 px long, median
37 px) the sweep costs a few seconds per photo on two CPU cores; the whole-photo
``CardDetector.load()`` run reads almost nothing there (F1 0.02).

**With a card finder** (:mod:`assistant.detect.card_finder`, ``models/card_finder.onnx``;
``PhotoDetector.load`` and ``detect`` use it where the model folder holds it) steps 1 and 2
are one model run on the photo and one on the photo turned a quarter: the finder gives
each card's four corners, and the affine map that fits them best stands the card upright
at the photo's scale; that is its candidate, read as in step 3, turned a little each way
and half round. Since stop 42 the cards are then named by place, not candidate by
candidate: every card read in any patch votes where it lies, and a deck holds each card
once (:mod:`assistant.detect.photo_votes`). Its face-down cards and
chip stacks are its own boxes (chip stacks carry no count: without a calibration the chip
reader calls every stack unknown), kept by the rules of the paragraph above, its stacks
from ``finder_chip_conf`` (stop 43). The finder takes most backs of close-ups for
face-up cards, so a card candidate whose upright and half-turned patches read no card in
their middle, where stage 1 sees a back, is a face-down card too (``finder_back_conf``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.backends import (
    Boxes,
    OnnxDetector,
    UltralyticsDetector,
    box_iou,
    input_size,
    inside_share,
)
from assistant.detect.card_finder import CardFinder, load_card_finder
from assistant.detect.photo_votes import PatchRead, named_by_vote
from assistant.detect.pipeline import (
    MODELS_DIR,
    ZONE_INDEX_VIEWS,
    ZONE_STRIP_VIEWS,
    Card,
    CardDetector,
    ChipStack,
    Detection,
    StripWeight,
    read_image,
    suppress_duplicates,
)
from assistant.detect.readers import CropViews, StripViews

Image = npt.NDArray[np.uint8]
Affine = npt.NDArray[np.float64]  # 2 x 3, photo pixels -> view pixels
Quad = npt.NDArray[np.float64]  # 4 x 2: top-left, top-right, bottom-right, bottom-left
BoxT = tuple[float, float, float, float]
T = TypeVar("T")

CARD_W, CARD_H = 63.0, 88.0  # a card in a 1 mm/px zone crop
SAME_CARD_IOU = 0.2  # two reads of one name overlapping this much are one card
_IDENTITY: Affine = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], np.float64)
MIN_VIEW = 280.0  # stage 1 sees a zone crop's 280 px at its 320 px input: no view is smaller


#: The photo search reads every index of its patches in all the zone views: reading in the
#: trained view alone where that is 0.9 sure (as the camera pipeline does since stop 19)
#: reported 10 more wrong cards on the validation close-ups (F1 0.658 -> 0.642).
PHOTO_INDEX_VIEWS = replace(ZONE_INDEX_VIEWS, enough=None)
#: The power the patches' strip readings are raised to, rank and suit alike (the zone
#: crops' is ``STRIP_WEIGHT``): chosen on the validation close-ups with stop 21's strip
#: reader, F1 0.667 (107 right, 30 wrong) at 0.2 against 0.640 (111 right, 52 wrong) at
#: 0.5. The zone crops' rank and suit weights apart (stop 29) were not measured on photos.
PHOTO_STRIP_WEIGHT = StripWeight.both(0.2)


@dataclass(frozen=True)
class PhotoSettings:
    """What the search tries; the defaults were chosen on the validation renders."""

    angles: tuple[float, ...] = (0.0, 30.0, 60.0, 90.0, 120.0, 150.0)
    #: view pixels per photo pixel: a card whose long side is 88 / scale px comes out at zone size
    scales: tuple[float, ...] = (1.2, 1.8)
    #: ... and these, below 1, for big cards: run on the whole photo (cheap, shrunk), not on regions
    whole_scales: tuple[float, ...] = (0.8, 0.55, 0.38, 0.26, 0.18, 0.125)
    max_side: int = 1280  # a bigger photo is first brought down to this long side
    roi_conf: float = 0.05  # stage-1 boxes on the whole photo that mark a region
    roi_margin: float = 24.0  # photo pixels around a region
    sweep_conf: float = 0.05  # a card box in a view at least this sure is a candidate
    size_range: tuple[float, float] = (0.7, 1.4)  # card box over zone-crop size, in a view
    min_aspect: float = 1.05  # a view's card box height over width: upright
    merge_iou: float = 0.5  # candidates of one card, in the photo
    max_candidates: int = 40
    patch: tuple[int, int] = (280, 170)  # read patch (w, h): stage 1 sees 280 px at 320
    #: degrees: each card is read in patches turned by each (the sweep's angles are 30 degrees
    #: apart, and a card seen in perspective leans further)
    turns: tuple[float, ...] = (-20.0, -10.0, 0.0, 10.0, 20.0)
    refit_off: float = 0.1  # a card read this far off its place (share of its size) is read again
    patch_iou: float = 0.5  # a card read in a patch is the one where it overlaps the card's place so
    min_confidence: float = 0.3  # a card read less sure than this is left out
    #: a card whose box is at least ``sure_size`` px long in the photo as searched (after
    #: ``max_side``) was read from a patch at full zone-crop detail, where a right reading
    #: is mostly sure: it needs this
    sure_confidence: float = 0.6
    sure_size: float = 100.0
    #: a card lying this much inside a surer card's box at least ``part_size`` times as long
    #: is a part of that card (a pip, an index or a picture read as a card) and goes
    part_inside: float = 0.6
    part_size: float = 1.6
    #: face-down cards and chip stacks count only from views whose scale lies within this
    #: range of the scale that shows the photo's read cards at zone-crop size (where stage 1
    #: learnt backs and stacks; in views enlarged past it, pips, pictures and the table's
    #: pattern come out back- and stack-sized), ...
    extra_scale: tuple[float, float] = (0.6, 1.6)
    #: ... from this confidence on
    extra_conf: float = 0.5
    #: a face-down box lying this much inside a read card's box is that card, or a part of it
    #: (a court picture); one overlapping it by IoU 0.5 (the rule before stop 34) always
    #: does, as a box's share inside another is never under their IoU. A chip stack lying
    #: ``chips_on_card`` inside a read card's or a face-down card's box is a part of that
    #: card (a pip, a back's pattern)
    back_on_card: float = 0.5
    chips_on_card: float = 0.3
    #: a face-down box or chip stack lying this much inside a surer one of its kind is part of it
    extra_inside: float = 0.6
    index_views: CropViews = PHOTO_INDEX_VIEWS  # how the patches' indices are read
    #: the powers the patches' strip readings are raised to (``PHOTO_STRIP_WEIGHT``); with
    #: the finder and its votes (stop 44, 237 validation close-ups of ``photos_v2``, cards F1
    #: 0.730 at 0.2): 0.732 at 0.1, 0.711 at the zone crops' rank 1 / suit 2
    strip_weight: StripWeight = PHOTO_STRIP_WEIGHT
    #: the cuts of the patches' strips that are read: the zone crops' (stop 28), chosen on
    #: the validation close-ups, F1 0.673 (108 right, 29 wrong) against 0.665 (107, 31)
    #: in one cut; 0.667 (109, 34) at strip weight 0.3
    strip_views: StripViews = ZONE_STRIP_VIEWS
    #: the face reader's say in the patches (None: not read; at the zone crops'
    #: ``FACE_WEIGHT`` the same 237 close-ups read 0.729 against 0.730, stop 44)
    face_weight: StripWeight | None = None
    #: a card read by geometry this surely yields in a patch as one read from its indices
    #: (None: to any surer card it overlaps by a third, as before stop 31; the zone crops'
    #: ``GEOMETRY_SURE_READING`` reads the same 237 close-ups exactly as None, stop 44)
    sure_geometry: float | None = None
    #: stage-1 face-up card boxes are kept in the patches from this confidence on (None:
    #: from the zone detector's ``ZONE_CONF``, as every other box); the zone crops'
    #: ``ZONE_CARD_CONF`` (stop 25) read the same 237 close-ups at 0.735 against 0.730 and
    #: the validation pool at 0.785 against 0.784 (stop 44: short of the 0.01 asked)
    card_box_conf: float | None = None
    #: a card box with no stage-1 index is a back where the back reader gives its strip
    #: less than this of showing a face (None: the back reader is not asked; not measured
    #: on photos, where the card finder and ``finder_back_conf`` tell backs apart; the
    #: zone crops' ``BACK_MAX_FACE``, stop 51)
    back_max_face: float | None = None
    #: with a card finder (:mod:`assistant.detect.card_finder`): the input size (long
    #: side) the photo is brought to for it (chosen on the validation close-ups: F1 0.635
    #: at 480 against 0.609 at 320, the size it was trained at; with the votes 0.763 on
    #: ``photos_a`` val against 0.707 at 640 and 0.702 at 800), and the confidence its
    #: boxes count from: low, since the votes of every candidate's patches name the cards
    #: and their bar guards the report (validation close-ups of both sets, stop 42: F1
    #: 0.786 at 0.1 against 0.767 at 0.25; backs and stacks answer to ``extra_conf``)
    finder_size: int = 480
    finder_conf: float = 0.1
    finder_iou: float = 0.7  # its boxes of one class overlapping more are one object (in one run)
    finder_merge_iou: float = 0.7  # outlines of its two runs overlapping more are one card
    #: ``sure_confidence`` for cards read from the finder's corners: its candidates are
    #: whole cards, not the search's parts of cards enlarged to card size, so a big card
    #: needs no more than a small one (validation close-ups, the finder at 320 px, turns
    #: -10, 0, +10: F1 0.591 against 0.587 at 0.6; with the five ``turns`` 0.609). Cards
    #: named by votes (``finder_min_votes``) answer to the votes' bar instead
    finder_sure_confidence: float = 0.3
    #: degrees: each card from the finder's corners is read in patches turned by each. The
    #: finder's corner order (the top is the higher short side) stands about half the cards
    #: on their heads, where the index corner at the top is often the one covered by the next
    #: card of a fan, so each card is also read turned half round (validation close-ups of
    #: both sets, stop 41: F1 0.683 against 0.635 in ``turns`` alone; -10/0/10 each way
    #: 0.677)
    finder_turns: tuple[float, ...] = (-20.0, -10.0, 0.0, 10.0, 20.0, 160.0, 170.0, 180.0, 190.0, 200.0)
    #: cards from the finder's corners are named by the votes of every patch that read them
    #: (:mod:`assistant.detect.photo_votes`): a place needs this sum of confidences (None:
    #: each candidate is named by its own surest read, as before stop 42). Chosen on the
    #: validation close-ups of both sets: F1 0.767 against 0.683
    finder_min_votes: float | None = 1.5
    vote_place_iou: float = 0.5  # reads whose boxes overlap this much are one place
    #: a card read off a patch's middle votes where it lies wholly inside the patch, this
    #: many px from its edge (one cut by the edge may be read as another card); 12 px read
    #: as well on the validation close-ups (0.766)
    vote_margin: float = 4.0
    #: the card finder's chip stacks are reported from this confidence (its backs, like the
    #: search's boxes, from ``extra_conf``). Chosen on 237 validation close-ups of
    #: ``photos_v2`` (stacks F1 0.40 at 0.5, 0.48 at 0.4, 0.51 at 0.3, 0.505 at 0.25) and
    #: checked on the 120 of the validation pool: 0.405 -> 0.485 (stop 43)
    finder_chip_conf: float = 0.3
    #: a card candidate of the finder whose upright and half-turned patches read no card in
    #: their middle and show stage 1 a face-down card there this sure (and by
    #: ``finder_back_margin`` surer than a face-up card box) is a back (None: never).
    #: Chosen on the 237 validation close-ups of ``photos_v2`` (backs F1 0.145 -> 0.357;
    #: 0.35 with no margin) and checked on the 120 of the validation pool: 0.343 -> 0.426
    #: (stop 43)
    finder_back_conf: float | None = 0.3
    finder_back_margin: float = 0.2


@dataclass
class Candidate:
    """A box of stage 1 in one view, mapped back to the photo."""

    quad: Quad
    conf: float
    cls: int
    view: Affine
    box: BoxT  # in view pixels


@dataclass
class _Sweep:
    cards: list[Candidate] = field(default_factory=list)
    backs: list[Candidate] = field(default_factory=list)
    chips: list[tuple[Candidate, int | None]] = field(default_factory=list)


def turn(m: Affine, angle: float, size: tuple[int, int]) -> Affine:
    """``m`` followed by a turn of ``angle`` degrees about the middle of a view of ``size``."""
    if angle == 0:
        return m
    r = cv2.getRotationMatrix2D((size[0] / 2, size[1] / 2), angle, 1.0).astype(np.float64)
    return compose(r, m)


def compose(a: Affine, b: Affine) -> Affine:
    """The affine map ``a`` after ``b``."""
    return np.hstack([a[:, :2] @ b[:, :2], a[:, :2] @ b[:, 2:] + a[:, 2:]])


def recentre(m: Affine, box: BoxT, size: tuple[int, int]) -> Affine:
    """``m`` followed by the shift and scale that bring a card's patch ``box`` to 63 x 88 px
    in the middle of the patch."""
    x1, y1, x2, y2 = box
    sx, sy = CARD_W / max(x2 - x1, 1.0), CARD_H / max(y2 - y1, 1.0)
    fit = np.array(
        [[sx, 0.0, size[0] / 2 - sx * (x1 + x2) / 2], [0.0, sy, size[1] / 2 - sy * (y1 + y2) / 2]], np.float64
    )
    return compose(fit, m)


def view_transform(centre: tuple[float, float], angle: float, scale: float, size: tuple[int, int]) -> Affine:
    """The affine map of photo pixels to a view of ``size`` (w, h) whose middle is ``centre``,
    turned by ``angle`` degrees (counter-clockwise on screen) and scaled by ``scale``."""
    m = cv2.getRotationMatrix2D(centre, angle, scale).astype(np.float64)
    m[0, 2] += size[0] / 2 - centre[0]
    m[1, 2] += size[1] / 2 - centre[1]
    return m


def turned_size(w: float, h: float, angle: float, scale: float) -> tuple[int, int]:
    """Size (w, h) of the view that holds a ``w`` x ``h`` region turned and scaled."""
    c, s = abs(np.cos(np.radians(angle))), abs(np.sin(np.radians(angle)))
    return int(np.ceil((w * c + h * s) * scale)), int(np.ceil((w * s + h * c) * scale))


def map_points(m: Affine, pts: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Points (N, 2) through the affine map ``m``."""
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    return np.asarray(p @ m[:, :2].T + m[:, 2], np.float64)


def box_corners(box: BoxT) -> Quad:
    """The four corners of an axis-aligned box: top-left, top-right, bottom-right, bottom-left."""
    x1, y1, x2, y2 = box
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)


def back_to_photo(m: Affine, box: BoxT) -> Quad:
    """A view's box as a quadrilateral in photo pixels."""
    return map_points(np.asarray(cv2.invertAffineTransform(m), np.float64), box_corners(box))


def bounds(quad: Quad, shape: tuple[int, ...]) -> BoxT:
    """Axis-aligned box of ``quad``, clipped to an image of ``shape``."""
    h, w = shape[:2]
    x1, y1 = quad.min(0)
    x2, y2 = quad.max(0)
    return (
        float(np.clip(x1, 0, w)),
        float(np.clip(y1, 0, h)),
        float(np.clip(x2, 0, w)),
        float(np.clip(y2, 0, h)),
    )


def quad_iou(a: Quad, b: Quad) -> float:
    """Intersection over union of two convex quadrilaterals."""
    pa, pb = a.astype(np.float32), b.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    union = abs(cv2.contourArea(pa)) + abs(cv2.contourArea(pb)) - inter
    return float(inter / union) if union > 0 else 0.0


def regions(boxes: Boxes, shape: tuple[int, ...], margin: float) -> list[BoxT]:
    """Regions of interest: the boxes grown by ``margin``, overlapping ones joined."""
    h, w = shape[:2]
    mask = np.zeros((h, w), np.uint8)
    for x1, y1, x2, y2 in boxes.xyxy:
        a, b = max(0, int(x1 - margin)), max(0, int(y1 - margin))
        c, d = min(w, int(np.ceil(x2 + margin))), min(h, int(np.ceil(y2 + margin)))
        mask[b:d, a:c] = 1
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    return [(float(x), float(y), float(x + bw), float(y + bh)) for x, y, bw, bh, _ in stats[1:n]]


def upright_card(box: BoxT, settings: PhotoSettings) -> bool:
    """Whether a card box in a view is a card standing upright at about zone-crop size."""
    w, h = box[2] - box[0], box[3] - box[1]
    lo, hi = settings.size_range
    return bool(
        lo * CARD_W <= w <= hi * CARD_W and lo * CARD_H <= h <= hi * CARD_H and h >= settings.min_aspect * w
    )


def merge(candidates: list[Candidate], iou: float, limit: int) -> list[Candidate]:
    """The surest candidate of each place: one overlapping a surer kept one by ``iou`` goes."""
    kept: list[Candidate] = []
    for c in sorted(candidates, key=lambda c: -c.conf):
        if all(quad_iou(c.quad, k.quad) < iou for k in kept):
            kept.append(c)
            if len(kept) >= limit:
                break
    return kept


def patch_transform(c: Candidate, size: tuple[int, int]) -> Affine:
    """Photo -> patch map that stands the candidate's card upright at 63 x 88 px in the
    middle of a patch of ``size`` (w, h)."""
    return recentre(c.view, c.box, size)


class PhotoDetector:
    """Cards, face-down cards and chips in a photo at any scale and in-plane angle."""

    def __init__(
        self,
        zones: CardDetector | None = None,
        settings: PhotoSettings | None = None,
        finder: CardFinder | None = None,
    ) -> None:
        self.settings = settings if settings is not None else PhotoSettings()
        self.finder = finder
        zones = zones if zones is not None else CardDetector.for_zones(with_wide_reader=False)
        self.zones = (
            zones.reading_in(self.settings.index_views, self.settings.strip_weight, self.settings.strip_views)
            .keeping_card_boxes_from(self.settings.card_box_conf)
            .reading_faces_at(self.settings.face_weight)
            .trusting_geometry_from(self.settings.sure_geometry)
            .judging_backs_below(self.settings.back_max_face)
        )
        names = self.zones.detector.names
        self._card, self._back = names.index("card"), names.index("face_down")
        self._chips = {i: n.removeprefix("chips_") for i, n in enumerate(names) if n.startswith("chips_")}
        self._chip_class = {f"chips_{colour}": i for i, colour in self._chips.items()}
        w, h = self.settings.patch
        #: where a patch's own card lies in it
        self._expected = (w / 2 - CARD_W / 2, h / 2 - CARD_H / 2, w / 2 + CARD_W / 2, h / 2 + CARD_H / 2)
        #: the reporting bars: a finder's candidates are whole cards, so its own sure bar
        self._bars = (
            self.settings
            if finder is None
            else replace(self.settings, sure_confidence=self.settings.finder_sure_confidence)
        )

    @classmethod
    def load(cls, models: Path = MODELS_DIR, *, threads: int = 0, search: bool = False) -> PhotoDetector:
        """The photo detector of a model folder: with its card finder where it holds one
        (``search``: without it, searching view by view)."""
        finder = None if search else load_card_finder(models, threads)
        return cls(CardDetector.for_zones(models, threads=threads, with_wide_reader=False), finder=finder)

    def detect_file(self, path: Path) -> Detection:
        return self.detect(read_image(path), str(path))

    def detect(self, image: Image, name: str = "") -> Detection:
        """Everything found in ``image``, in its own pixel coordinates."""
        shrink = min(1.0, self.settings.max_side / max(image.shape[:2]))
        small = image
        if shrink < 1.0:
            size = (max(1, round(image.shape[1] * shrink)), max(1, round(image.shape[0] * shrink)))
            small = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)
        if self.finder is None:
            found = self._sweep(small)
            cards = merge(found.cards, self.settings.merge_iou, self.settings.max_candidates)
        else:  # merged by its own overlap (fanned cards' outlines overlap more than merge_iou)
            found = self._find(small, self.finder)
            cards = found.cards
        out = Detection(name)
        unread_backs: list[Candidate] = []  # the finder's cards whose patches show a back
        if self.finder is None:
            out.cards = self._read(small, cards, self.settings.turns)
        elif self.settings.finder_min_votes is None:
            out.cards = self._read(small, cards, self.settings.finder_turns)
        else:
            out.cards, unread_backs = self._voted(small, cards, self.settings.finder_min_votes)
        scale = card_view_scale(out.cards, cards)
        backs = self._at_card_scale(found.backs, scale, self.settings.extra_conf) + unread_backs
        out.face_down = self._backs(small, backs, out.cards)
        chip_conf = self.settings.extra_conf if self.finder is None else self.settings.finder_chip_conf
        out.chips = self._chip_stacks(
            small, found.chips, scale, [c.box for c in out.cards] + out.face_down, chip_conf
        )
        return enlarged(out, 1.0 / shrink) if shrink < 1.0 else out

    def _stage1(self, image: Image, conf: float, whole: bool = False) -> Boxes:
        """Stage 1 on ``image`` from confidence ``conf`` on; ``whole``: at the image's own
        scale (not enlarged as a zone crop is)."""
        det = self.zones.detector
        if not isinstance(det, OnnxDetector | UltralyticsDetector):
            return det(image)
        size = max(image.shape[:2]) if whole else input_size(image.shape, det.imgsz, det.min_scale)
        boxes = det.run(image, size, min(conf, det.conf))
        return boxes.select(boxes.conf >= conf)

    def _regions(self, image: Image) -> list[BoxT]:
        boxes = self._stage1(image, self.settings.roi_conf, whole=True)
        return regions(boxes, image.shape, self.settings.roi_margin)

    def _views(self, image: Image) -> Iterator[tuple[Affine, Image]]:
        """Every turned and scaled view of every region of interest, and of the whole
        photo at the ``whole_scales``."""
        h, w = image.shape[:2]
        whole = [((0.0, 0.0, float(w), float(h)), s) for s in self.settings.whole_scales]
        parts = [(r, s) for r in self._regions(image) for s in self.settings.scales]
        for (x1, y1, x2, y2), scale in whole + parts:
            centre = ((x1 + x2) / 2, (y1 + y2) / 2)
            rw, rh = max(x2 - x1, MIN_VIEW / scale), max(y2 - y1, MIN_VIEW / scale)
            for angle in self.settings.angles:
                size = turned_size(rw, rh, angle, scale)
                m = view_transform(centre, angle, scale, size)
                view = cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                yield m, np.asarray(view, np.uint8)

    def _sweep(self, image: Image) -> _Sweep:
        found = _Sweep()
        for m, view in self._views(image):
            boxes = self._stage1(view, self.settings.sweep_conf)
            chip_idx = [
                k
                for k in range(len(boxes))
                if int(boxes.cls[k]) in self._chips and boxes.conf[k] >= self.settings.extra_conf
            ]
            counts = self._count(view, [tuple(boxes.xyxy[k]) for k in chip_idx])
            for k in range(len(boxes)):
                box: BoxT = tuple(float(v) for v in boxes.xyxy[k])  # type: ignore[assignment]
                cand = Candidate(back_to_photo(m, box), float(boxes.conf[k]), int(boxes.cls[k]), m, box)
                if cand.cls == self._card and upright_card(box, self.settings):
                    found.cards.append(cand)
                elif cand.cls == self._back and upright_card(box, self.settings):
                    found.backs.append(cand)
            for k, count in zip(chip_idx, counts, strict=True):
                box = tuple(float(v) for v in boxes.xyxy[k])  # type: ignore[assignment]
                cand = Candidate(back_to_photo(m, box), float(boxes.conf[k]), int(boxes.cls[k]), m, box)
                found.chips.append((cand, count))
        return found

    def _find(self, image: Image, finder: CardFinder) -> _Sweep:
        """Candidates from the card finder, in two runs over the photo: each card's four
        corners give the view in which it stands upright (the affine map that fits them
        best), at the photo's scale; the two runs' outlines of one card are merged."""
        found = _Sweep()
        s = self.settings
        outlines = finder.find(image, s.finder_size, s.finder_conf, s.finder_iou)
        for quad, box, conf, k in zip(
            outlines.quads, outlines.boxes, outlines.conf, outlines.cls, strict=True
        ):
            name = finder.names[int(k)]
            if name in self._chip_class:
                b = bounds(box_corners(tuple(box)), image.shape)
                found.chips.append(
                    (Candidate(box_corners(b), float(conf), self._chip_class[name], _IDENTITY, b), None)
                )
                continue
            if name not in ("card", "face_down"):
                continue
            m, size = upright_map(quad)
            if m is None:
                continue
            cls = self._card if name == "card" else self._back
            cand = Candidate(hull(quad), float(conf), cls, m, (0.0, 0.0, *size))
            (found.cards if name == "card" else found.backs).append(cand)
        found.cards = merge(found.cards, s.finder_merge_iou, s.max_candidates)
        found.backs = merge(found.backs, s.finder_merge_iou, len(found.backs))
        return found

    def _count(self, view: Image, boxes: list[tuple[float, ...]]) -> list[int | None]:
        reader = self.zones.chip_reader
        if reader is None or not boxes:
            return [None] * len(boxes)
        p = reader.read(view, boxes)["count"]
        return [int(k) if k > 0 else None for k in p.argmax(1)]

    def _read(self, image: Image, candidates: list[Candidate], turns: tuple[float, ...]) -> list[Card]:
        """Each candidate card read in patches where it stands upright at zone-crop size,
        turned by each of ``turns`` (a little each way: the sweep's angles are coarse; and
        half round, for the finder's cards); the surest read counts."""
        cards: list[Card] = []
        for c in candidates:
            _, surest = self._turned_reads(image, c, turns)
            if surest is None:
                continue
            m, best = self._refit(image, *surest)
            cards.append(Card(best.card, bounds(back_to_photo(m, best.box), image.shape), best.confidence))
        # one card read twice (from two views) counts once, as do boxes that nearly coincide;
        # the bars for reporting are applied once, last (an unsure card only ever yields to surer ones)
        cards = suppress_duplicates(cards, same_card_iou=SAME_CARD_IOU)
        return reported(without_parts(cards, self._bars), self._bars)

    def _voted(
        self, image: Image, candidates: list[Candidate], min_votes: float
    ) -> tuple[list[Card], list[Candidate]]:
        """Each candidate card read as in :meth:`_read`: in patches turned by each of
        ``finder_turns``, and again in a patch fitted to its surest read where that is off
        its place. Every card read in them (the patch's own, and those lying wholly inside
        it) votes, and the places voted for surely are the cards
        (:func:`~assistant.detect.photo_votes.named_by_vote`). Also the candidates whose
        patches show a face-down card (:meth:`_shows_a_back`), as backs."""
        s = self.settings
        w, h = s.patch
        reads: list[PatchRead] = []
        numbers = itertools.count()

        def vote(m: Affine, cards: list[Card]) -> None:
            number = next(numbers)
            for card in cards:
                x1, y1, x2, y2 = card.box
                inside = min(x1, y1, w - x2, h - y2) > s.vote_margin
                if inside or box_iou(card.box, self._expected) >= s.patch_iou:
                    box = bounds(back_to_photo(m, card.box), image.shape)
                    reads.append(PatchRead(number, Card(card.card, box, card.confidence)))

        backs: list[Candidate] = []
        for c in candidates:
            patches, surest = self._turned_reads(image, c, s.finder_turns)
            for m, cards in patches:
                vote(m, cards)
            if surest is not None and self._off(surest[1]) > s.refit_off:
                m = recentre(surest[0], surest[1].box, s.patch)
                vote(m, self._patch_cards(image, m))
            if self._shows_a_back(
                image, [p for t, p in zip(s.finder_turns, patches, strict=True) if t in (0, 180)]
            ):
                backs.append(replace(c, cls=self._back))
        cards = named_by_vote(reads, s.vote_place_iou, min_votes)
        return without_parts(cards, self._bars), backs

    def _shows_a_back(self, image: Image, patches: list[tuple[Affine, list[Card]]]) -> bool:
        """Whether a finder's card candidate is a face-down card: each of its ``patches``
        (the upright one and the one turned half round) reads no card in its middle, and
        stage 1 sees a face-down card there, at least ``finder_back_conf`` sure and
        ``finder_back_margin`` surer than a face-up card box in the same place. The
        finder takes most backs of close-ups for face-up cards (validation close-ups:
        11 of 51 backs boxed as backs, 24 as face-up cards only)."""
        s = self.settings
        if s.finder_back_conf is None or not patches:
            return False
        for m, cards in patches:
            if self._own_card(cards) is not None:
                return False
            boxes = self.zones.detector(self._patch(image, m))
            back, card = (self._in_middle(boxes, k) for k in (self._back, self._card))
            if back < s.finder_back_conf or back < card + s.finder_back_margin:
                return False
        return True

    def _turned_reads(
        self, image: Image, c: Candidate, turns: tuple[float, ...]
    ) -> tuple[list[tuple[Affine, list[Card]]], tuple[Affine, Card] | None]:
        """The cards read in each of the candidate's patches (upright at zone-crop size,
        turned by each of ``turns``), and the surest of the patches' own cards with its
        patch's map (None where no patch reads a card in its middle)."""
        m0 = patch_transform(c, self.settings.patch)
        patches: list[tuple[Affine, list[Card]]] = []
        surest: tuple[Affine, Card] | None = None
        for angle in turns:
            m = turn(m0, angle, self.settings.patch)
            cards = self._patch_cards(image, m)
            patches.append((m, cards))
            own = self._own_card(cards)
            if own is not None and (surest is None or own.confidence > surest[1].confidence):
                surest = (m, own)
        return patches, surest

    def _in_middle(self, boxes: Boxes, cls: int) -> float:
        """The confidence of the surest stage-1 box of class ``cls`` on a patch's own card
        (overlapping its place by ``patch_iou``); 0 where none."""
        return max(
            (
                float(conf)
                for box, conf, k in zip(boxes.xyxy, boxes.conf, boxes.cls, strict=True)
                if int(k) == cls
                and box_iou(tuple(map(float, box)), self._expected) >= self.settings.patch_iou
            ),
            default=0.0,
        )

    def _off(self, card: Card) -> float:
        """How far a card read in a patch lies off the patch's own card, as a share of a
        card's size (in size or place)."""
        w, h = self.settings.patch
        x1, y1, x2, y2 = card.box
        return max(
            abs((x2 - x1) / CARD_W - 1),
            abs((y2 - y1) / CARD_H - 1),
            abs((x1 + x2) - w) / 2 / CARD_W,
            abs((y1 + y2) - h) / 2 / CARD_H,
        )

    def _refit(self, image: Image, m: Affine, card: Card) -> tuple[Affine, Card]:
        """Where a card read in a patch is off its place (the sweep's box was too big, too
        small or shifted), it is read again in a patch fitted to the box read; the card
        keeps the new box when it reads the same there."""
        if self._off(card) <= self.settings.refit_off:
            return m, card
        again = self._read_patch(image, recentre(m, card.box, self.settings.patch))
        if again is None or again[1].card != card.card:
            return m, card
        return again[0], Card(card.card, again[1].box, max(card.confidence, again[1].confidence))

    def _read_patch(self, image: Image, m: Affine) -> tuple[Affine, Card] | None:
        """The card read in the middle of the patch that ``m`` warps from ``image``."""
        own = self._own_card(self._patch_cards(image, m))
        return None if own is None else (m, own)

    def _own_card(self, cards: list[Card]) -> Card | None:
        """Of the cards read in a patch, the one where the patch's own card lies (the best
        fit of overlap and confidence, from ``patch_iou`` on)."""
        fits = [(box_iou(k.box, self._expected), k) for k in cards]
        fits = [(iou, k) for iou, k in fits if iou >= self.settings.patch_iou]
        return max(fits, key=lambda f: f[0] * f[1].confidence)[1] if fits else None

    def _patch(self, image: Image, m: Affine) -> Image:
        """The patch that ``m`` warps from ``image`` (``patch`` pixels, the photo's edge
        repeated beyond it)."""
        size = self.settings.patch
        patch = cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(patch, np.uint8)

    def _patch_cards(self, image: Image, m: Affine) -> list[Card]:
        """The cards the zone detector reads in the patch that ``m`` warps from ``image``,
        in patch pixels."""
        return self.zones.detect(self._patch(image, m), reread=False).cards

    def _at_card_scale(
        self, candidates: list[Candidate], scale: float | None, conf: float
    ) -> list[Candidate]:
        """The ``candidates`` from confidence ``conf`` on, found in views whose scale lies
        within ``extra_scale`` of ``scale`` (the one showing the photo's read cards at
        zone-crop size); none where no card was read (``scale`` None)."""
        if scale is None:
            return []
        lo, hi = self.settings.extra_scale
        return [c for c in candidates if c.conf >= conf and lo <= view_scale(c.view) / scale <= hi]

    def _backs(self, image: Image, backs: list[Candidate], cards: list[Card]) -> list[BoxT]:
        kept = merge(backs, self.settings.merge_iou, self.settings.max_candidates)
        out = []
        for c in kept:
            box = bounds(c.quad, image.shape)
            if all(inside_share(box, k.box) < self.settings.back_on_card for k in cards):
                out.append((box, c.conf))
        return [
            box for box, _ in without_inner(out, lambda b: b[0], lambda b: b[1], self.settings.extra_inside)
        ]

    def _chip_stacks(
        self,
        image: Image,
        chips: list[tuple[Candidate, int | None]],
        scale: float | None,
        cards: list[BoxT],
        conf: float,
    ) -> list[ChipStack]:
        """The chip stacks found at the read cards' scale from confidence ``conf`` on, less
        those lying on a card, face up or down (``chips_on_card``: a pip, a back's pattern)
        or inside a surer stack."""
        count_of = {id(c): n for c, n in chips}
        near = self._at_card_scale([c for c, _ in chips], scale, conf)
        kept = merge(near, self.settings.merge_iou, self.settings.max_candidates)
        stacks = [
            ChipStack(self._chips[c.cls], count_of[id(c)], bounds(c.quad, image.shape), c.conf) for c in kept
        ]
        stacks = [
            s for s in stacks if all(inside_share(s.box, c) < self.settings.chips_on_card for c in cards)
        ]
        return without_inner(stacks, lambda s: s.box, lambda s: s.confidence, self.settings.extra_inside)


def hull(quad: Quad) -> Quad:
    """The convex outline of four corners (a finder's corners can cross where it is unsure)."""
    pts = np.asarray(cv2.convexHull(quad.astype(np.float32)), np.float64).reshape(-1, 2)
    return pts if len(pts) >= 3 else quad


def upright_map(quad: Quad) -> tuple[Affine | None, tuple[float, float]]:
    """The affine map that best takes a card's corners (top-left, top-right, bottom-right,
    bottom-left) to an upright card at the photo's scale, and that card's size (w, h);
    None for corners that make no card (a side under a pixel long)."""
    sides = np.linalg.norm(np.roll(quad, -1, 0) - quad, axis=1)
    w, h = float(sides[0] + sides[2]) / 2, float(sides[1] + sides[3]) / 2
    if min(w, h) < 1.0:
        return None, (w, h)
    upright = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])
    src = np.hstack([quad, np.ones((4, 1))])
    m, *_ = np.linalg.lstsq(src, upright, rcond=None)
    return np.asarray(m.T, np.float64), (w, h)


def view_scale(m: Affine) -> float:
    """View pixels per photo pixel of the view that ``m`` maps the photo to."""
    return float(np.sqrt(abs(np.linalg.det(m[:, :2]))))


def card_view_scale(cards: list[Card], candidates: list[Candidate]) -> float | None:
    """The view scale that shows the photo's read ``cards`` at zone-crop size: the median,
    over the cards, of the scale of the view where the surest candidate holding the
    card's centre was found (None: no card read).

    >>> near = Candidate(box_corners((0.0, 0.0, 100.0, 140.0)), 0.9, 0, np.eye(2, 3) * 0.6, (0, 0, 60, 84))
    >>> card_view_scale([Card("Kc", (10.0, 10.0, 90.0, 130.0), 0.8)], [near])
    0.6
    >>> card_view_scale([], [near]) is None
    True
    """
    scales = []
    for card in cards:
        centre = ((card.box[0] + card.box[2]) / 2, (card.box[1] + card.box[3]) / 2)
        holding = [
            c for c in candidates if cv2.pointPolygonTest(c.quad.astype(np.float32), centre, False) >= 0
        ]
        if holding:
            scales.append(view_scale(max(holding, key=lambda c: c.conf).view))
    return float(np.median(scales)) if scales else None


def without_inner(
    items: list[T], box: Callable[[T], BoxT], conf: Callable[[T], float], share: float
) -> list[T]:
    """``items`` less those whose box lies at least ``share`` inside the box of one at least
    as sure (a part of a face-down card, or of a stack, seen at a bigger scale).

    >>> big, part, apart = (0.0, 0.0, 50.0, 60.0), (10.0, 10.0, 40.0, 40.0), (100.0, 0.0, 150.0, 60.0)
    >>> without_inner([(big, 0.9), (part, 0.6), (apart, 0.5)], lambda s: s[0], lambda s: s[1], 0.6)
    [((0.0, 0.0, 50.0, 60.0), 0.9), ((100.0, 0.0, 150.0, 60.0), 0.5)]
    """
    return [
        item
        for item in items
        if not any(
            other is not item and conf(other) >= conf(item) and inside_share(box(item), box(other)) >= share
            for other in items
        )
    ]


def long_side(box: BoxT) -> float:
    return max(box[2] - box[0], box[3] - box[1])


def without_parts(cards: list[Card], settings: PhotoSettings) -> list[Card]:
    """``cards`` less those that are part of a bigger card read more surely: in a close-up a
    pip, an index or a court picture, enlarged to zone size, can read as a card of its own.

    >>> big = Card("9h", (100.0, 100.0, 400.0, 520.0), 0.9)
    >>> pip = Card("Ah", (150.0, 150.0, 230.0, 260.0), 0.5)
    >>> [c.card for c in without_parts([big, pip], PhotoSettings())]
    ['9h']
    """
    return [
        card
        for card in cards
        if not any(
            other.confidence >= card.confidence
            and long_side(other.box) >= settings.part_size * long_side(card.box)
            and inside_share(card.box, other.box) >= settings.part_inside
            for other in cards
            if other is not card
        )
    ]


def reported(cards: list[Card], settings: PhotoSettings) -> list[Card]:
    """The cards sure enough to report: a big card needs ``sure_confidence``, others
    ``min_confidence`` (a small card is read from an enlarged, blurred patch, where right
    readings are often unsure too)."""
    return [
        c
        for c in cards
        if c.confidence
        >= (settings.sure_confidence if long_side(c.box) >= settings.sure_size else settings.min_confidence)
    ]


def enlarged(d: Detection, k: float) -> Detection:
    """``d`` with every box scaled by ``k`` (from a shrunk copy back to the photo)."""

    def grow(b: BoxT) -> BoxT:
        return (b[0] * k, b[1] * k, b[2] * k, b[3] * k)

    return Detection(
        d.image,
        [Card(c.card, grow(c.box), c.confidence) for c in d.cards],
        [grow(b) for b in d.face_down],
        [ChipStack(s.colour, s.count, grow(s.box), s.confidence) for s in d.chips],
    )
