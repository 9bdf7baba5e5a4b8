"""A deck holds every card once: no two places at the table show the same card.

Each zone's crop is read on its own (a seat's cards, :mod:`assistant.pipeline.zones`), and
within one zone the detector keeps one card of each name. A card counts in the one zone its
centre lies in, so two zones of one frame that read the same name hold one misreading.
:func:`name_table` gives the cards of all the zones of a frame distinct names: of the names
each card's readings make likeliest (``"names"``, the detector's
:func:`~assistant.detect.grouping.likeliest_names`), the choice with the greatest summed log
probability (:func:`distinct_names`), so the card whose reading gives the name up at the
least cost takes its next likeliest name. A card that keeps its name stands as read. A
renamed card is as sure as its box was times its new name's share of what the names held by
the table's other cards leave it, and carries the name it was read as (``renamed_from``):
the zone's reading marks it and the referee puts it to the dealer to confirm, however sure:
half the cards it renamed on fresh hands of unseen designs were still wrong (101 of 202).
Chosen in stop 59 (``models/README.md``, "Names no other zone holds"); within one zone the
same clash is nearly always one card boxed twice, so there the surer reading stays and the
other is dropped (:func:`assistant.detect.pipeline.one_of_each`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

Names = Sequence[tuple[str, float]]

#: A card left with no name costs as much as a name this likely: no card is given a name
#: its readings make less likely than this.
NO_NAME_PROBABILITY = 1e-6


def distinct_names(names: Sequence[Names]) -> list[str | None]:
    """For cards with these likeliest names (each with its probability), one name each,
    no two the same, with the greatest summed log probability; None for a card that is
    left with no name of its own at least ``NO_NAME_PROBABILITY`` likely.

    >>> distinct_names([(("7s", 0.95), ("7c", 0.04)), (("7s", 0.8), ("7c", 0.18))])
    ['7s', '7c']
    >>> distinct_names([(("7s", 0.9),), (("7s", 0.8),)])
    ['7s', None]
    """
    from scipy.optimize import linear_sum_assignment

    columns = sorted({name for card in names for name, _ in card})
    where = {name: j for j, name in enumerate(columns)}
    no_name = -math.log(NO_NAME_PROBABILITY)
    cost = np.full((len(names), len(columns) + len(names)), no_name * 1e3)  # not one of its names
    cost[:, len(columns) :] = no_name
    for i, card in enumerate(names):
        for name, p in card:
            cost[i, where[name]] = min(-math.log(max(p, 1e-300)), no_name * 1e3)
    given: list[str | None] = [None] * len(names)
    for i, j in zip(*linear_sum_assignment(cost), strict=True):
        if j < len(columns) and cost[i, j] < no_name:
            given[i] = columns[j]
    return given


def candidates(item: Mapping[str, Any]) -> dict[str, float]:
    """A detected card's names and their probabilities: its likeliest ``names`` with its own
    name among them (the card memory may have named it otherwise than this reading)."""
    named = {str(n): float(p) for n, p in item.get("names") or ()}
    named.setdefault(str(item.get("card")), float(item.get("confidence", 0.0)))
    return named


def name_table(zones: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The zones' detections (``detect --json`` dicts, each card with its ``names``) with
    no name on two cards of the table: where names clash, each card of the table takes the
    name :func:`distinct_names` gives it. A renamed card keeps its box and place and is as
    sure as ``renamed_confidence`` says; a card given no name stands as read (the referee
    puts the clash to the dealer). Zones with nothing renamed come back as they were.

    >>> seat1 = {"cards": [{"card": "7s", "confidence": 0.9, "names": [["7s", 0.95], ["7c", 0.04]]}]}
    >>> seat2 = {"cards": [{"card": "7s", "confidence": 0.8, "names": [["7s", 0.8], ["7c", 0.18]]}]}
    >>> named = name_table({"seat0.cards": seat1, "seat1.cards": seat2})
    >>> [(c["card"], round(c["confidence"], 2)) for z in named.values() for c in z["cards"]]
    [('7s', 0.9), ('7c', 0.9)]
    """
    out = {key: dict(found) for key, found in zones.items()}
    places = [(key, k) for key, found in zones.items() for k in range(len(found.get("cards") or ()))]
    read = [zones[key]["cards"][k] for key, k in places]
    if len({str(item.get("card")) for item in read}) == len(read):
        return out
    names = [candidates(item) for item in read]
    given = distinct_names([tuple(n.items()) for n in names])
    for i, ((key, k), item, name) in enumerate(zip(places, read, given, strict=True)):
        if name is None or name == str(item.get("card")):
            continue
        others = {g for j, g in enumerate(given) if j != i and g is not None}
        confidence = renamed_confidence(item, names[i], name, others)
        cards = out[key]["cards"] = list(out[key]["cards"])
        cards[k] = {**item, "card": name, "confidence": confidence, "renamed_from": str(item.get("card"))}
    return out


def renamed_confidence(
    item: Mapping[str, Any], names: Mapping[str, float], name: str, others: set[str]
) -> float:
    """How sure a card read ``item["card"]`` is to be ``name`` once the table's other cards
    hold ``others``: its box's confidence (its confidence over its name's probability) times
    ``name``'s probability over what the names held elsewhere leave.

    >>> seven = {"card": "7s", "confidence": 0.72}
    >>> round(renamed_confidence(seven, {"7s": 0.8, "7c": 0.18}, "7c", {"7s"}), 3)
    0.81
    """
    own = names.get(str(item.get("card")), 0.0)
    box = min(1.0, float(item.get("confidence", 0.0)) / own) if own > 0 else 1.0
    p = names.get(name, 0.0)
    left = 1.0 - sum(names.get(n, 0.0) for n in others)
    return box * min(1.0, p / max(left, p, 1e-12))
