"""Where the zone detector loses the cards it does not read right, and what it would read
with stage 1 giving exactly the boxes it was taught.

Each judged face-up card of a ``synth zones`` crop ends in one of :data:`FATES`:

* ``right``: read as itself (:func:`~assistant.detect.evaluate.judge_cards`);
* ``misread``: a card of another name was read on it (its box's centre lies on it);
* ``unboxed``: nothing was read on it, and stage 1 put no box on it that the pipeline keeps
  (no face-up card box and no corner index box within :data:`BOXED_IOU` of the card's or
  one of its indices' boxes): stage 1 lost it;
* ``unread``: nothing was read on it though stage 1 boxed it: the rules between the stages
  dropped it (a face-down box over it, a back, an index the reader's ``index`` head calls
  none, a reading too unsure) or the readers read nothing sure enough.

:func:`taught_boxes` turns a split's YOLO labels (what stage 1 learnt to give) into stage-1
boxes, each 1.0 sure, so that the rest of the pipeline can be read on them: the room left
by stage 1 is the difference.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import yaml

from assistant.detect.backends import Boxes, box_iou
from assistant.detect.evaluate import (
    Box,
    CardVerdict,
    Tally,
    judge_cards,
    judged_card_objects,
    spread_limit,
    tally_verdicts,
    true_cards,
)
from assistant.detect.pipeline import CardDetector, read_image
from assistant.detect.reader_data import quad_box

FATES = ("right", "misread", "unboxed", "unread")
#: a stage-1 box this close (IoU) to a card's box or one of its index boxes is on that card
BOXED_IOU = 0.5


def taught_boxes(
    label_path: Path, size: tuple[int, int], names: dict[int, str], classes: dict[str, int]
) -> Boxes:
    """The boxes of a YOLO label file (``class cx cy w h``, normalised to ``size`` = (width,
    height)), with the label's class ``names`` mapped to the detector's ``classes`` by name,
    each 1.0 sure; a class the detector does not have is left out. A missing file is an
    image with nothing labelled."""
    rows: list[list[float]] = []
    kinds: list[int] = []
    text = label_path.read_text() if label_path.is_file() else ""
    w, h = size
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 5:
            raise ValueError(f"{label_path}:{line_no}: expected 'class cx cy w h', got {line!r}")
        label, (cx, cy, bw, bh) = int(parts[0]), (float(v) for v in parts[1:])
        name = names.get(label)
        if name is None:
            raise ValueError(f"{label_path}:{line_no}: class {label} is not in the dataset's names")
        if name not in classes:
            continue
        rows.append([(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h])
        kinds.append(classes[name])
    if not rows:
        return Boxes.empty()
    return Boxes(np.asarray(rows, np.float32), np.ones(len(rows), np.float32), np.asarray(kinds, np.int64))


def _boxed(obj: dict[str, Any], kept: Sequence[Box], *, card: bool = True, index: bool = True) -> bool:
    own = ([tuple(obj["box"])] if card else []) + (
        [quad_box(i["quad"]) for i in obj.get("indices", ())] if index else []
    )
    return any(box_iou(b, o) >= BOXED_IOU for b in kept for o in own)


def card_fates(
    verdicts: list[CardVerdict],
    used: list[bool],
    objects: list[dict[str, Any]],
    kept: Sequence[Box],
) -> list[str]:
    """The fate (:data:`FATES`) of each judged true card (``objects``, in the order the
    verdicts index them) given the verdicts of one image and the stage-1 face-up card and
    corner index boxes the pipeline kept (``kept``)."""
    misread = {k for v in verdicts if v.verdict == "wrong" for k in v.under}
    fates = []
    for k, obj in enumerate(objects):
        if used[k]:
            fates.append("right")
        elif k in misread:
            fates.append("misread")
        else:
            fates.append("unread" if _boxed(obj, kept) else "unboxed")
    return fates


#: What stage 1 put on a judged card: its face-up card box and one of its corner indices,
#: one of the two, or neither (each box within :data:`BOXED_IOU` of the truth's)
FOUND = ("card and index", "card only", "index only", "nothing")


def stage1_found(obj: dict[str, Any], kept_cards: Sequence[Box], kept_indices: Sequence[Box]) -> str:
    """Which of :data:`FOUND` stage 1's kept face-up card boxes and index boxes put on the
    true card ``obj``."""
    card = _boxed(obj, kept_cards, index=False)
    index = _boxed(obj, kept_indices, card=False)
    return FOUND[(0 if index else 1) if card else (2 if index else 3)]


def _kept_of(detector: CardDetector, boxes: Boxes, kinds: tuple[str, ...]) -> list[Box]:
    classes = detector.classes
    wanted = [classes[k] for k in kinds if k in classes]
    kept = detector.kept(boxes)
    return [
        (float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in kept.xyxy[np.isin(kept.cls, wanted)]
    ]


def kept_card_boxes(detector: CardDetector, boxes: Boxes) -> list[Box]:
    """The face-up card and corner index boxes of stage-1 ``boxes`` that the pipeline keeps
    to read (each at least as sure as it asks of its class)."""
    return _kept_of(detector, boxes, ("card", "index"))


#: The stage-1 boxes each arm reads: of each class, stage 1's own (``found``) or those it
#: was taught (``taught``, the labels). ``taught cards``: the labels' face-up and face-down
#: card boxes with stage 1's indices (and chips); ``taught indices``: stage 1's card boxes
#: with the labels' indices.
ARMS: dict[str, tuple[str, ...]] = {
    "shipped": (),
    "taught": ("card", "face_down", "index"),
    "taught cards": ("card", "face_down"),
    "taught indices": ("index",),
}


def arm_names(wanted: tuple[str, ...]) -> tuple[str, ...]:
    """The arms to read for ``wanted``: ``shipped`` and ``taught`` first (always read), then
    the others asked for; an arm not in :data:`ARMS` is a ``ValueError``."""
    unknown = [a for a in wanted if a not in ARMS]
    if unknown:
        raise ValueError(f"unknown arm(s) {', '.join(unknown)}; choose from {', '.join(ARMS)}")
    return ("shipped", "taught", *(a for a in dict.fromkeys(wanted) if a not in ("shipped", "taught")))


def arm_boxes(detector: CardDetector, found: Boxes, taught: Boxes, arm: str) -> Boxes:
    """The boxes ``arm`` (:data:`ARMS`) reads: stage 1's ``found`` boxes, with those of the
    arm's classes replaced by the ``taught`` ones."""
    classes = detector.classes
    swapped = [classes[k] for k in ARMS[arm] if k in classes]
    if not swapped:
        return found
    return found.select(~np.isin(found.cls, swapped)).plus(taught.select(np.isin(taught.cls, swapped)))


