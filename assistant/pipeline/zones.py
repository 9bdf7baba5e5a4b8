"""Detections in a zone's crop, read as that zone's cards and chips.

Detections come in the shape of the ``dealer-assistant detect --json`` contract:
``{"cards": [{"card": "Qh", "box": [...], "confidence": 0.97}], "face_down": [{"box": [...]}],
"chips": [{"colour": "red", "count": 5, "box": [...]}]}``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from assistant.engine.cards import Card, UnknownCardError, parse_card
from assistant.pipeline.observations import ZoneRead, bet_zone, seat_zone

#: How far (mm, along the zone's own x and y) a seat's card crop reaches beyond its card
#: zone: a card whose centre lies in the zone is then seen whole, even in a hand spread
#: across the zone's edge (a 63 x 88 mm card reaches 32 mm past it sideways).
CARD_ZONE_MARGIN_MM = (32.0, 20.0)


def card_zone_margins(keys: Iterable[str]) -> dict[str, tuple[float, float]]:
    """The margin each seat's card zone among ``keys`` is cut with (``seatN.cards``);
    other zones are cut as they are.

    >>> card_zone_margins(["seat1.cards", "seat1.bet", "pot"])
    {'seat1.cards': (32.0, 20.0)}
    """
    return {key: CARD_ZONE_MARGIN_MM for key in keys if key.endswith(".cards")}


#: Card reads below this confidence are treated as not seen (the zone stays as it was
#: until a confident read persists) ...
MIN_CARD_CONFIDENCE = 0.5
#: ... but from this confidence on they are kept as the zone's unsure reads, for the
#: dealer to confirm where the camera's reading leaves a question.
UNSURE_CARD_CONFIDENCE = 0.2


def card_standing(confidence: float, min_confidence: float = MIN_CARD_CONFIDENCE) -> str | None:
    """What a zone's reading makes of a card read ``confidence`` sure: ``"counted"``,
    ``"unsure"`` (put to the dealer to confirm) or None (not seen).

    >>> [card_standing(c) for c in (0.9, 0.3, 0.1)]
    ['counted', 'unsure', None]
    """
    if confidence >= min_confidence:
        return "counted"
    return "unsure" if confidence >= UNSURE_CARD_CONFIDENCE else None


def read_zone(detections: Mapping[str, Any], min_confidence: float = MIN_CARD_CONFIDENCE) -> ZoneRead:
    """One zone's reading: distinct face-up cards, face-down count, chips counted, the
    cards read too unsurely to count, and the counted cards the table named apart
    (``renamed_from``: their zone read another card's name)."""
    cards: list[Card] = []
    unsure: dict[Card, float] = {}
    renamed: list[tuple[Card, Card]] = []
    # left to right in the (upright) zone crop: the order a row of cards was dealt in
    items = sorted(detections.get("cards", []), key=_left_edge)
    for item in items:
        confidence = float(item.get("confidence", 1.0))
        try:
            card = parse_card(str(item["card"]))
        except (KeyError, UnknownCardError):
            continue
        standing = card_standing(confidence, min_confidence)
        if standing == "unsure":
            unsure[card] = max(unsure.get(card, 0.0), confidence)
        elif standing == "counted" and card not in cards:
            cards.append(card)
            if "renamed_from" in item:  # named apart from another zone's card (table_names)
                with contextlib.suppress(UnknownCardError):
                    renamed.append((card, parse_card(str(item["renamed_from"]))))
    face_down = len(detections.get("face_down", []))
    chips: int | None = 0
    for stack in detections.get("chips", []):
        count = stack.get("count")
        if count is None or chips is None:
            chips = None
        else:
            chips += int(count)
    guesses = [(card, confidence) for card, confidence in unsure.items() if card not in cards]
    return ZoneRead.of(cards, face_down, chips, guesses, renamed)


def detected_boxes(detections: Mapping[str, Any]) -> list[list[float]]:
    """Every box in a zone's detections: face-up and face-down cards and chip stacks."""
    boxes: list[list[float]] = []
    for group in ("cards", "face_down", "chips"):
        for item in detections.get(group, []):
            box = item.get("box") if isinstance(item, Mapping) else None
            if isinstance(box, list | tuple) and len(box) >= 4:
                boxes.append([float(v) for v in box[:4]])
    return boxes


def within(detections: Mapping[str, Any], inner: Sequence[float]) -> dict[str, Any]:
    """The detections that belong to a zone: those whose box centre (or ``foot``, where a
    chip stack stands) lies inside ``inner`` (x1, y1, x2, y2), the zone itself within a
    crop that takes in a margin around it.
    A card lying across the zone's edge is seen whole and counts where most of it lies.

    >>> queen = {"card": "Qc", "box": [12, 30, 75, 118]}  # its left edge past the zone's
    >>> other = {"card": "2d", "box": [-18, 30, 45, 118]}  # mostly in the margin
    >>> [c["card"] for c in within({"cards": [queen, other]}, (32, 20, 312, 150))["cards"]]
    ['Qc']
    """
    out: dict[str, Any] = dict(detections)
    for group in ("cards", "face_down", "chips"):
        if group in detections:
            out[group] = [item for item in detections[group] if _centre_inside(item, inner)]
    return out


def point_in_zone(x: float, y: float, inner: Sequence[float]) -> bool:
    """Whether the point (``x``, ``y``) lies in the zone ``inner`` (x1, y1, x2, y2; its
    right and bottom edges outside): the one test of what a zone holds, for :func:`within`
    and for an evaluation that judges a crop as the pipeline counts it."""
    x1, y1, x2, y2 = (float(v) for v in inner[:4])
    return x1 <= x < x2 and y1 <= y < y2


def _centre_inside(item: Any, inner: Sequence[float]) -> bool:
    """Whether an item lies in the zone: where it stands (``foot``, a chip stack placed on
    the table) or else its box's centre."""
    box = item.get("box") if isinstance(item, Mapping) else None
    if not isinstance(box, list | tuple) or len(box) < 4:
        return False
    foot = item.get("foot")
    if isinstance(foot, list | tuple) and len(foot) >= 2:
        cx, cy = float(foot[0]), float(foot[1])
    else:
        cx, cy = (float(box[0]) + float(box[2])) / 2.0, (float(box[1]) + float(box[3])) / 2.0
    return point_in_zone(cx, cy, inner)


def card_place(item: Mapping[str, Any]) -> tuple[float, float] | None:
    """Where a detected card lies in its zone crop: the top-left of its leftmost index
    read (boxes of overlapping cards can be loose), else of its box; None if neither."""
    box = item.get("index") or item.get("box")
    if not isinstance(box, list | tuple) or len(box) < 2:
        return None
    try:
        return float(box[0]), float(box[1])
    except (TypeError, ValueError):
        return None


def _left_edge(item: Mapping[str, Any]) -> float:
    place = card_place(item)
    return place[0] if place is not None else 0.0


def layout_zone_keys(seat_numbers: Sequence[int]) -> dict[str, str]:
    """Layout zone keys (``seat3.cards``, seats numbered from 1) to engine zone keys
    (``seat2.cards``, seats numbered from 0 in clockwise order)."""
    keys: dict[str, str] = {}
    for index, number in enumerate(seat_numbers):
        keys[f"seat{number}.cards"] = seat_zone(index)
        keys[f"seat{number}.bet"] = bet_zone(index)
    return keys
