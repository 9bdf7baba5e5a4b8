"""Naming a photo's cards by the votes of every patch that read them."""

from __future__ import annotations

from assistant.detect.photo_votes import PatchRead, named_by_vote, places
from assistant.detect.pipeline import Card

HERE = (100.0, 100.0, 163.0, 188.0)
NEARBY = (104.0, 98.0, 166.0, 190.0)  # the same place, read a little off
APART = (300.0, 100.0, 363.0, 188.0)
Box = tuple[float, float, float, float]


def _reads(name: str, box: Box, *confidences: float, first: int = 0) -> list[PatchRead]:
    return [PatchRead(first + k, Card(name, box, c)) for k, c in enumerate(confidences)]


def test_a_place_is_named_by_the_sum_of_its_reads_not_by_its_surest() -> None:
    reads = _reads("5h", HERE, 0.8, 0.7, 0.9) + _reads("7d", NEARBY, 0.99, first=3)
    (place,) = places(reads, 0.5)
    assert place.card.card == "5h" and place.card.box == HERE and place.card.confidence == 0.9
    assert abs(place.votes - 2.4) < 1e-9


def test_a_patch_votes_once_for_a_name_with_its_surest_read() -> None:
    reads = [PatchRead(0, Card("5h", HERE, 0.9)), PatchRead(0, Card("5h", NEARBY, 0.8))]
    reads += _reads("7d", NEARBY, 0.6, 0.6, first=1)
    (place,) = places(reads, 0.5)
    assert place.card.card == "7d" and abs(place.votes - 1.2) < 1e-9


def test_reads_apart_are_places_apart() -> None:
    reads = _reads("5h", HERE, 0.9, 0.9) + _reads("Kc", APART, 0.9, 0.9, first=2)
    assert sorted(p.card.card for p in places(reads, 0.5)) == ["5h", "Kc"]


def test_a_place_voted_for_less_than_the_bar_is_no_card() -> None:
    reads = _reads("5h", HERE, 0.9, 0.9) + _reads("Kc", APART, 0.99)
    assert [c.card for c in named_by_vote(reads, 0.5, 1.5)] == ["5h"]
    assert sorted(c.card for c in named_by_vote(reads, 0.5, 0.9)) == ["5h", "Kc"]


def test_a_name_goes_to_its_best_voted_place_only() -> None:
    """A deck holds each card once: the same name read at two places is one card, where
    more patches read it."""
    reads = _reads("5h", HERE, 0.9, 0.9) + _reads("5h", APART, 0.95, 0.95, 0.95, first=2)
    (card,) = named_by_vote(reads, 0.5, 1.5)
    assert card.box == APART