@dataclass
class ArmTally:
    """Card identity and the fates of the judged cards of one arm over some images."""

    cards: Tally = field(default_factory=Tally)
    fates: Counter[str] = field(default_factory=Counter)

    def add(self, tally: Tally, fates: list[str]) -> None:
        self.cards.add(tally)
        self.fates.update(fates)

    def to_json(self) -> dict[str, Any]:
        return {**self.cards.to_json(), "fates": {f: self.fates.get(f, 0) for f in FATES}}


@dataclass
class LossReport:
    """Each arm over a split, pooled and per deck design; how the shipped fate of each
    judged card turns out with all the taught boxes (``moves[shipped][taught]``); and what
    stage 1 found on the cards of each shipped fate (``found[fate][FOUND]``)."""

    images: int = 0
    arms: dict[str, ArmTally] = field(default_factory=dict)
    per_deck: dict[str, dict[str, ArmTally]] = field(default_factory=dict)
    moves: dict[str, Counter[str]] = field(default_factory=lambda: {f: Counter() for f in FATES})
    found: dict[str, Counter[str]] = field(default_factory=lambda: {f: Counter() for f in FATES})

    def arm(self, name: str, deck: str | None = None) -> ArmTally:
        arms = self.arms if deck is None else self.per_deck.setdefault(deck, {})
        return arms.setdefault(name, ArmTally())

    def add(self, other: LossReport) -> None:
        self.images += other.images
        for name, tally in other.arms.items():
            self.arm(name).add(tally.cards, list(tally.fates.elements()))
        for deck, arms in other.per_deck.items():
            for name, tally in arms.items():
                self.arm(name, deck).add(tally.cards, list(tally.fates.elements()))
        for fate in FATES:
            self.moves[fate].update(other.moves[fate])
            self.found[fate].update(other.found[fate])

    def to_json(self) -> dict[str, Any]:
        return {
            "images": self.images,
            "arms": {name: tally.to_json() for name, tally in self.arms.items()},
            "moves": {f: {g: self.moves[f].get(g, 0) for g in FATES} for f in FATES},
            "found": {f: {g: self.found[f].get(g, 0) for g in FOUND} for f in FATES},
            "per_deck": {
                deck: {name: tally.to_json() for name, tally in arms.items()}
                for deck, arms in sorted(self.per_deck.items())
            },
        }


