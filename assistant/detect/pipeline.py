"""The whole detector: image in, cards (rank and suit), face-down cards and chips out.

``CardDetector.load()`` opens the shipped models in ``models/``:
``detector.onnx`` (stage 1), ``index_reader.onnx`` (rank and suit),
``chip_reader.onnx`` (chips in a stack, 0 meaning unknown) and, for upright zone crops,
``strip_reader.onnx`` (rank and suit from a card's left strip, index and pip column) and
``face_reader.onnx`` (rank and suit from its whole face where no other card covers it).
``backend="ultralytics"`` runs stage 1 from ``detector.pt`` instead.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.backends import (
    Backend,
    Boxes,
    OnnxDetector,
    UltralyticsDetector,
    box_iou,
    inside_share,
)
from assistant.detect.corners import (
    card_quad,
    face_share,
    index_boxes,
    upright_index_boxes,
    upright_index_candidates,
)
from assistant.detect.grouping import (
    Names,
    ReadCard,
    combined,
    group_cards,
    index_corners,
    index_owners,
    likeliest_names,
    read_card,
)
from assistant.detect.labels import chip_colour
from assistant.detect.reader_trust import ReaderTrust
from assistant.detect.readers import CropViews, OnnxReader, StripViews

IndexBoxes = npt.NDArray[np.float32]
Reading = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]  # rank and suit probabilities
MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
DETECTOR_ONNX = "detector.onnx"
DETECTOR_PT = "detector.pt"
INDEX_READER = "index_reader.onnx"
#: A second index reader (32/64/128 channels, trained from scratch apart from the first):
#: where the folder holds one, every index is read by both and each head's probabilities
#: averaged (stop 53, models/README.md). Deck lessons tune and read the first alone.
INDEX_READER_WIDE = "index_reader_wide.onnx"
CHIP_READER = "chip_reader.onnx"
STACK_COUNTER = "stack_counter.onnx"  # chips in a stack from its side view (a calibrated camera)
#: Stage 1 fine-tuned on bet and pot zones cut from the camera's frame: the stack counter's
#: finder when a calibration is known (:mod:`assistant.detect.stack_finder`).
STACK_FINDER_ONNX = "stack_finder.onnx"
#: A YOLO pose model of whole photos: each card's box and four corners, at any angle and
#: size (:mod:`assistant.detect.card_finder`); the photo search's candidates where present
CARD_FINDER_ONNX = "card_finder.onnx"
STRIP_READER = "strip_reader.onnx"  # upright zone crops: rank and suit from a card's left strip
#: upright zone crops: rank and suit from a card's whole face (a strip 72 mm wide), read
#: beside the strip when the model folder holds one
FACE_READER = "face_reader.onnx"
#: upright zone crops: whether a card box's strip shows a card lying face up or its back,
#: asked of the card boxes whose index stage 1 did not find, when the folder holds one
BACK_READER = "back_reader.onnx"


@dataclass(frozen=True)
class StripWeight:
    """How much a strip reading counts beside one corner-index reading, for its rank and
    for its suit: its rank and suit probabilities are raised to these powers, then
    multiply into the card's reading (1: as much as one index reading).

    >>> StripWeight.both(0.2)
    StripWeight(rank=0.2, suit=0.2)
    """

    rank: float
    suit: float

    @classmethod
    def both(cls, weight: float) -> StripWeight:
        """The same weight for the rank and the suit."""
        return cls(weight, weight)


#: How much the strip reader's say counts beside the corner indices' (upright zone crops).
#: Since stop 22 the reader (trained on the training decks' strips and 80,000 strips
#: drawn in system fonts; validation strips: rank 0.65, suit 0.93 right) counted as much
#: as one index reading. Chosen on the three validation sets together (zones_a val,
#: zones_sharp_val, zones_deck_val; F1 0.825 at 0.5, 0.835 at 0.7, 0.836 at 0.85, 0.838
#: at 1, 0.834 at 1.3). Stop 21's reader did best at 0.5 on zones_a val alone (0.814),
#: stop 20's at 0.2 (0.804). Since stop 28 the strip is read in several cuts
#: (``ZONE_STRIP_VIEWS``), whose average is less peaked than one reading: then 1.5 did
#: best (nine cuts: 0.866 at 0.7, 0.878 at 1, 0.880 at 1.5, 0.877 at 2; one cut at 1.5:
#: 0.864). Since stop 29 the rank and the suit are weighed apart, as the strip reads
#: suits about as well as an index and ranks far worse: rank 1, suit 2 (three cuts:
#: 0.8786 at 1.5 for both; rank 1 and suit 1.5 / 0.8802, 2 / 0.8830, 2.5 / 0.8826; rank
#: 0.85 and 1.2 with suit 2: 0.8812, 0.8828; see models/README.md).
STRIP_WEIGHT = StripWeight(rank=1.0, suit=2.0)
#: In zone crops each card's strip is cut three times, at its box and with the box moved
#: 3 px up and left and 3 px down and right, and the readings averaged (a stage-1 box
#: lies a pixel or two off the card's edge). Chosen on the three validation sets with
#: ``STRIP_WEIGHT`` 1.5 (stop 28, see models/README.md): F1 0.870 -> 0.879; nine cuts
#: gave 0.880 at three times the cost.
ZONE_STRIP_VIEWS = StripViews(shifts=((0.0, 0.0), (-3.0, -3.0), (3.0, 3.0)))
#: How much the face reader's say (``FACE_READER``: the card's strip cut 72 mm wide, so its
#: whole face where no other card covers it, read in the same cuts) counts, multiplied
#: into the strip's reading (stop 30's weight; see models/README.md) ...
FACE_WEIGHT = StripWeight(rank=0.5, suit=0.5)
#: ... for a card box that no other card box covers by more than this share of its area:
#: a face half under the next card of a row shows that card's pips and index too, and
#: the face reader read those worse than the strip does (stop 31).
FACE_MOST_COVERED = 0.1
BACKENDS = ("onnx", "ultralytics")
ZONE_IMGSZ = 320  # stage-1 input for the camera pipeline's 1 mm/px zone crops
#: ... and no smaller a scale than this: stage 1 learnt cards from 280 mm seat card zones
#: seen at 320 px, so a crop that takes in a margin around its zone is enlarged as much.
ZONE_MIN_SCALE = ZONE_IMGSZ / 280.0
#: Zone crops are searched for corner indices once more with stage 1's input shrunk to
#: this share: designs that print a bigger index than the training decks (or thin strokes
#: that read better denser) have theirs found there. Chosen on the validation decks
#: (card-identity F1 0.474 -> 0.619 on their zone crops, 0.388 -> 0.596 on crops from sharp
#: cameras; 0.5, 0.7, 0.75, 0.8 and 1.3 did less, and a third pass at 0.45 little).
ZONE_INDEX_RESCAN = (0.6,)
#: ... where an index box found so is kept only when it could be an index: on a 63 x 88 mm
#: card no design prints one wider or taller than this (mm, so pixels in a zone crop; the
#: largest of the 40 designs is 13 x 31 mm). Bigger boxes there are pips or pictures.
ZONE_MAX_INDEX_PX = (20.0, 36.0)
#: Stage-1 confidence on zone crops: a count of face-down cards must not take in the
#: faint second guesses that a photo's search for every card can afford to keep.
ZONE_CONF = 0.3
#: ... but corner indices are kept from this confidence on when the reader has an "index"
#: head to tell a faint printed index from a pip or a picture (see STAGE1_MIN_INDEX).
ZONE_INDEX_CONF = 0.15
#: ... and face-up card boxes from this confidence on too: their reading is checked as an
#: index's is (an index found in a corner, card-face white there, a sure reading), so a
#: card that stage 1 is unsure of (designs with big indices seen by sharp cameras, half
#: hidden by the next card) is still read. Chosen on the three validation sets (stop 25):
#: F1 0.8636 at ZONE_CONF (0.3), 0.8665 at 0.25, 0.8688 at 0.2, **0.8705** at 0.15.
ZONE_CARD_CONF = 0.15
#: In a 1 mm/px zone crop a card's box (its whole outline, covered parts included) is
#: about 63 x 88 px; a box of a card or card back much smaller than this that does not
#: touch the crop's edge is a sliver, not a card.
ZONE_MIN_CARD_PX = (40.0, 60.0)
#: In zone crops every corner index is read in these views, the readings averaged: the
#: crop 1.05, 1.15 (as trained) and 1.3 times the box, each moved by up to 0.04 of the
#: box (a pixel) each way; but an index read at least 0.9 sure in the trained view alone
#: keeps that reading. Chosen on the validation decks (see models/README.md).
ZONE_INDEX_VIEWS = CropViews(
    scales=(1.05, 1.15, 1.3),
    shifts=tuple((dx, dy) for dx in (-0.04, 0.0, 0.04) for dy in (-0.04, 0.0, 0.04)),
    enough=0.9,
)
#: In an upright zone crop, a card read from its stage-1 indices less surely than this is
#: read again with its searched corners (:meth:`CardDetector._with_searched_corners`).
REREAD_BELOW = 0.8
DEFAULT_CONF = 0.1  # stage-1 confidence threshold (chosen on held-out F1, see models/README.md)
INDEX_CONTAINED = 0.6  # an index box this much inside a surer one is the same index again
DUPLICATE_IOU = 0.8
#: A card back where a card was read face up, overlapping it more than this, is that card
#: (a court card's picture taken for a back); a covered back in a row overlaps far less.
FACE_UP_WINS_IOU = 0.5  # read cards whose boxes overlap more than this are one card
GEOMETRY_DUPLICATE_IOU = 0.3
#: ... unless it is read at least this surely: then it yields as a card read from its
#: indices does (``DUPLICATE_IOU``). In a row of upright cards the next card's box
#: overlaps a whole card's by about half, so a card whose indices stage 1 missed but whose
#: corners the search read surely was lost beside its read neighbour (stop 31, chosen on
#: the three validation sets: F1 0.8830 at none, 0.8852 at 0.5, 0.8860 at 0.6, 0.8871 at
#: 0.7, 0.8857 at 0.8; upright zone crops only).
GEOMETRY_SURE_READING = 0.7
GEOMETRY_MIN_READING = 0.3  # a corner read by geometry alone must be this sure
#: In an upright zone crop, a card box whose index stage 1 missed is read where its
#: top-left index lies, when its corner shows this much card-face white (a back taken
#: for a card shows next to none; readers without an "index" head only) and the
#: reading is this sure.
UPRIGHT_MIN_FACE = 0.2
#: ... and with a reader that has an "index" head, when it shows at least this much: a
#: back (a red or patterned one, a picture) whose corner the head takes for an index is
#: then not read as a card (stop 23, chosen on the validation sets).
CHECKED_MIN_FACE = 0.1
UPRIGHT_MIN_READING = 0.5
READING_FLOOR = 1e-12  # reading_at: a name's probability floor (its likelihoods stay apart down there)
UPRIGHT_MIN_INDEX = 0.5  # the reader's "index" head: is there a corner index there at all
#: ... where the sizes and places searched are each read in the reader's trained view only
SEARCH_VIEWS = CropViews()
#: In a zone crop, a stage-1 index box that a reader with an "index" head gives less
#: than this is no index (a pip, a bit of a court picture): it is left out before grouping.
STAGE1_MIN_INDEX = 0.5
#: In an upright zone crop, an index that belongs to no card box (a card of its own, see
#: :func:`~assistant.detect.grouping.group_cards`) counts when it is read this surely:
#: most that are read less surely are a pip or a court picture's ornament, but a card of
#: a row whose box stage 1 missed shows only its index (the held-out video's queen of
#: spades at the showdown, read 0.54 sure), so not 0.7, the validation sets' best (stop 23).
LONE_INDEX_MIN_READING = 0.5
#: ... where two index readers are read together (``INDEX_READER_WIDE``): their averaged
#: probabilities are less peaked where the two disagree, and the held-out video's queen of
#: spades, covered by a back box, reads 0.48 sure from its one loose index (stop 53).
LONE_INDEX_MIN_READING_TOGETHER = 0.45
#: In an upright zone crop, a card box whose corners show no index (stage 1 found none,
#: and the search finds none either: the ``index`` head puts every place under
#: ``UPRIGHT_MIN_INDEX``) is read from its strip alone when that reading, weighed by the
#: strip weight, is this sure and the corner shows card-face white (``CHECKED_MIN_FACE``):
#: a card of a row whose corner index the next card's shadow or a faint print hides still
#: shows its pip column. Chosen on the three validation sets (stop 25): of 83 such cards
#: lost before, 29 had a strip read right at least 0.95 sure and 3 wrong; F1 +0.0036 at
#: 0.8 to 0.98 (+0.0030 at 0.7, +0.0018 at 0.5).
STRIP_ALONE_MIN_READING = 0.8
#: In an upright zone crop, a card box whose index stage 1 did not find is a back, not a
#: card to read by geometry, when the back reader (``BACK_READER``) gives its strip less
#: than this chance of showing a card face up: stage 1 and the index reader's ``index``
#: head take some backs no training deck prints (a picture in a white border) for faces.
#: Such a box is reported face down. Chosen on the three validation sets (stop 51): card
#: F1 0.8905 -> 0.8920 / 0.8922 / 0.8926 at 0.3 / 0.5 / 0.7, face-down cards found (F1)
#: 0.8587 -> 0.8947 / 0.9023 / 0.9106.
BACK_MAX_FACE = 0.7
#: In an upright zone crop, a box taken for a card back whose top-left corner lies this
#: close (in index heights) to a read index's top-left is that face-up card: backs have
#: no index (a court card's picture can pass for a back's pattern).
BACK_INDEX_REACH = 0.6


def index_reader(
    models: Path = MODELS_DIR,
    threads: int = 0,
    views: CropViews | None = None,
    *,
    with_wide_reader: bool = True,
) -> OnnxReader:
    """The folder's index reader, read together with its second index reader where the
    folder holds one (:data:`INDEX_READER_WIDE`) and ``with_wide_reader``."""
    wide = models / INDEX_READER_WIDE
    also = (wide,) if with_wide_reader and wide.is_file() else ()
    return OnnxReader(models / INDEX_READER, threads, views, also=also)


class ModelMissingError(FileNotFoundError):
    """A model file the detector needs is not there."""


class ImageError(ValueError):
    """An image file is missing or cannot be decoded."""


@dataclass
class Card:
    card: str
    box: tuple[float, float, float, float]
    confidence: float
    by_geometry: bool = False  # read at corners found by geometry, not by stage 1
    index: tuple[float, float, float, float] | None = None  # its leftmost corner index read
    names: Names = ()  # its likeliest names and their probabilities (upright zone crops)


@dataclass
class ChipStack:
    colour: str
    count: int | None  # None: seen from straight above, the count is a guess
    box: tuple[float, float, float, float]
    confidence: float


@dataclass
class Detection:
    """Everything found in one image, in the image's pixel coordinates."""

    image: str
    cards: list[Card] = field(default_factory=list)
    face_down: list[tuple[float, float, float, float]] = field(default_factory=list)
    chips: list[ChipStack] = field(default_factory=list)

    def to_json(self, *, with_index: bool = False, with_names: bool = False) -> dict[str, Any]:
        """The ``dealer-assistant detect --json`` contract. ``with_index`` adds each card's
        leftmost corner index read (``"index": box``), which the camera pipeline uses to
        tell where a card lies in a row, and ``with_names`` its likeliest names (``"names":
        [[name, probability], ...]``), which it uses to keep two zones from holding one
        card (:mod:`assistant.pipeline.table_names`); the command's output leaves both out."""
        return {
            "image": self.image,
            "cards": [
                {"card": c.card, "box": _round(c.box), "confidence": round(c.confidence, 4)}
                | ({"index": _round(c.index)} if with_index and c.index is not None else {})
                | ({"names": [[n, round(p, 6)] for n, p in c.names]} if with_names and c.names else {})
                for c in self.cards
            ],
            "face_down": [{"box": _round(b)} for b in self.face_down],
            "chips": [{"colour": s.colour, "count": s.count, "box": _round(s.box)} for s in self.chips],
        }


