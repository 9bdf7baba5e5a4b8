"""Card-identity F1 on a renderer dataset split, and per-group mAP50 of stage 1.

A predicted card counts as right when its rank and suit equal a true card's and the
centre of its box lies on that card (inside the card's projected outline); each true
card is matched at most once. True cards are the labelled face-up cards of the truth
files; ``readable`` restricts them to cards with at least one labelled corner index.

Zone crops whose truth says how finely the camera saw the zone (``camera_mm_per_px``,
:mod:`assistant.vision.sampling`) are also tallied by that sampling: a crop is always
1 mm per pixel, but the detail in it is the camera's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np

from assistant.detect.backends import box_iou
from assistant.detect.pipeline import Card, Detection, named_apart


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    #: cards read right on a face-up card too little in view to be judged (neither tp nor fp)
    unjudged: int = 0

    @property
    def precision(self) -> float:
        return self.tp / max(self.tp + self.fp, 1)

    @property
    def recall(self) -> float:
        return self.tp / max(self.tp + self.fn, 1)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def add(self, other: Tally) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.unjudged += other.unjudged

    def to_json(self) -> dict[str, float]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "unjudged_right": self.unjudged,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
        }


@dataclass
class ChipTally:
    """Chip stacks judged by :func:`~assistant.detect.reader_data.chip_target`: counted
    where their side shows, unknown from above; ``unjudged`` stacks (zone crops written
    without the side a chip spans) count for neither. ``count_exact`` is None when no
    stack's side shows."""

    side_visible: int = 0
    exact: int = 0
    above: int = 0
    above_unknown: int = 0
    unjudged: int = 0

    def add(self, target: int, found: bool, count: int | None) -> None:
        """One judged stack: ``target`` its count, 0 when seen from above; whether it was
        ``found``, and the ``count`` read there (None: reported unknown)."""
        if target > 0:
            self.side_visible += 1
            self.exact += found and count == target
        else:
            self.above += 1
            self.above_unknown += found and count is None

    def to_json(self) -> dict[str, float | int | None]:
        return {
            "side_visible_stacks": self.side_visible,
            "count_exact": round(self.exact / self.side_visible, 4) if self.side_visible else None,
            "from_above_stacks": self.above,
            "from_above_reported_unknown": round(self.above_unknown / max(self.above, 1), 4),
            "unjudged_stacks": self.unjudged,
        }


def judged_card_objects(
    truth: dict[str, Any], readable: bool = False, judged: bool = True
) -> list[dict[str, Any]]:
    """The truth objects of the face-up cards judged in an image (``labelled``, and with
    ``readable`` a labelled corner index too); with ``judged`` false the other face-up
    cards instead."""
    out = []
    for obj in truth["objects"]:
        if obj["kind"] != "card" or not obj.get("card") or obj.get("corners") is None:
            continue
        judge = obj["labelled"] and (not readable or any(i["labelled"] for i in obj["indices"]))
        if judge == judged:
            out.append(obj)
    return out