@dataclass(frozen=True)
class _Judged:
    """An image's judged face-up cards (names and outlines, and their truth objects in the
    same order) and the cards too little in view to be judged."""

    cards: list[tuple[str, np.ndarray]]
    objects: list[dict[str, Any]]
    unjudged: list[tuple[str, np.ndarray]]

    @classmethod
    def of(cls, truth: dict[str, Any]) -> _Judged:
        objects = judged_card_objects(truth)
        cards = [(obj["card"], np.asarray(obj["corners"], np.float32)) for obj in objects]
        return cls(cards, objects, true_cards(truth, False, judged=False))


def _read(
    detector: CardDetector, image: npt.NDArray[np.uint8], name: str, judged: _Judged, boxes: Boxes
) -> tuple[Tally, list[str]]:
    det = detector.interpret(image, boxes, name)
    verdicts, used = judge_cards(det, judged.cards, judged.unjudged)
    tally, _ = tally_verdicts(verdicts, used, judged.cards)
    return tally, card_fates(verdicts, used, judged.objects, kept_card_boxes(detector, boxes))


def losses_in_split(
    detector: CardDetector,
    dataset: Path,
    split: str,
    *,
    arms: tuple[str, ...] = ("shipped", "taught"),
    limit: int | None = None,
) -> LossReport:
    """``arms`` (:data:`ARMS`; the first two are always read) over ``dataset``'s ``split``
    (a ``synth zones`` folder with ``labels/``)."""
    arms = arm_names(arms)
    spec_path = dataset / "data.yaml"
    if not spec_path.is_file():
        raise FileNotFoundError(f"{spec_path} is missing: {dataset} is not a `synth zones` folder")
    spec = yaml.safe_load(spec_path.read_text())
    names = {int(k): str(v) for k, v in spec["names"].items()}
    report = LossReport()
    truths = sorted((dataset / "truth" / split).glob("*.json"))
    if not truths:
        raise FileNotFoundError(f"{dataset / 'truth' / split} holds no truth files")
    for truth_path in spread_limit(truths, limit):
        truth = json.loads(truth_path.read_text())
        image = read_image(dataset / "images" / split / truth["image"])
        h, w = image.shape[:2]
        label_path = dataset / "labels" / split / Path(truth["image"]).with_suffix(".txt").name
        taught = taught_boxes(label_path, (w, h), names, detector.classes)
        found = detector.find(image)
        deck = str(truth.get("deck", "?"))
        report.images += 1
        judged = _Judged.of(truth)
        fates: dict[str, list[str]] = {}
        for name in arms:
            boxes = arm_boxes(detector, found, taught, name)
            tally, fates[name] = _read(detector, image, str(truth["image"]), judged, boxes)
            report.arm(name).add(tally, fates[name])
            report.arm(name, deck).add(tally, fates[name])
        for before, after in zip(fates["shipped"], fates["taught"], strict=True):
            report.moves[before][after] += 1
        kept_cards, kept_indices = _kept_of(detector, found, ("card",)), _kept_of(detector, found, ("index",))
        for obj, fate in zip(judged.objects, fates["shipped"], strict=True):
            report.found[fate][stage1_found(obj, kept_cards, kept_indices)] += 1
    return report
