"""Each card reader alone, at the true boxes of a zone split's upright cards.

The zone detector reads a face-up card with two index readers (the corner's rank and
pip), the strip reader (the card's left strip, index and pip column) and the face reader
(its whole face where no other card covers it), and multiplies their probabilities
(:mod:`assistant.detect.pipeline`). This reads every upright labelled face-up card whose
top-left index is in view with each of them alone, at the card's and index's true boxes
(so stage 1 plays no part), and with all of them together as the pipeline weighs them,
and says how often each gets the rank, the suit and the card right, per deck design and
per camera sampling. It shows which reader misleads on which design (stop 57).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.evaluate import Box, sampling_bin, spread_limit
from assistant.detect.grouping import combined
from assistant.detect.labels import RANKS, SUITS
from assistant.detect.pipeline import (
    FACE_MOST_COVERED,
    FACE_READER,
    FACE_WEIGHT,
    INDEX_READER,
    INDEX_READER_WIDE,
    STRIP_READER,
    STRIP_WEIGHT,
    ZONE_INDEX_VIEWS,
    ZONE_STRIP_VIEWS,
    ModelMissingError,
    index_reader,
    uncovered,
    weighed_strips,
)
from assistant.detect.reader_data import card_turns, quad_box
from assistant.detect.readers import OnnxReader, Probs

#: The readings compared, in the order they are reported.
READINGS = ("first index reader", "second index reader", "both index readers", "strip", "face", "together")
#: A top-left index this much in view (and labelled) makes its card one to read.
MIN_INDEX_VISIBLE = 0.9


@dataclass(frozen=True)
class UprightCard:
    """A labelled face-up card lying upright in a zone crop, with its true boxes."""

    card: str
    box: Box
    index: Box


def _box(values: Iterable[float]) -> Box:
    x1, y1, x2, y2 = (float(v) for v in values)
    return x1, y1, x2, y2


def upright_cards(truth: dict[str, Any]) -> list[UprightCard]:
    """The labelled face-up cards of a zone crop's truth that lie upright with their
    top-left index in view (at least ``MIN_INDEX_VISIBLE``, labelled)."""
    out = []
    for obj in truth["objects"]:
        if (
            obj["kind"] != "card"
            or not obj.get("card")
            or not obj.get("labelled")
            or obj.get("corners") is None
        ):
            continue
        if card_turns(obj["corners"]) != 0:
            continue
        shown = [
            i
            for i in obj["indices"]
            if i["corner"] == "tl" and i["labelled"] and i["visible"] >= MIN_INDEX_VISIBLE
        ]
        if shown:
            out.append(UprightCard(obj["card"], _box(obj["box"]), quad_box(shown[0]["quad"])))
    return out


class Readers:
    """The model folder's card readers, each read as the zone detector reads it."""

    def __init__(self, models: Path, threads: int = 1) -> None:
        def need(name: str) -> Path:
            path = models / name
            if not path.is_file():
                raise ModelMissingError(f"model file {path} is missing")
            return path

        first, second = need(INDEX_READER), need(INDEX_READER_WIDE)
        self.first = OnnxReader(first, threads, ZONE_INDEX_VIEWS)
        self.second = OnnxReader(second, threads, ZONE_INDEX_VIEWS)
        self.both = index_reader(models, threads, ZONE_INDEX_VIEWS)  # the two, as the pipeline reads them
        self.strip = OnnxReader(need(STRIP_READER), threads)
        self.face = OnnxReader(need(FACE_READER), threads)

    def read(
        self, image: npt.NDArray[np.uint8], cards: list[UprightCard], others: Iterable[Box] = ()
    ) -> dict[str, Probs]:
        """Rank and suit probabilities of ``cards`` by each of :data:`READINGS`. The face
        counts in ``together`` where no other face-up card's box (of ``cards`` and
        ``others``) covers the card's by more than ``FACE_MOST_COVERED``, as the pipeline
        judges its stage-1 card boxes."""
        if not cards:
            none = {
                "rank": np.zeros((0, len(RANKS)), np.float32),
                "suit": np.zeros((0, len(SUITS)), np.float32),
            }
            return {name: dict(none) for name in READINGS}
        indices, boxes = [c.index for c in cards], [c.box for c in cards]
        first, second, both = (r.read(image, indices) for r in (self.first, self.second, self.both))
        strip = self.strip.read_strips(image, boxes, ZONE_STRIP_VIEWS)
        face = self.face.read_strips(image, boxes, ZONE_STRIP_VIEWS)
        every = np.asarray(boxes + [b for b in others if b not in boxes], np.float32)
        free = uncovered(every, FACE_MOST_COVERED)[: len(boxes)]
        pips = weighed_strips(strip, {h: p[free] for h, p in face.items()}, free, STRIP_WEIGHT, FACE_WEIGHT)
        together: Probs = {
            head: np.asarray(
                [combined(np.stack([both[head][k], pips[h][k]])) for k in range(len(cards))], np.float32
            )
            for h, head in enumerate(("rank", "suit"))
        }
        readings = (first, second, both, strip, face, together)
        return {name: {h: p[h] for h in ("rank", "suit")} for name, p in zip(READINGS, readings, strict=True)}