def in_zone(truth: dict[str, Any], detection: Detection) -> tuple[dict[str, Any], Detection]:
    """A zone crop cut with a margin around its zone (truth ``inner``: ``synth zones
    --margins``) as the camera pipeline counts the zone (:func:`~assistant.pipeline.zones.within`):
    the face-up and face-down cards detected with their box's centre in the zone are the
    zone's, the others are dropped; a true card or back whose centre lies outside the zone
    is not judged (``labelled`` false, ``outside_zone`` true). Chip stacks are left as
    they are. A truth without ``inner`` is returned as it is.

    >>> def card(name, x):  # a card lying upright with its left edge at x
    ...     outline = [[x, 30], [x + 63, 30], [x + 63, 118], [x, 118]]
    ...     return {"kind": "card", "card": name, "labelled": True, "corners": outline}
    >>> truth = {"inner": [32, 20, 312, 150], "objects": [card("2d", -18), card("Qc", 40)]}
    >>> found = Detection("x", [Card("2d", (0, 30, 45, 118), 0.9), Card("Qc", (40, 30, 103, 118), 0.9)])
    >>> judged, kept = in_zone(truth, found)
    >>> [o["labelled"] for o in judged["objects"]], [c.card for c in kept.cards]
    ([False, True], ['Qc'])
    """
    from assistant.pipeline.zones import point_in_zone

    inner = truth.get("inner")
    if inner is None:
        return truth, detection

    def inside(box: Sequence[float]) -> bool:
        return point_in_zone((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, inner)

    objects = []
    for obj in truth["objects"]:
        if obj["kind"] in ("card", "face_down") and obj.get("labelled"):
            outline = np.asarray(obj.get("corners") or [obj["box"][:2], obj["box"][2:]], np.float64)
            cx, cy = outline.mean(0)
            if not point_in_zone(float(cx), float(cy), inner):
                obj = {**obj, "labelled": False, "outside_zone": True}
        objects.append(obj)
    kept = replace(
        detection,
        cards=[c for c in detection.cards if inside(c.box)],
        face_down=[b for b in detection.face_down if inside(b)],
    )
    return {**truth, "objects": objects}, kept


def true_cards(truth: dict[str, Any], readable: bool, judged: bool = True) -> list[tuple[str, np.ndarray]]:
    """The name and outline of each face-up card judged in an image
    (:func:`judged_card_objects`)."""
    return [
        (obj["card"], np.asarray(obj["corners"], np.float32))
        for obj in judged_card_objects(truth, readable, judged)
    ]


@dataclass(frozen=True)
class CardVerdict:
    """How one predicted card was judged: ``"right"``, ``"wrong"`` or ``"unjudged"`` (read
    right on a card too little in view to be judged), and the judged true cards (their
    positions in the truth list) that its box's centre lies on."""

    card: Card
    verdict: Literal["right", "wrong", "unjudged"]
    under: tuple[int, ...]


def judge_cards(
    detection: Detection,
    truth_cards: list[tuple[str, np.ndarray]],
    unjudged: Sequence[tuple[str, np.ndarray]] = (),
) -> tuple[list[CardVerdict], list[bool]]:
    """Each predicted card's verdict, surest first, and which true cards were matched.

    A card is right on the first unmatched true card of its name under its box's centre;
    each true card is matched at most once.
    """
    used = [False] * len(truth_cards)
    verdicts: list[CardVerdict] = []
    for card in sorted(detection.cards, key=lambda c: -c.confidence):
        centre = _centre(card)
        under = tuple(k for k, (_, poly) in enumerate(truth_cards) if _on(poly, centre))
        hit = next((k for k in under if not used[k] and truth_cards[k][0] == card.card), None)
        if hit is not None:
            used[hit] = True
            verdicts.append(CardVerdict(card, "right", under))
        elif any(name == card.card and _on(poly, centre) for name, poly in unjudged):
            verdicts.append(CardVerdict(card, "unjudged", under))
        else:
            verdicts.append(CardVerdict(card, "wrong", under))
    return verdicts, used


def match_cards(
    detection: Detection,
    truth_cards: list[tuple[str, np.ndarray]],
    unjudged: Sequence[tuple[str, np.ndarray]] = (),
) -> tuple[Tally, list[tuple[str, str]]]:
    """Tally of one image, and (true, predicted) pairs of cards whose box was on a card.

    A card read right on one of the ``unjudged`` cards (face up but too little in view to
    be judged, :func:`true_cards` with ``judged=False``) counts as neither right nor wrong.
    """
    return tally_verdicts(*judge_cards(detection, truth_cards, unjudged), truth_cards)


def tally_verdicts(
    verdicts: Sequence[CardVerdict], used: Sequence[bool], truth_cards: list[tuple[str, np.ndarray]]
) -> tuple[Tally, list[tuple[str, str]]]:
    """:func:`match_cards` from an image's verdicts (:func:`judge_cards`)."""
    tally = Tally(fn=list(used).count(False))
    pairs: list[tuple[str, str]] = []
    for v in verdicts:
        if v.verdict == "right":
            tally.tp += 1
            pairs.append((v.card.card, v.card.card))
        elif v.verdict == "unjudged":
            tally.unjudged += 1
        else:
            tally.fp += 1
            if v.under:
                pairs.append((truth_cards[v.under[0]][0], v.card.card))
    return tally, pairs


#: Where a wrong card (one counted ``fp``) lies: its box's centre on a judged card whose
#: name it did not read, on a judged card of its name already matched by a surer reading,
#: on a face-up card too little in view to be judged (read as another card), on a
#: face-down card, or on none of these.
WRONG_CARD_PLACES = (
    "misread card",
    "second read of a card",
    "card too little in view",
    "face-down card",
    "nothing labelled",
)


def wrong_card_places(
    verdicts: Sequence[CardVerdict],
    truth: dict[str, Any],
    truth_cards: list[tuple[str, np.ndarray]],
    unjudged: Sequence[tuple[str, np.ndarray]] = (),
) -> dict[str, int]:
    """How many of an image's wrong cards (its :func:`judge_cards` verdicts) lie on each of
    :data:`WRONG_CARD_PLACES`."""
    counts = dict.fromkeys(WRONG_CARD_PLACES, 0)
    backs = [b for labelled in (True, False) for b, _ in true_boxes(truth, "face_down", labelled)]
    for v in verdicts:
        if v.verdict != "wrong":
            continue
        x, y = _centre(v.card)
        if v.under:
            named = any(truth_cards[k][0] == v.card.card for k in v.under)
            place = "second read of a card" if named else "misread card"
        elif any(_on(poly, (x, y)) for _, poly in unjudged):
            place = "card too little in view"
        elif any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in backs):
            place = "face-down card"
        else:
            place = "nothing labelled"
        counts[place] += 1
    return counts