def _tempered(probs: npt.NDArray[np.float32], weight: float) -> npt.NDArray[np.float32]:
    """``probs`` (one reading, or one per row) raised to ``weight`` and summed to one
    again: multiplied into another reading, it counts as much as ``weight`` of one (a
    product of experts).

    >>> [round(float(v), 3) for v in _tempered(np.array([0.8, 0.2], np.float32), 0.5)]
    [0.667, 0.333]
    """
    p = np.power(probs.astype(np.float64), weight)
    tempered: npt.NDArray[np.float32] = (p / p.sum(-1, keepdims=True)).astype(np.float32)
    return tempered


def _powered(reading: Reading, rank: float, suit: float) -> Reading:
    """One (rank, suit) reading raised to ``rank`` and ``suit`` (``_tempered``); a head at
    power 1 is returned as it is."""
    return (
        reading[0] if rank == 1.0 else _tempered(reading[0], rank),
        reading[1] if suit == 1.0 else _tempered(reading[1], suit),
    )


def weighed_strips(
    strips: dict[str, npt.NDArray[np.float32]],
    faces: dict[str, npt.NDArray[np.float32]] | None,
    free: npt.NDArray[np.bool_],
    strip_weight: StripWeight,
    face_weight: StripWeight | None,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """(rank, suit) probabilities of each card box from its strip reading (``strips``, a
    row per box) raised to ``strip_weight``, times its face reading raised to
    ``face_weight`` where ``free`` (``faces`` holds a row per free box, in order; None or
    ``face_weight`` None: the strip alone), summed to one again. The strip and face
    readings' say beside a card's corner indices."""
    rank, suit = _tempered(strips["rank"], strip_weight.rank), _tempered(strips["suit"], strip_weight.suit)
    if faces is not None and face_weight is not None and free.any():
        # the product summed to one again (``_tempered`` at weight 1)
        rank[free] = _tempered(rank[free] * _tempered(faces["rank"], face_weight.rank), 1.0)
        suit[free] = _tempered(suit[free] * _tempered(faces["suit"], face_weight.suit), 1.0)
    return rank, suit


def uncovered(boxes: npt.NDArray[np.float32], most: float) -> npt.NDArray[np.bool_]:
    """Which of ``boxes`` (x1, y1, x2, y2 rows) no other box covers by more than ``most``
    of its area.

    >>> uncovered(np.array([[0, 0, 60, 90], [40, 0, 100, 90], [200, 0, 260, 90]], np.float32), 0.1)
    array([False, False,  True])
    """
    free = np.ones(len(boxes), bool)
    for k in range(len(boxes)):
        free[k] = all(inside_share(boxes[k], boxes[j]) <= most for j in range(len(boxes)) if j != k)
    return free


def _read_all(readings: list[Reading]) -> tuple[str, float, Names]:
    """One card from several (rank, suit) readings of it: their probabilities multiply.
    Its name, how sure it is, and its likeliest names (the first its own)."""
    names = likeliest_names(np.stack([r for r, _ in readings]), np.stack([s for _, s in readings]))
    return names[0][0], names[0][1], names


def _round(box: tuple[float, ...]) -> list[float]:
    return [round(float(v), 1) for v in box]


def read_image(path: Path) -> npt.NDArray[np.uint8]:
    """The image at ``path`` as BGR pixels, turned as its EXIF orientation says (as a photo
    viewer shows it); :class:`ImageError` says in one line why a path gives none."""
    if path.is_dir():
        raise ImageError(f"{path}: a folder, not an image file")
    if not path.is_file():
        raise ImageError(f"{path}: no such file")
    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except OSError as error:
        raise ImageError(f"{path}: cannot be read ({error.strerror or error})") from error
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ImageError(f"{path}: not a readable image")
    return np.asarray(image, dtype=np.uint8)


def suppress_duplicates(
    cards: list[Card], same_card_iou: float | None = None, sure_geometry: float | None = None
) -> list[Card]:
    """One card per place: of cards whose boxes mostly coincide, the surest stays.

    A card read by geometry alone yields to any surer card it overlaps by a third; cards
    read from detected indices only to one they nearly cover (a fanned hand's boxes
    overlap by half and more, and each of its cards is real). With ``sure_geometry`` a
    card read by geometry at least that surely yields as one read from its indices. With
    ``same_card_iou`` a card also yields to a surer one of the same name that it overlaps
    that much (one card read twice in a photo, from two views).

    >>> ace = Card("Ah", (0.0, 0.0, 63.0, 88.0), 0.9)
    >>> king = Card("Kh", (30.0, 0.0, 93.0, 88.0), 0.8, by_geometry=True)
    >>> [c.card for c in suppress_duplicates([ace, king])]
    ['Ah']
    >>> [c.card for c in suppress_duplicates([ace, king], sure_geometry=0.7)]
    ['Ah', 'Kh']
    """
    kept: list[Card] = []
    for card in sorted(cards, key=lambda c: -c.confidence):
        unsure = sure_geometry is None or card.confidence < sure_geometry
        limit = GEOMETRY_DUPLICATE_IOU if card.by_geometry and unsure else DUPLICATE_IOU
        limits = [same_card_iou if same_card_iou is not None and k.card == card.card else limit for k in kept]
        if all(box_iou(card.box, k.box) < lim for k, lim in zip(kept, limits, strict=True)):
            kept.append(card)
    return kept


def one_of_each(cards: list[Card]) -> list[Card]:
    """The surest card of each name: a deck holds every card once, so in one zone of the
    table (a seat's cards) a card read twice is one card seen twice (stage 1 boxed it
    twice, or a sliver of it) or a misreading of another (stop 23). (Stop 59 tried giving
    the less sure card its next name instead: on the validation designs nearly every such
    card lay on the card that kept the name, boxed twice; ``models/README.md``.)"""
    kept: dict[str, Card] = {}
    for card in sorted(cards, key=lambda c: -c.confidence):
        kept.setdefault(card.card, card)
    return [c for c in cards if kept[c.card] is c]


def named_apart(detections: Sequence[Detection]) -> list[Detection]:
    """The detections of one table frame's zones with no name on two cards: where two zones
    read one name, the card whose readings give it up at the least cost takes its next
    likeliest name, as the camera pipeline names them
    (:func:`assistant.pipeline.table_names.name_table`; stop 59)."""
    from assistant.pipeline.table_names import name_table

    named = name_table({str(k): d.to_json(with_names=True) for k, d in enumerate(detections)})
    out: list[Detection] = []
    for k, found in enumerate(detections):
        items = named[str(k)]["cards"]
        cards = [
            c if item["card"] == c.card else replace(c, card=item["card"], confidence=item["confidence"])
            for c, item in zip(found.cards, items, strict=True)
        ]
        out.append(replace(found, cards=cards))
    return out


def claim_backs(
    cards: list[Card], backs: list[tuple[float, float, float, float]]
) -> list[tuple[float, float, float, float]]:
    """The ``backs`` that are backs: each one whose top-left corner holds a read card's
    top-left index is that card instead, and gives the card its outline when the card
    had only its index for a box. Upright zone crops only.

    >>> jack = Card("Jc", (70.0, 44.5, 80.6, 66.0), 0.95, index=(70.0, 44.5, 80.6, 66.0))
    >>> claim_backs([jack], [(70.1, 42.5, 132.9, 128.5), (101.0, 40.0, 167.0, 130.0)])
    [(101.0, 40.0, 167.0, 130.0)]
    >>> jack.box
    (70.1, 42.5, 132.9, 128.5)
    """
    kept = list(backs)
    for card in cards:
        if card.index is None or not kept:
            continue
        ix, iy, _, iy2 = card.index
        reach = BACK_INDEX_REACH * max(1.0, iy2 - iy)
        near = [b for b in kept if abs(b[0] - ix) <= reach and abs(b[1] - iy) <= reach]
        if not near:
            continue
        back = min(near, key=lambda b: abs(b[0] - ix) + abs(b[1] - iy))
        kept.remove(back)
        if card.box == card.index:
            card.box = back
    return kept


def _plausible(
    boxes: Boxes, classes: set[int], min_size: tuple[float, float], shape: tuple[int, ...]
) -> npt.NDArray[np.bool_]:
    """Which boxes may be what they say: a card box at least ``min_size`` (w, h), or cut by
    the image's edge (a card lying partly outside the zone)."""
    h, w = shape[0], shape[1]
    x1, y1, x2, y2 = boxes.xyxy.T if len(boxes) else (np.zeros(0),) * 4
    edge = (x1 <= 2) | (y1 <= 2) | (x2 >= w - 2) | (y2 >= h - 2)
    big = ((x2 - x1) >= min_size[0]) & ((y2 - y1) >= min_size[1])
    is_card = np.isin(boxes.cls, list(classes))
    return np.asarray(~is_card | big | edge, dtype=bool)


def _surer_index(boxes: Boxes, found: Boxes, index: int) -> Boxes:
    """``boxes`` with the index boxes ``found`` by another pass of stage 1: one whose centre
    lies in an index box already there, or that holds one's centre, is the same index and
    only the surer box of the two is kept.

    >>> old = Boxes(np.array([[0, 0, 10, 20], [40, 0, 50, 20]], np.float32),
    ...             np.array([0.2, 0.9], np.float32), np.array([1, 1]))
    >>> new = Boxes(np.array([[1, 1, 11, 22], [41, 0, 51, 20], [80, 0, 90, 20]], np.float32),
    ...             np.array([0.5, 0.3, 0.4], np.float32), np.array([1, 1, 1]))
    >>> merged = _surer_index(old, new, 1)
    >>> merged.xyxy[:, 0].tolist(), [round(float(c), 1) for c in merged.conf]
    ([40.0, 1.0, 80.0], [0.9, 0.5, 0.4])
    """
    if len(found) == 0:
        return boxes
    mine = np.flatnonzero(boxes.cls == index)
    dropped = np.zeros(len(boxes), dtype=bool)
    added = np.ones(len(found), dtype=bool)
    for k in range(len(found)):
        same = [j for j in mine if _same_place(found.xyxy[k], boxes.xyxy[j])]
        if any(boxes.conf[j] >= found.conf[k] for j in same):
            added[k] = False
        else:
            dropped[same] = True
    return boxes.select(~dropped).plus(found.select(added))


def _same_place(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> bool:
    """Does either box hold the other's centre?"""

    def holds(box: npt.NDArray[np.float32], other: npt.NDArray[np.float32]) -> bool:
        cx, cy = (other[0] + other[2]) / 2, (other[1] + other[3]) / 2
        return bool(box[0] <= cx <= box[2] and box[1] <= cy <= box[3])

    return holds(a, b) or holds(b, a)


class CardDetector:
    def __init__(
        self,
        detector: Backend,
        index_reader: OnnxReader,
        chip_reader: OnnxReader | None = None,
        *,
        strip_reader: OnnxReader | None = None,
        face_reader: OnnxReader | None = None,
        back_reader: OnnxReader | None = None,
        min_card_confidence: float = 0.05,
        upright: bool = False,
        min_card_px: tuple[float, float] | None = None,
        min_conf: float = 0.0,
        min_card_box_conf: float | None = None,
        index_rescan: tuple[float, ...] = (),
        max_index_px: tuple[float, float] | None = None,
    ) -> None:
        self.detector = detector
        # stage 1 is run again at these shares of its input size for corner indices only,
        # and keeps those no bigger than max_index_px (w, h)
        self.index_rescan = index_rescan
        self.max_index_px = max_index_px
        # stage-1 boxes below this are dropped, but for corner indices where the reader has
        # an "index" head to check them (stage 1 then runs with a lower threshold)
        self.min_conf = min_conf
        # ... and face-up card boxes from this one on, when the reader has that head
        # (None: as the other boxes)
        self.min_card_box_conf = min_card_box_conf
        self.min_card_px = min_card_px  # (w, h): smaller card boxes off the edge are dropped
        self.upright = upright  # indices stand upright (rectified zone crops): read them as they are
        self.index_reader = index_reader
        # a reader with an "index" head tells a printed corner index from anything else
        self.checks_indices = "index" in index_reader.heads
        # an index of no card box counts from this reading on (for one reader or two together)
        together = len(index_reader.sessions) > 1
        self.lone_index_min_reading = LONE_INDEX_MIN_READING_TOGETHER if together else LONE_INDEX_MIN_READING
        self.chip_reader = chip_reader
        self.strip_reader = strip_reader  # read where indices stand upright (zone crops)
        self.strip_weight = STRIP_WEIGHT  # the powers its rank and suit probabilities are raised to
        self.strip_views = ZONE_STRIP_VIEWS  # the cuts of each strip that are read and averaged
        # read beside the strip reader, in the same cuts, at face_weight (None: not read)
        self.face_reader = face_reader
        self.face_weight: StripWeight | None = FACE_WEIGHT
        # a session's say of the indices and of the strip (and face) where both read a card,
        # each judged by the other's sure readings (None: as shipped; :meth:`learning_reader_trust`)
        self.trust: ReaderTrust | None = None
        # asked of card boxes with no stage-1 index: a strip it gives under back_max_face
        # of showing a face is a back (None: not asked)
        self.back_reader = back_reader
        self.back_max_face: float | None = BACK_MAX_FACE
        # a card read by geometry this surely yields as one read from its indices (None: never)
        self.sure_geometry: float | None = GEOMETRY_SURE_READING if upright else None
        self.min_card_confidence = min_card_confidence
        names = detector.names
        self._class = {name: i for i, name in enumerate(names)}
        self._chip_colour = {i: chip_colour(n) for i, n in enumerate(names)}

    @classmethod
    def load(
        cls,
        models: Path = MODELS_DIR,
        *,
        backend: str = "onnx",
        imgsz: int = 640,
        conf: float = DEFAULT_CONF,
        threads: int = 0,
        upright: bool = False,
        min_card_px: tuple[float, float] | None = None,
        min_conf: float = 0.0,
        min_card_box_conf: float | None = None,
        min_scale: float | None = None,
        index_rescan: tuple[float, ...] = (),
        max_index_px: tuple[float, float] | None = None,
        index_views: CropViews | None = None,
        with_wide_reader: bool = False,
    ) -> CardDetector:
        """``with_wide_reader``: read every index with the folder's second index reader too
        (:data:`INDEX_READER_WIDE`, where it holds one)."""

        def need(name: str) -> Path:
            path = models / name
            if not path.is_file():
                raise ModelMissingError(f"model file {path} is missing")
            return path

        detector: Backend
        if backend == "onnx":
            detector = OnnxDetector(need(DETECTOR_ONNX), imgsz, conf, threads=threads, min_scale=min_scale)
        elif backend == "ultralytics":
            detector = UltralyticsDetector(need(DETECTOR_PT), imgsz, conf, min_scale=min_scale)
        else:
            raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
        need(INDEX_READER)
        chips, strips, faces = models / CHIP_READER, models / STRIP_READER, models / FACE_READER
        backs = models / BACK_READER
        return cls(
            detector,
            index_reader(models, threads, index_views, with_wide_reader=with_wide_reader),
            OnnxReader(chips, threads) if chips.is_file() else None,
            strip_reader=OnnxReader(strips, threads) if upright and strips.is_file() else None,
            face_reader=OnnxReader(faces, threads) if upright and faces.is_file() else None,
            back_reader=OnnxReader(backs, threads) if upright and backs.is_file() else None,
            upright=upright,
            min_card_px=min_card_px,
            min_conf=min_conf,
            min_card_box_conf=min_card_box_conf,
            index_rescan=index_rescan,
            max_index_px=max_index_px,
        )

    @classmethod
    def for_zones(
        cls,
        models: Path = MODELS_DIR,
        *,
        backend: str = "onnx",
        threads: int = 0,
        with_wide_reader: bool = True,
    ) -> CardDetector:
        """The detector as the camera pipeline runs it, on upright 1 mm/px zone crops, every
        index read by both index readers where the folder holds two (``with_wide_reader``:
        the photo search reads its many patches with the first alone, four times faster)."""
        return cls.load(
            models,
            backend=backend,
            imgsz=ZONE_IMGSZ,
            conf=ZONE_INDEX_CONF,
            threads=threads,
            upright=True,
            min_card_px=ZONE_MIN_CARD_PX,
            min_conf=ZONE_CONF,
            min_card_box_conf=ZONE_CARD_CONF,
            min_scale=ZONE_MIN_SCALE,
            index_rescan=ZONE_INDEX_RESCAN,
            max_index_px=ZONE_MAX_INDEX_PX,
            index_views=ZONE_INDEX_VIEWS,
            with_wide_reader=with_wide_reader,
        )

    def reading_in(
        self, views: CropViews, strip_weight: StripWeight | None = None, strip_views: StripViews | None = None
    ) -> CardDetector:
        """This detector with its index reader reading in ``views`` and, when given, its
        strip readings weighed by ``strip_weight`` and cut in ``strip_views`` (the same
        models)."""
        twin = copy.copy(self)
        twin.index_reader = self.index_reader.in_views(views)
        if strip_weight is not None:
            twin.strip_weight = strip_weight
        if strip_views is not None:
            twin.strip_views = strip_views
        return twin

    def reading_faces_at(self, weight: StripWeight | None) -> CardDetector:
        """This detector with its face reader's say weighed by ``weight`` (None: the face
        reader is not read; the same models)."""
        twin = copy.copy(self)
        twin.face_weight = weight
        return twin

    def judging_backs_below(self, face: float | None) -> CardDetector:
        """This detector taking a card box with no stage-1 index for a back where the back
        reader gives its strip less than ``face`` of showing a face (None: the back reader
        is not asked; the same models)."""
        twin = copy.copy(self)
        twin.back_max_face = face
        return twin

    def trusting_geometry_from(self, sure: float | None) -> CardDetector:
        """This detector letting a card read by geometry at least ``sure`` yield as one
        read from its indices (None: it yields to any surer card it overlaps by a third;
        the same models)."""
        twin = copy.copy(self)
        twin.sure_geometry = sure
        return twin

    def keeping_card_boxes_from(self, conf: float | None) -> CardDetector:
        """This detector keeping stage-1 face-up card boxes from ``conf`` on (None: from
        ``min_conf``, as every other box; the same models)."""
        twin = copy.copy(self)
        twin.min_card_box_conf = conf
        return twin

    def learning_reader_trust(self) -> CardDetector:
        """This detector for one table session (a camera, a replay: one deck, frames in the
        order they come): every card it reads from both its stage-1 indices and its strip
        teaches a fresh :class:`~assistant.detect.reader_trust.ReaderTrust` whether each
        kind's best guess agreed with the other's sure reading, and later cards weigh the
        kind that agrees less by it (never above the shipped weights). Readings then depend
        on the frames read before; the same frames in the same order read the same. The
        same models."""
        twin = copy.copy(self)
        twin.trust = ReaderTrust() if self.upright and self.strip_reader is not None else None
        return twin

    def _weighed(self, indices: list[Reading], strip: Reading | None) -> list[Reading]:
        """One card's readings to multiply: its ``indices``' and its ``strip``'s, each kind
        raised to the power the session's trust gives it where both kinds read the card
        (:meth:`~assistant.detect.reader_trust.ReaderTrust.power`); as they are otherwise."""
        if strip is None:
            return indices
        if self.trust is None or not indices:
            return [*indices, strip]
        index_rank, index_suit = self.trust.power("index", "rank"), self.trust.power("index", "suit")
        strip_rank, strip_suit = self.trust.power("strip", "rank"), self.trust.power("strip", "suit")
        return [
            *(_powered(r, index_rank, index_suit) for r in indices),
            _powered(strip, strip_rank, strip_suit),
        ]

    def _learn_trust(self, read: ReadCard, probs: dict[str, npt.NDArray[np.float32]], strip: Reading) -> None:
        """Teach the session's trust one card read from its stage-1 indices and its strip."""
        if self.trust is None:
            return
        index = {h: combined(probs[h][list(read.indices)]) for h in ("rank", "suit")}
        self.trust.learn(index, {"rank": strip[0], "suit": strip[1]})

    def detect_file(self, path: Path) -> Detection:
        return self.detect(read_image(path), str(path))

    def detect(self, image: npt.NDArray[np.uint8], name: str = "", *, reread: bool = True) -> Detection:
        return self.interpret(image, self.find(image), name, reread=reread)

    def find(self, image: npt.NDArray[np.uint8]) -> Boxes:
        """Stage 1: its boxes at its input size, plus the corner indices found at each
        share of it in ``index_rescan`` no bigger than ``max_index_px``; where both passes
        find one index, the surer box stands for it."""
        boxes = self.detector(image)
        index = self._class.get("index", -1)
        for share in self.index_rescan if index >= 0 else ():
            more = self.detector(image, share)
            keep = more.cls == index
            if self.max_index_px is not None:
                w, h = more.xyxy[:, 2] - more.xyxy[:, 0], more.xyxy[:, 3] - more.xyxy[:, 1]
                keep &= (w <= self.max_index_px[0]) & (h <= self.max_index_px[1])
            boxes = _surer_index(boxes, more.select(keep), index)
        return boxes

    @property
    def classes(self) -> dict[str, int]:
        """Stage 1's class ids by name."""
        return dict(self._class)

    def kept(self, boxes: Boxes) -> Boxes:
        """The stage-1 ``boxes`` that :meth:`interpret` reads: each at least as sure as it
        asks of its class (:meth:`_least_conf`)."""
        if self.min_conf > 0 and len(boxes):
            return boxes.select(boxes.conf >= self._least_conf(boxes.cls))
        return boxes

    def _least_conf(self, cls: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """The stage-1 confidence each box of classes ``cls`` is kept from: ``min_conf``,
        but with a reader whose ``index`` head vets what is read, corner indices whatever
        stage 1 gave them and face-up card boxes from ``min_card_box_conf``."""
        least = np.full(len(cls), self.min_conf, np.float32)
        if self.checks_indices:
            least[cls == self._class.get("index", -1)] = 0.0
            if self.min_card_box_conf is not None:
                least[cls == self._class.get("card", -1)] = self.min_card_box_conf
        return least

    def _strip_readings(
        self, image: npt.NDArray[np.uint8], card_boxes: npt.NDArray[np.float32]
    ) -> dict[int, Reading]:
        """Each card box's strip reading (upright zone crops with a strip reader), its
        rank and suit probabilities raised to ``strip_weight``, times the face reader's
        raised to ``face_weight`` where there is one and no other card box covers the box
        by more than ``FACE_MOST_COVERED`` of it; empty otherwise."""
        if self.strip_reader is None or not self.upright or not len(card_boxes):
            return {}
        strips = self.strip_reader.read_strips(image, list(card_boxes), self.strip_views)
        faces = None
        free = np.zeros(len(card_boxes), bool)
        if self.face_reader is not None and self.face_weight is not None:
            free = uncovered(card_boxes, FACE_MOST_COVERED)
            if free.any():
                faces = self.face_reader.read_strips(image, list(card_boxes[free]), self.strip_views)
        rank, suit = weighed_strips(strips, faces, free, self.strip_weight, self.face_weight)
        return {k: (rank[k], suit[k]) for k in range(len(card_boxes))}

    def _shown_backs(self, image: npt.NDArray[np.uint8], card_boxes: npt.NDArray[np.float32]) -> list[bool]:
        """Which of these card boxes (upright zone crops) show a back by the back reader:
        their strip read under ``back_max_face`` sure of a face; none when it is not asked."""
        if self.back_reader is None or self.back_max_face is None or not self.upright or not len(card_boxes):
            return [False] * len(card_boxes)
        face = self.back_reader.read_strips(image, list(card_boxes))["face"][:, 1]
        return [bool(p < self.back_max_face) for p in face]

    def _read_by_geometry(
        self,
        image: npt.NDArray[np.uint8],
        box: npt.NDArray[np.float32],
        conf: float,
        strip: Reading | None = None,
    ) -> Card | None:
        """A card box with no index found by stage 1: find its corners, read them there
        (with its strip's reading, upright zone crops)."""
        if self.upright:
            return self._read_upright_corner(image, box, conf, strip)
        quad = card_quad(image, box)
        if quad is None:
            return None
        probs = self.index_reader.read_any_turn(image, index_boxes(quad))
        name, p = read_card(probs["rank"], probs["suit"])
        if p < GEOMETRY_MIN_READING or conf * p < self.min_card_confidence:
            return None
        return Card(name, tuple(float(v) for v in box), conf * p, by_geometry=True)  # type: ignore[arg-type]

    def _read_upright_corner(
        self,
        image: npt.NDArray[np.uint8],
        box: npt.NDArray[np.float32],
        conf: float,
        strip: Reading | None = None,
    ) -> Card | None:
        """An upright card box read where its indices lie, whatever stage 1 found there.

        A reader with an ``index`` head searches each corner: every size and place a design
        may print its index at (:func:`~assistant.detect.corners.upright_index_candidates`)
        is read once, and the likeliest index (``index`` head times the rank's and the
        suit's top probability) is read again in the zone views; a corner whose likeliest
        box is no index (a back, a hand, the next card of a row over it) does not count.
        The top-left and the bottom-right index (read turned half round) multiply, and the
        card's ``strip`` reading with them. An older reader reads the top-left corner alone
        at a few shifts of one fixed place. Neither reads a box whose top-left corner shows
        next to no card-face white (a back): under ``CHECKED_MIN_FACE`` of the window with
        an ``index`` head, under ``UPRIGHT_MIN_FACE`` without. Where neither corner shows
        an index, the ``strip`` reading alone reads the card when it is at least
        ``STRIP_ALONE_MIN_READING`` sure.
        """
        min_face = CHECKED_MIN_FACE if self.checks_indices else UPRIGHT_MIN_FACE
        if face_share(image, box) < min_face:
            return None
        readings = self._upright_corners(image, box)
        if readings:
            name, p, names = _read_all(self._weighed(readings, strip))
            least = UPRIGHT_MIN_READING
        elif strip is not None:  # no corner shows an index: the pip column may still tell
            name, p, names = _read_all([strip])
            least = STRIP_ALONE_MIN_READING
        else:
            return None
        if p < least or conf * p < self.min_card_confidence:
            return None
        return Card(name, tuple(float(v) for v in box), conf * p, by_geometry=True, names=names)  # type: ignore[arg-type]

    def _with_searched_corners(
        self,
        image: npt.NDArray[np.uint8],
        card: Card,
        read: ReadCard,
        cards: Boxes,
        probs: dict[str, npt.NDArray[np.float32]],
        strip: Reading | None = None,
    ) -> Card:
        """``card``, read from the stage-1 indices of card box ``read.card_box``, read again
        with what that box's searched corners show (:meth:`_upright_corners`) and its
        ``strip`` reading: all the readings' probabilities multiply. Where stage 1 boxed
        only part of a big index, or a pip beside it, the corners read at the design's own
        index size settle the card."""
        more = self._upright_corners(image, cards.xyxy[read.card_box])
        return self._read_again(card, read, cards, probs, more, strip)

    def _read_again(
        self,
        card: Card,
        read: ReadCard,
        cards: Boxes,
        probs: dict[str, npt.NDArray[np.float32]],
        more: list[Reading],
        strip: Reading | None = None,
    ) -> Card:
        """``card``, read from the stage-1 indices of card box ``read.card_box``, with
        ``more`` index readings and the box's ``strip`` reading multiplied into those
        indices' (:meth:`_weighed`; ``card`` itself when there are none)."""
        if not more and strip is None:
            return card
        indices = [(probs["rank"][i], probs["suit"][i]) for i in read.indices] + more
        name, p, names = _read_all(self._weighed(indices, strip))
        return Card(name, card.box, float(cards.conf[read.card_box]) * p, index=card.index, names=names)

    def reading_at(
        self, image: npt.NDArray[np.uint8], box: tuple[float, float, float, float]
    ) -> Reading | None:
        """The rank and suit probabilities of the upright card at ``box`` (a card known to
        lie there, in an upright 1 mm/px zone-scale image): its searched corners' indices
        (:meth:`_upright_corners`) and its strip and face readings multiplied, each summed
        to one again; None where nothing reads it. ``deck scan`` names a deck's faces by
        these, all 52 at once."""
        card = np.asarray(box, np.float32)
        readings = self._upright_corners(image, card)
        strip = self._strip_readings(image, card[None]).get(0)
        if strip is not None:
            readings.append(strip)
        if not readings:
            return None
        rank = combined(np.stack([r for r, _ in readings]), READING_FLOOR)
        suit = combined(np.stack([s for _, s in readings]), READING_FLOOR)
        return rank.astype(np.float32), suit.astype(np.float32)

    def likeliest_index(
        self, image: npt.NDArray[np.uint8], box: tuple[float, float, float, float], corner: str
    ) -> tuple[tuple[float, float, float, float], float]:
        """Where an upright card box's ``corner`` ("tl" or "br") index likeliest lies of the
        places designs print one (:func:`~assistant.detect.corners.upright_index_candidates`),
        and how sure the reader's ``index`` head is that an index is there (1.0 for a reader
        without one)."""
        candidates = upright_index_candidates(np.asarray(box, np.float32), corner)
        probs = self.index_reader.read_turned(image, candidates, 2 if corner == "br" else 0, SEARCH_VIEWS)
        is_index = probs["index"][:, 1] if "index" in probs else np.ones(len(candidates), np.float32)
        likely = is_index * probs["rank"].max(1) * probs["suit"].max(1)
        best = int(likely.argmax())
        return candidates[best], float(is_index[best])

    def _upright_corners(self, image: npt.NDArray[np.uint8], box: npt.NDArray[np.float32]) -> list[Reading]:
        """Rank and suit probabilities of the indices read at an upright card box's corners
        (see :meth:`_read_upright_corner`): none, one or two readings."""
        checked = self.checks_indices
        readings: list[Reading] = []
        for corner, turns in (("tl", 0), ("br", 2)) if checked else (("tl", 0),):
            if checked:
                candidates = upright_index_candidates(box, corner)
                probs = self.index_reader.read_turned(image, candidates, turns, SEARCH_VIEWS)
                likely = probs["index"][:, 1] * probs["rank"].max(1) * probs["suit"].max(1)
                best = int(likely.argmax())
                if float(probs["index"][best, 1]) < UPRIGHT_MIN_INDEX:
                    continue
                probs = self.index_reader.read_turned(image, [candidates[best]], turns)
            else:
                probs = self.index_reader.read_turned(image, upright_index_boxes(box), turns, SEARCH_VIEWS)
            readings.append((probs["rank"].mean(0), probs["suit"].mean(0)))
        return readings

    def _read_upright(
        self,
        image: npt.NDArray[np.uint8],
        card_boxes: npt.NDArray[np.float32],
        index_boxes: IndexBoxes,
        owner: npt.NDArray[np.int64],
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Rank and suit of each index in an upright zone crop, read the way it is printed.

        An index in its card's top-left corner stands upright and is read as it is; one in
        the bottom-right corner is printed upside down: it is read turned half round. Any
        other (a card lying sideways) is read in its surest turn.
        ``owner``: each index's card box (:func:`~assistant.detect.grouping.index_owners`).
        """
        corners = index_corners(card_boxes, index_boxes, owner)
        n = len(index_boxes)
        rank = np.zeros((n, 13), np.float32)
        suit = np.zeros((n, 4), np.float32)
        index = np.ones(n, np.float32)  # is it an index at all (1 where the reader cannot say)
        groups: dict[str, list[int]] = {}
        for i, corner in enumerate(corners):
            groups.setdefault(corner or "", []).append(i)
        for corner, members in groups.items():
            boxes = [index_boxes[i] for i in members]
            if corner == "tl":
                p = self.index_reader.read(image, boxes)
            elif corner == "br":
                p = self.index_reader.read_turned(image, boxes, 2)
            else:
                p = self.index_reader.read_any_turn(image, boxes)
            rank[members], suit[members] = p["rank"], p["suit"]
            if self.checks_indices:
                index[members] = p["index"][:, 1]
        return {"rank": rank, "suit": suit, "index": index}

    def _of(self, boxes: Boxes, name: str) -> Boxes:
        return boxes.select(boxes.cls == self._class.get(name, -1))

    def interpret(
        self, image: npt.NDArray[np.uint8], boxes: Boxes, name: str = "", *, reread: bool = True
    ) -> Detection:
        """Stage 2 over stage-1 ``boxes``: read indices, group them, count chips.

        ``reread`` (upright crops): a card read from its stage-1 indices less surely than
        ``REREAD_BELOW`` is read again with its searched corners
        (:meth:`_with_searched_corners`); a surer reading stands as it is. The photo
        search leaves it out: in its patches, where a card's box is only as good as the
        sweep's fit, the second reading cost more than it gave (``models/README.md``).
        """
        out = Detection(name)
        boxes = self.kept(boxes)
        card_classes = {self._class[k] for k in ("card", "face_down") if k in self._class}
        boxes = boxes.without_contained(card_classes)
        if "index" in self._class:
            boxes = boxes.without_contained({self._class["index"]}, INDEX_CONTAINED)
        if self.min_card_px is not None:
            boxes = boxes.select(_plausible(boxes, card_classes, self.min_card_px, image.shape[:2]))
        cards, indices = self._of(boxes, "card"), self._of(boxes, "index")
        face_down = self._of(boxes, "face_down").xyxy
        strips = self._strip_readings(image, cards.xyxy)
        taken: set[int] = set()
        lessons: list[tuple[ReadCard, dict[str, npt.NDArray[np.float32]], Reading]] = []  # for the trust
        if len(indices):
            owner = index_owners(cards.xyxy, indices.xyxy, self.upright)
            if self.upright:
                probs = self._read_upright(image, cards.xyxy, indices.xyxy, owner)
                real = probs["index"] >= STAGE1_MIN_INDEX  # drop stage-1 boxes that show no index
                indices, owner = indices.select(real), owner[real]
                probs = {h: v[real] for h, v in probs.items()}
            else:
                probs = self.index_reader.read_any_turn(image, list(indices.xyxy))
            grouped = group_cards(
                cards.xyxy,
                cards.conf,
                indices.xyxy,
                probs["rank"],
                probs["suit"],
                upright=self.upright,
                owner=owner,
                backs=face_down if self.upright else None,
            )
            for c in grouped:
                taken.add(c.card_box)
                if self.upright and c.card_box < 0 and c.reading < self.lone_index_min_reading:
                    continue
                first = min(c.indices, key=lambda i: float(indices.xyxy[i][0]))
                index = tuple(float(v) for v in indices.xyxy[first])
                card = Card(c.card, c.box, c.confidence, index=index)  # type: ignore[arg-type]
                strip = strips.get(c.card_box)
                if self.trust is not None and strip is not None and c.card_box >= 0:
                    lessons.append((c, probs, strip))  # learnt once the frame is read
                if reread and self.upright and c.card_box >= 0 and c.reading < REREAD_BELOW:
                    card = self._with_searched_corners(image, card, c, cards, probs, strip)
                elif strip is not None:
                    card = self._read_again(card, c, cards, probs, [], strip)
                if self.upright and not card.names:  # read from its stage-1 indices alone
                    read = list(c.indices)
                    card = replace(card, names=likeliest_names(probs["rank"][read], probs["suit"][read]))
                if card.confidence >= self.min_card_confidence:
                    out.cards.append(card)
        untaken = [k for k in range(len(cards)) if k not in taken]
        shown_backs = self._shown_backs(image, cards.xyxy[untaken])
        for k, back in zip(untaken, shown_backs, strict=True):
            if back:
                continue
            unindexed = self._read_by_geometry(image, cards.xyxy[k], float(cards.conf[k]), strips.get(k))
            if unindexed is not None:
                out.cards.append(unindexed)
        out.cards = suppress_duplicates(out.cards, sure_geometry=self.sure_geometry)
        if self.upright:
            out.cards = one_of_each(out.cards)
        read_boxes = [c.box for c in out.cards]
        backs = [
            (float(b[0]), float(b[1]), float(b[2]), float(b[3]))
            for b in face_down
            if all(box_iou(b, r) <= FACE_UP_WINS_IOU for r in read_boxes)
        ]
        for k, back in zip(untaken, shown_backs, strict=True):  # card boxes the back reader calls backs
            x1, y1, x2, y2 = (float(v) for v in cards.xyxy[k])
            if back and all(box_iou((x1, y1, x2, y2), r) <= FACE_UP_WINS_IOU for r in [*read_boxes, *backs]):
                backs.append((x1, y1, x2, y2))
        out.face_down = claim_backs(out.cards, backs) if self.upright else backs
        chip_mask = np.array([self._chip_colour.get(int(c)) is not None for c in boxes.cls], bool)
        chips = boxes.select(chip_mask) if len(boxes) else boxes
        counts: list[int | None] = [None] * len(chips)
        if self.chip_reader is not None and len(chips):
            p = self.chip_reader.read(image, list(chips.xyxy))["count"]
            counts = [int(k) if k > 0 else None for k in p.argmax(1)]
        for b, conf, cls, count in zip(chips.xyxy, chips.conf, chips.cls, counts, strict=True):
            colour = self._chip_colour[int(cls)]
            assert colour is not None
            out.chips.append(ChipStack(colour, count, tuple(map(float, b)), float(conf)))  # type: ignore[arg-type]
        for c, read_probs, strip in lessons:  # a frame is read with what the frames before it taught
            self._learn_trust(c, read_probs, strip)
        return out