@dataclass
class ReadersAlone:
    """Cards read, and how many each reading got right in rank, suit and whole card, per group."""

    tallies: dict[str, dict[str, Counter[str]]] = field(default_factory=dict)
    unreadable: int = 0

    def add(self, groups: list[str], card: str, reading: str, name: str) -> None:
        for group in groups:
            tally = self.tallies.setdefault(group, {}).setdefault(reading, Counter())
            tally["cards"] += 1
            tally["rank"] += name[:-1] == card[:-1]
            tally["suit"] += name[-1] == card[-1]
            tally["card"] += name == card

    def to_json(self) -> dict[str, Any]:
        return {
            "groups": {
                group: {
                    reading: {"cards": t["cards"]}
                    | {k: round(t[k] / t["cards"], 4) for k in ("rank", "suit", "card")}
                    for reading, t in ((r, by_reading[r]) for r in READINGS if r in by_reading)
                }
                for group, by_reading in sorted(self.tallies.items())
            },
            "unreadable_images": self.unreadable,
        }


def readers_alone(readers: Readers, dataset: Path, split: str, limit: int | None = None) -> ReadersAlone:
    """Every upright card of a ``synth zones`` split (:func:`upright_cards`) read by each
    reading, grouped as ``all``, ``deck NAME`` and ``mm/px BIN`` (camera sampling). An
    image that cannot be read is counted and left out; a damaged truth file raises
    ``ValueError`` naming it."""
    report = ReadersAlone()
    truths = sorted((dataset / "truth" / split).glob("*.json"))
    for path in spread_limit(truths, limit):
        try:
            truth = json.loads(path.read_text())
            cards = upright_cards(truth)
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}: not a zone crop's truth file ({error!r})") from None
        if not cards:
            continue
        image = cv2.imread(str(dataset / "images" / split / truth["image"]))
        if image is None:
            report.unreadable += 1
            continue
        groups = ["all", f"deck {truth.get('deck', '?')}"]
        if truth.get("camera_mm_per_px") is not None:
            groups.append(f"mm/px {sampling_bin(float(truth['camera_mm_per_px']))}")
        others = [
            _box(o["box"])
            for o in truth["objects"]
            if o["kind"] == "card" and o.get("card") and o.get("box") is not None
        ]
        probs = readers.read(np.asarray(image, np.uint8), cards, others)
        for reading, p in probs.items():
            for card, r, s in zip(cards, p["rank"].argmax(1), p["suit"].argmax(1), strict=True):
                report.add(groups, card.card, reading, RANKS[int(r)] + SUITS[int(s)])
    return report