def _centre(card: Card) -> tuple[float, float]:
    return (card.box[0] + card.box[2]) / 2, (card.box[1] + card.box[3]) / 2


def _on(poly: np.ndarray, point: tuple[float, float]) -> bool:
    return cv2.pointPolygonTest(poly, (float(point[0]), float(point[1])), False) >= 0


#: A reported face-down card is right where its box overlaps a true back's this much; a
#: reported chip stack where it overlaps a true stack of its colour ``STACK_IOU`` (a
#: stack's box is as tall as the view shows its side, which varies more).
BACK_IOU = 0.5
STACK_IOU = 0.3


def true_boxes(truth: dict[str, Any], kind: str, labelled: bool = True) -> list[tuple[Box, str | None]]:
    """(box, colour) of the truth's objects of ``kind`` (``face_down``, ``chips``) in view,
    those ``labelled`` (enough in view to be judged) or the others."""
    out: list[tuple[Box, str | None]] = []
    for o in truth["objects"]:
        if o["kind"] == kind and o.get("box") is not None and bool(o.get("labelled", True)) == labelled:
            x1, y1, x2, y2 = (float(v) for v in o["box"])
            out.append(((x1, y1, x2, y2), o.get("colour")))
    return out


def match_boxes(
    found: Sequence[tuple[Box, str | None]],
    truth: Sequence[tuple[Box, str | None]],
    iou: float,
    unjudged: Sequence[tuple[Box, str | None]] = (),
) -> Tally:
    """Reported boxes (with a colour, or None) against true ones: each true box is
    matched once, by the reported box of its colour overlapping it most, at least ``iou``;
    a box on an ``unjudged`` object (too little in view) counts as neither.

    >>> back = ((0.0, 0.0, 60.0, 90.0), None)
    >>> match_boxes([back, ((200.0, 0.0, 260.0, 90.0), None)], [back], 0.5).to_json()["f1"]
    0.6667
    """
    used = [False] * len(truth)
    tally = Tally()
    for box, colour in found:
        fits = [(box_iou(box, t), k) for k, (t, c) in enumerate(truth) if not used[k] and c == colour]
        best = max(fits, default=(0.0, -1))
        if best[0] >= iou:
            used[best[1]] = True
            tally.tp += 1
        elif any(box_iou(box, t) >= iou and c == colour for t, c in unjudged):
            tally.unjudged += 1
        else:
            tally.fp += 1
    tally.fn = used.count(False)
    return tally


