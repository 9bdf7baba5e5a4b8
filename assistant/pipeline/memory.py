"""A card does not change its face while it lies on the table.

A card is read best while nothing covers it: when it has just been dealt on top of a
row. Later the next card covers most of it and only its corner index shows, which the
reader gets wrong more often. :class:`CardMemory` remembers, per zone, each face-up card
by where its top-left index lies and the surest reading it ever had there; a later,
less sure reading of a different card at the same place is taken for a misread and
replaced by the remembered card. A surer reading of another card wins over the memory
(the first look was the poor one) once it has been read there ``switch_after`` times in
a row: a card sliding in beside it, or a hand passing, shows a corner that reads surely
as something else for a frame or two. A card that is not seen at its place for
``forget_after`` readings (picked up, turned over, pushed away) is forgotten, and an
empty zone forgets all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assistant.pipeline.zones import card_place


@dataclass
class _Seen:
    x: float
    y: float
    card: str
    confidence: float
    missed: int = 0
    challenger: str = ""  # a surer reading of another card at this place ...
    challenges: int = 0  # ... and how many times in a row it was read


class CardMemory:
    """Per-zone memory of face-up cards; feed it each zone's detections (``detect --json``).

    >>> memory = CardMemory()
    >>> on_top = {"cards": [{"card": "Jc", "box": [30, 20, 93, 108], "confidence": 0.9}]}
    >>> memory.recall("seat2.cards", on_top)["cards"][0]["card"]
    'Jc'
    >>> covered = {"cards": [{"card": "Js", "box": [31, 20, 94, 108], "confidence": 0.6}]}
    >>> memory.recall("seat2.cards", covered)["cards"][0]["card"]
    'Jc'
    >>> again = {"cards": [{"card": "Jc", "box": [31, 20, 94, 108], "confidence": 0.4}]}
    >>> memory.recall("seat2.cards", again)["cards"][0]["confidence"]  # as sure as it ever was
    0.9
    >>> surer = {"cards": [{"card": "Js", "box": [31, 20, 94, 108], "confidence": 0.95}]}
    >>> [memory.recall("seat2.cards", surer)["cards"][0]["card"] for _ in range(3)]
    ['Jc', 'Jc', 'Js']
    """

    def __init__(self, reach_px: float = 12.0, forget_after: int = 5, switch_after: int = 3) -> None:
        self.reach_px = reach_px
        self.forget_after = forget_after
        self.switch_after = switch_after
        self._zones: dict[str, list[_Seen]] = {}

    def forget(self, key: str | None = None) -> None:
        if key is None:
            self._zones.clear()
        else:
            self._zones.pop(key, None)

    def recall(self, key: str, detections: Mapping[str, Any]) -> dict[str, Any]:
        """``detections`` with each face-up card's name as surely as it was ever read there."""
        cards = list(detections.get("cards", []))
        if not cards and not detections.get("face_down"):
            self._zones.pop(key, None)  # an empty zone: a new hand starts from nothing
            return dict(detections)
        seen = self._zones.setdefault(key, [])
        matched: set[int] = set()
        out: list[dict[str, Any]] = []
        for item in cards:
            place = card_place(item)
            if place is None:
                out.append(dict(item))
                continue
            x, y = place
            name, confidence = str(item.get("card")), float(item.get("confidence", 0.0))
            near = [
                k
                for k, s in enumerate(seen)
                if k not in matched and abs(s.x - x) <= self.reach_px and abs(s.y - y) <= self.reach_px
            ]
            if not near:
                seen.append(_Seen(x, y, name, confidence))
                matched.add(len(seen) - 1)
                out.append(dict(item))
                continue
            k = min(near, key=lambda j: abs(seen[j].x - x) + abs(seen[j].y - y))
            matched.add(k)
            memo = seen[k]
            memo.missed = 0
            if memo.card == name:  # read again: as sure as it ever was
                memo.x, memo.y = x, y
                memo.confidence = max(memo.confidence, confidence)
                memo.challenger, memo.challenges = "", 0
                out.append({**item, "confidence": memo.confidence})
                continue
            if confidence > memo.confidence:  # the first look may have been the poor one
                same = memo.challenger == name
                memo.challenger, memo.challenges = name, memo.challenges + 1 if same else 1
                if memo.challenges >= self.switch_after:
                    memo.x, memo.y, memo.card, memo.confidence = x, y, name, confidence
                    memo.challenger, memo.challenges = "", 0
                    out.append(dict(item))
                    continue
            else:
                memo.challenger, memo.challenges = "", 0
            # another card read where this one lies, less surely or not yet for long: a misread
            out.append({**item, "card": memo.card, "confidence": memo.confidence})
        for k, s in enumerate(seen):
            if k not in matched:
                s.missed += 1
        self._zones[key] = [s for s in seen if s.missed <= self.forget_after]
        return {**detections, "cards": _distinct(out)}


def _distinct(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per card name, the surest (a memory can turn two readings into one card)."""
    best: dict[str, dict[str, Any]] = {}
    for item in cards:
        name = str(item.get("card"))
        if name not in best or float(item.get("confidence", 0)) > float(best[name].get("confidence", 0)):
            best[name] = item
    return [item for item in cards if best.get(str(item.get("card"))) is item]
