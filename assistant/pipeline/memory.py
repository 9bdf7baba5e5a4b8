"""A card does not change its face while it lies on the table.

A card is read best while nothing covers it: when it has just been dealt on top of a
row. Later the next card covers most of it and only its corner index shows, which the
reader gets wrong more often; and any one frame may catch a card badly (glare, blur, a
hand passing). :class:`CardMemory` remembers, per zone, each face-up card by where its
top-left index lies and every reading it had there, and names it by the weight of all of
them: each reading adds the log-odds of its confidence above ``EVIDENCE_FROM_LOG_ODDS``
to its card (a reading 0.73 sure or less adds nothing), as independent looks at one
card would multiply their odds. So a card read once 0.9 sure stays what it is through
covered readings of another card at 0.6, and a card read 0.85 sure frame after frame
wins over one earlier reading of another card at 0.89. A card that is not seen at its
place for ``forget_after`` readings (picked up, turned over, pushed away) is forgotten,
and an empty zone forgets all.

Chosen on the zone crops of the three validation sets, each zone of each hand read in
frame order (``scripts/detect_evaluate.py --zones --memory``): card identity 0.8885 with
the memory that kept the surest reading alone, 0.9052 with this one; on the held-out
sets 0.8959 and 0.8994 (``models/README.md``, "A memory that weighs every reading").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assistant.pipeline.zones import card_place

#: A reading counts as evidence for its card by the log-odds of its confidence above this
#: (1.0: confidence e / (1 + e), about 0.73); chosen on the validation zone crops.
EVIDENCE_FROM_LOG_ODDS = 1.0


def evidence(confidence: float) -> float:
    """What one reading of a card at ``confidence`` adds to that card's weight (>= 0)."""
    p = min(max(confidence, 1e-6), 1.0 - 1e-6)
    return max(0.0, math.log(p / (1.0 - p)) - EVIDENCE_FROM_LOG_ODDS)


@dataclass
class _Place:
    """One card's place in a zone: the weight of each card read there, and how sure the
    surest reading of each was."""

    x: float
    y: float
    weight: dict[str, float] = field(default_factory=dict)
    surest: dict[str, float] = field(default_factory=dict)
    missed: int = 0

    def add(self, card: str, confidence: float) -> None:
        self.weight[card] = self.weight.get(card, 0.0) + evidence(confidence)
        self.surest[card] = max(self.surest.get(card, 0.0), confidence)

    def card(self) -> str:
        """The card with the most weight here (of equal weights, the one read most surely)."""
        return max(self.weight, key=lambda name: (self.weight[name], self.surest[name]))


class CardMemory:
    """Per-zone memory of face-up cards; feed it each zone's detections (``detect --json``).

    >>> memory = CardMemory()
    >>> on_top = {"cards": [{"card": "Jc", "box": [30, 20, 93, 108], "confidence": 0.9}]}
    >>> memory.recall("seat2.cards", on_top)["cards"][0]["card"]
    'Jc'
    >>> covered = {"cards": [{"card": "Js", "box": [31, 20, 94, 108], "confidence": 0.6}]}
    >>> [memory.recall("seat2.cards", covered)["cards"][0]["card"] for _ in range(5)]
    ['Jc', 'Jc', 'Jc', 'Jc', 'Jc']
    >>> again = {"cards": [{"card": "Jc", "box": [31, 20, 94, 108], "confidence": 0.4}]}
    >>> memory.recall("seat2.cards", again)["cards"][0]["confidence"]  # as sure as it ever was
    0.9
    >>> surer = {"cards": [{"card": "Js", "box": [31, 20, 94, 108], "confidence": 0.85}]}
    >>> [memory.recall("seat2.cards", surer)["cards"][0]["card"] for _ in range(3)]
    ['Jc', 'Js', 'Js']
    """

    def __init__(self, reach_px: float = 12.0, forget_after: int = 5) -> None:
        self.reach_px = reach_px
        self.forget_after = forget_after
        self._zones: dict[str, list[_Place]] = {}

    def forget(self, key: str | None = None) -> None:
        if key is None:
            self._zones.clear()
        else:
            self._zones.pop(key, None)

    def recall(self, key: str, detections: Mapping[str, Any]) -> dict[str, Any]:
        """``detections`` with each face-up card named by the weight of every reading at its
        place, as sure as that card was ever read there."""
        cards = list(detections.get("cards", []))
        if not cards and not detections.get("face_down"):
            self._zones.pop(key, None)  # an empty zone: a new hand starts from nothing
            return dict(detections)
        places = self._zones.setdefault(key, [])
        matched: set[int] = set()
        out: list[dict[str, Any]] = []
        for item in cards:
            where = card_place(item)
            if where is None:
                out.append(dict(item))
                continue
            x, y = where
            near = [
                k
                for k, place in enumerate(places)
                if k not in matched
                and abs(place.x - x) <= self.reach_px
                and abs(place.y - y) <= self.reach_px
            ]
            if near:
                k = min(near, key=lambda j: abs(places[j].x - x) + abs(places[j].y - y))
            else:
                places.append(_Place(x, y))
                k = len(places) - 1
            matched.add(k)
            place = places[k]
            place.x, place.y, place.missed = x, y, 0
            place.add(str(item.get("card")), float(item.get("confidence", 0.0)))
            name = place.card()
            out.append({**item, "card": name, "confidence": place.surest[name]})
        for k, place in enumerate(places):
            if k not in matched:
                place.missed += 1
        self._zones[key] = [place for place in places if place.missed <= self.forget_after]
        return {**detections, "cards": _distinct(out)}


def _distinct(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per card name, the surest (a memory can turn two readings into one card)."""
    best: dict[str, dict[str, Any]] = {}
    for item in cards:
        name = str(item.get("card"))
        if name not in best or float(item.get("confidence", 0)) > float(best[name].get("confidence", 0)):
            best[name] = item
    return [item for item in cards if best.get(str(item.get("card"))) is item]