def match_extras(detection: Detection, truth: dict[str, Any]) -> tuple[Tally, Tally]:
    """Face-down cards (box at ``BACK_IOU``) and chip stacks (box at ``STACK_IOU`` and
    colour) of one image against its truth."""
    backs = match_boxes(
        [(b, None) for b in detection.face_down],
        [(b, None) for b, _ in true_boxes(truth, "face_down")],
        BACK_IOU,
        [(b, None) for b, _ in true_boxes(truth, "face_down", labelled=False)],
    )
    stacks = match_boxes(
        [(s.box, s.colour) for s in detection.chips],
        true_boxes(truth, "chips"),
        STACK_IOU,
        true_boxes(truth, "chips", labelled=False),
    )
    return backs, stacks


#: Upper edges of the camera-sampling bins (mm of table per camera pixel).
SAMPLING_EDGES = (0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.5)


def sampling_bin(mm_per_px: float) -> str:
    """The bin of a camera sampling: ``"1.0-1.2"`` (lower edge exclusive), ``"<=0.6"``, ``">2.5"``."""
    lower = None
    for edge in SAMPLING_EDGES:
        if mm_per_px <= edge:
            return f"<={edge:.1f}" if lower is None else f"{lower:.1f}-{edge:.1f}"
        lower = edge
    return f">{SAMPLING_EDGES[-1]:.1f}"


def _bin_order(label: str) -> float:
    lower = float(label.lstrip("<=>").split("-")[0])
    return lower - 0.01 if label.startswith("<") else lower + 0.01 if label.startswith(">") else lower


@dataclass
class Report:
    images: int = 0
    all_cards: Tally = field(default_factory=Tally)
    readable_cards: Tally = field(default_factory=Tally)
    chips: ChipTally = field(default_factory=ChipTally)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    per_deck: dict[str, Tally] = field(default_factory=dict)  # all labelled cards, per deck design
    # all labelled cards, per camera-sampling bin (crops whose truth says it)
    per_sampling: dict[str, Tally] = field(default_factory=dict)
    face_down: Tally = field(default_factory=Tally)  # boxes found (``match_extras``)
    #: all labelled cards as the camera pipeline names them: each zone's readings through
    #: its card memory, frame after frame (``evaluate(memory=True)``); None when not asked
    remembered: Tally | None = None
    #: ... of those, the cards the pipeline counts (``read_zone``: named at least
    #: ``MIN_CARD_CONFIDENCE`` sure), and the ones it puts to the dealer as unsure reads
    #: (from ``UNSURE_CARD_CONFIDENCE``; right ones are ``tp``, wrong ones ``fp``)
    counted: Tally | None = None
    asked: Tally | None = None
    chip_stacks: Tally = field(default_factory=Tally)  # boxes found, colour right
    #: all labelled cards' wrong readings by where they lie (``WRONG_CARD_PLACES``)
    wrong_cards: dict[str, int] = field(default_factory=lambda: dict.fromkeys(WRONG_CARD_PLACES, 0))
    #: all labelled cards per hand of ``synth zones`` crops (HAND_FRAME_ZONE): the frames
    #: of one hand show the same cards, so hands, not crops, are the independent draws
    #: (``scripts/compare_arms.py`` resamples them)
    per_hand: dict[str, Tally] = field(default_factory=dict)
    #: ... and as the card memory names them (``evaluate(memory=True)``; empty otherwise)
    remembered_per_hand: dict[str, Tally] = field(default_factory=dict)
    #: zone crops cut with a margin around their zone (truth ``inner``), judged as the
    #: camera pipeline counts the zone's cards (:func:`in_zone`)
    zones_with_margins: int = 0
    #: each judged card of a hand's zone (hand, zone, name): frames it was judged in, and
    #: read right in
    card_frames: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        bins = sorted(self.per_sampling.items(), key=lambda item: _bin_order(item[0]))
        return {
            "images": self.images,
            "card_identity_all_labelled": self.all_cards.to_json(),
            "card_identity_index_visible": self.readable_cards.to_json(),
            "card_identity_per_deck": {d: t.to_json() for d, t in sorted(self.per_deck.items())},
            "wrong_cards_by_place": dict(self.wrong_cards),
            **(
                {"card_identity_per_camera_mm_per_px": {label: t.to_json() for label, t in bins}}
                if bins
                else {}
            ),
            "chips": self.chips.to_json(),
            **(
                {"card_identity_with_card_memory": self.remembered.to_json()}
                if self.remembered is not None
                else {}
            ),
            **(
                {"card_identity_counted_by_the_pipeline": self.counted.to_json()}
                if self.counted is not None
                else {}
            ),
            **(
                {"unsure_reads_put_to_the_dealer": {"right": self.asked.tp, "wrong": self.asked.fp}}
                if self.asked is not None
                else {}
            ),
            **({"card_identity_distinct_cards": self.distinct_cards()} if self.card_frames else {}),
            **(
                {"card_identity_per_hand": {h: t.to_json() for h, t in sorted(self.per_hand.items())}}
                if self.per_hand
                else {}
            ),
            **(
                {
                    "card_identity_with_card_memory_per_hand": {
                        h: t.to_json() for h, t in sorted(self.remembered_per_hand.items())
                    }
                }
                if self.remembered_per_hand
                else {}
            ),
            "face_down_found": self.face_down.to_json(),
            "chip_stacks_found": self.chip_stacks.to_json(),
            **(
                {"zone_crops_judged_as_the_pipeline_counts": self.zones_with_margins}
                if self.zones_with_margins
                else {}
            ),
            "ms_per_image": round(1000 * self.seconds / max(self.images, 1), 1),
        }

    def distinct_cards(self) -> dict[str, int | float]:
        """How many distinct cards the crops judged (a card of one hand's zone counts once,
        however many frames show it) and how each fared over its frames: right in every
        one, right in more than half, or right in half or fewer."""
        frames = sorted(judged for judged, _ in self.card_frames.values())
        ratios = [right / judged for judged, right in self.card_frames.values()]
        return {
            "cards": len(ratios),
            "right_in_every_frame": sum(r == 1.0 for r in ratios),
            "right_in_most_frames": sum(0.5 < r < 1.0 for r in ratios),
            "right_in_half_or_fewer": sum(r <= 0.5 for r in ratios),
            "median_frames_judged": frames[len(frames) // 2] if frames else 0,
        }


def crop_hand_zone(image: str) -> tuple[str, str] | None:
    """The hand and zone of a ``synth zones`` crop named HAND_FRAME_ZONE (``s31-00126_0008_seat5.cards.jpg``:
    ``("s31-00126", "seat5.cards")``); None for another name.

    >>> crop_hand_zone("s31-00126_0008_seat5.cards.jpg"), crop_hand_zone("000123.jpg")
    (('s31-00126', 'seat5.cards'), None)
    """
    parts = Path(image).name.rsplit("_", 2)  # as the card memory's key and ``_frames`` split it
    if len(parts) < 3:
        return None
    return parts[0], parts[2].rsplit(".", 1)[0]


def evaluate(
    detect: Callable[[np.ndarray, str], Detection],
    dataset: Path,
    split: str = "test",
    limit: int | None = None,
    chips: bool = False,
    memory: bool = False,
    deck: str | None = None,
    session: Callable[[], Callable[[np.ndarray, str], Detection]] | None = None,
    tables: bool = False,
) -> Report:
    """Card identity and more over a split's images (only those of deck design ``deck``
    when given, as a table that learnt its deck plays it). With ``memory`` (zone crops of ``synth
    zones``, named HAND_FRAME_ZONE) each zone of each hand is also read frame after frame
    through the camera pipeline's :class:`~assistant.pipeline.memory.CardMemory`, as a
    camera session names its cards (``Report.remembered``), and of those the ones the
    pipeline counts and the ones it asks the dealer about (``Report.counted``, ``asked``).

    ``session``: each deck design's images are read by a detector of their own, made by
    ``session()`` when the design's first image comes (``detect`` is then not used), in
    the split's file order: every design is one table session, as a home game plays one
    deck all night (:meth:`~assistant.detect.pipeline.CardDetector.learning_reader_trust`).

    ``tables`` (zone crops of ``synth zones``): the crops of one frame (HAND_FRAME) are the
    zones of one table, and no two of them keep one card's name, as the camera pipeline
    names them (:func:`~assistant.detect.pipeline.named_apart`; with ``memory``, after
    each zone's memory, :func:`~assistant.pipeline.table_names.name_table`, and a card named
    apart from another zone's is put to the dealer, not counted, however sure).

    A crop whose truth says where its zone lies (``inner``: ``synth zones --margins``) is
    judged as the pipeline counts the zone, before anything else reads its detections
    (:func:`in_zone`); ``Report.remembered_per_hand`` holds each hand as the memory named it."""
    import time

    from assistant.pipeline.memory import CardMemory
    from assistant.pipeline.table_names import name_table

    report = Report(
        remembered=Tally() if memory else None,
        counted=Tally() if memory else None,
        asked=Tally() if memory else None,
    )
    memories = CardMemory() if memory else None
    sessions: dict[str, Callable[[np.ndarray, str], Detection]] = {}
    paths = list(spread_limit(sorted((dataset / "truth" / split).glob("*.json")), limit))
    for group in _frames(paths) if tables else [[path] for path in paths]:
        frame: list[tuple[dict[str, Any], Detection]] = []
        for truth_path in group:
            truth = json.loads(truth_path.read_text())
            if deck is not None and truth.get("deck") != deck:
                continue
            image = cv2.imread(str(dataset / "images" / split / truth["image"]))
            if image is None:
                continue
            read = detect
            if session is not None:
                design = str(truth.get("deck", "?"))
                if design not in sessions:
                    sessions[design] = session()
                read = sessions[design]
            t0 = time.perf_counter()
            found = read(image, truth["image"])
            report.seconds += time.perf_counter() - t0
            if "inner" in truth:  # a crop cut with a margin: judged as the pipeline counts the zone
                truth, found = in_zone(truth, found)
                report.zones_with_margins += 1
            frame.append((truth, found))
        named = named_apart([det for _, det in frame]) if tables and frame else [det for _, det in frame]
        seen: list[dict[str, Any]] = []
        if memories is not None:
            recalled = {
                str(k): memories.recall(
                    f"{str(truth['image']).rsplit('_', 2)[0]}/{truth.get('zone')}",
                    det.to_json(with_index=True, with_names=tables),
                )
                for k, (truth, det) in enumerate(frame)
            }
            recalled = name_table(recalled) if tables else recalled
            seen = [recalled[str(k)] for k in range(len(frame))]
        for k, ((truth, _), det) in enumerate(zip(frame, named, strict=True)):
            report.images += 1
            where = crop_hand_zone(str(truth["image"]))
            judged, unjudged = true_cards(truth, readable=False), true_cards(truth, False, judged=False)
            verdicts, used = judge_cards(det, judged, unjudged)
            tally, pairs = tally_verdicts(verdicts, used, judged)
            report.all_cards.add(tally)
            for place, count in wrong_card_places(verdicts, truth, judged, unjudged).items():
                report.wrong_cards[place] += count
            if seen:
                remembered = [Card(c["card"], tuple(c["box"]), c["confidence"]) for c in seen[k]["cards"]]
                standing = [_standing(c) for c in seen[k]["cards"]]
                as_named = match_cards(Detection(det.image, remembered), judged, unjudged)[0]
                if report.remembered is not None:
                    report.remembered.add(as_named)
                if where is not None:
                    report.remembered_per_hand.setdefault(where[0], Tally()).add(as_named)
                for session_tally, kept in (
                    (
                        report.counted,
                        [c for c, s in zip(remembered, standing, strict=True) if s == "counted"],
                    ),
                    (report.asked, [c for c, s in zip(remembered, standing, strict=True) if s == "unsure"]),
                ):
                    if session_tally is not None:
                        session_tally.add(match_cards(Detection(det.image, kept), judged, unjudged)[0])
            report.per_deck.setdefault(str(truth.get("deck", "?")), Tally()).add(tally)
            if where is not None:
                report.per_hand.setdefault(where[0], Tally()).add(tally)
                for (name, _), right in zip(judged, used, strict=True):
                    counts = report.card_frames.setdefault((*where, name), [0, 0])
                    counts[0] += 1
                    counts[1] += int(right)
            if truth.get("camera_mm_per_px") is not None:
                label = sampling_bin(float(truth["camera_mm_per_px"]))
                report.per_sampling.setdefault(label, Tally()).add(tally)
            report.pairs += pairs
            readable = match_cards(
                det, true_cards(truth, readable=True), true_cards(truth, True, judged=False)
            )
            report.readable_cards.add(readable[0])
            backs, stacks = match_extras(det, truth)
            report.face_down.add(backs)
            report.chip_stacks.add(stacks)
            if chips:
                _tally_chips(report.chips, det, truth)
    return report


def _standing(item: dict[str, Any]) -> str | None:
    """What the pipeline makes of one remembered card (:func:`~assistant.pipeline.zones.card_standing`),
    but a card named apart from another zone's is put to the dealer however sure (the referee
    proposes it, ``ZoneRead.renamed``): ``"unsure"``."""
    from assistant.pipeline.zones import card_standing

    standing = card_standing(float(item["confidence"]))
    return "unsure" if standing == "counted" and "renamed_from" in item else standing


def _frames(paths: list[Path]) -> list[list[Path]]:
    """Zone crops' truth files (``synth zones``: HAND_FRAME_ZONE.json), one list per table
    frame, in their order."""
    frames: list[list[Path]] = []
    for path in paths:
        if frames and frames[-1][0].stem.rsplit("_", 1)[0] == path.stem.rsplit("_", 1)[0]:
            frames[-1].append(path)
        else:
            frames.append([path])
    return frames


def spread_limit(paths: list[Path], limit: int | None) -> Iterable[Path]:
    """``limit`` of ``paths`` spread evenly over them (a split's files run hand by hand, deck by deck)."""
    if limit is None or limit >= len(paths):
        return paths
    step = len(paths) / max(limit, 1)
    return [paths[int(k * step)] for k in range(limit)]


Box = tuple[float, float, float, float]


def judged_stacks(truth: dict[str, Any], tally: ChipTally) -> list[tuple[dict[str, Any], Box, int]]:
    """(stack, box, target) of the truth's chip stacks at least 80% visible that can be
    judged (:func:`~assistant.detect.reader_data.chip_target`); the others are counted
    in ``tally`` as unjudged."""
    from assistant.detect.reader_data import chip_target

    stacks = []
    for obj in truth["objects"]:
        if obj["kind"] != "chips" or not obj["labelled"] or obj["box"] is None or obj["visible"] < 0.8:
            continue
        target = chip_target(truth, obj)
        if target is None:
            tally.unjudged += 1
        else:
            x1, y1, x2, y2 = (float(v) for v in obj["box"])
            stacks.append((obj, (x1, y1, x2, y2), target))
    return stacks


def _tally_chips(tally: ChipTally, det: Detection, truth: dict[str, Any]) -> None:
    for obj, box, target in judged_stacks(truth, tally):
        best, best_iou = None, 0.5
        for s in det.chips:
            iou = box_iou(box, s.box)
            if iou >= best_iou and s.colour == obj["colour"]:
                best, best_iou = s, iou
        tally.add(target, best is not None, best.count if best is not None else None)


def chip_reader_on_truth(
    read: Callable[[np.ndarray, list[Box]], np.ndarray],
    dataset: Path,
    split: str = "test",
) -> ChipTally:
    """The chip reader alone, on the true boxes of stacks at least 80% visible, judged
    as :func:`_tally_chips` judges the detector's.

    ``read(image, boxes)`` returns the count per box (0 for unknown).
    """
    tally = ChipTally()
    for truth_path in sorted((dataset / "truth" / split).glob("*.json")):
        truth = json.loads(truth_path.read_text())
        stacks = judged_stacks(truth, tally)
        image = cv2.imread(str(dataset / "images" / split / truth["image"])) if stacks else None
        if image is None:
            continue
        counts = read(image, [box for _, box, _ in stacks])
        for (_, _, target), count in zip(stacks, counts, strict=True):
            tally.add(target, True, int(count) or None)
    return tally
