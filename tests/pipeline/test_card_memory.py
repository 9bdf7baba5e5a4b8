"""The camera pipeline's card memory: a card is named by the weight of all its readings."""

from __future__ import annotations

from typing import Any

import pytest

from assistant.pipeline.memory import EVIDENCE_FROM_LOG_ODDS, CardMemory, evidence


def _zone(*cards: tuple[str, float, float]) -> dict[str, Any]:
    """A zone's detections: (card, confidence, x of its box's left edge) each."""
    return {"cards": [{"card": c, "box": [x, 20.0, x + 63.0, 108.0], "confidence": p} for c, p, x in cards]}


def _names(out: dict[str, Any]) -> list[str]:
    return [c["card"] for c in out["cards"]]


def test_a_reading_at_most_073_sure_adds_no_weight() -> None:
    assert evidence(0.5) == 0.0 and evidence(0.73) == 0.0
    assert evidence(0.9) == pytest.approx(2.1972 - EVIDENCE_FROM_LOG_ODDS, abs=1e-4)
    assert evidence(1.0) > evidence(0.99) > evidence(0.9) > 0.0


def test_a_card_read_surely_once_keeps_its_name_through_unsure_covered_readings() -> None:
    memory = CardMemory()
    assert _names(memory.recall("seat1.cards", _zone(("9s", 0.9, 30)))) == ["9s"]
    for _ in range(20):
        out = memory.recall("seat1.cards", _zone(("9c", 0.7, 31)))
        assert _names(out) == ["9s"] and out["cards"][0]["confidence"] == 0.9


def test_steady_readings_of_a_card_outweigh_one_surer_misreading_of_it() -> None:
    # the memory that kept only the surest reading held the first look (9c, 0.89) for good
    memory = CardMemory()
    assert _names(memory.recall("seat3.cards", _zone(("9c", 0.89, 78)))) == ["9c"]
    named = [_names(memory.recall("seat3.cards", _zone(("9s", 0.83, 78))))[0] for _ in range(3)]
    assert named == ["9c", "9s", "9s"]


def test_cards_in_a_row_are_remembered_each_at_its_own_place() -> None:
    memory = CardMemory()
    memory.recall("seat2.cards", _zone(("Kh", 0.95, 10), ("4d", 0.95, 40)))
    out = memory.recall("seat2.cards", _zone(("Kd", 0.6, 11), ("4d", 0.8, 41), ("7c", 0.9, 70)))
    assert _names(out) == ["Kh", "4d", "7c"]


def test_a_card_gone_from_its_place_is_forgotten_and_an_empty_zone_forgets_all() -> None:
    memory = CardMemory(forget_after=2)
    memory.recall("seat4.cards", _zone(("Qs", 0.99, 30), ("2h", 0.95, 90)))
    for _ in range(3):  # the queen is picked up; the two stays
        memory.recall("seat4.cards", _zone(("2h", 0.95, 90)))
    assert _names(memory.recall("seat4.cards", _zone(("Qc", 0.6, 30), ("2h", 0.95, 90)))) == ["Qc", "2h"]
    memory.recall("seat4.cards", {"cards": [], "face_down": []})
    assert _names(memory.recall("seat4.cards", _zone(("2d", 0.6, 90)))) == ["2d"]


def test_two_places_read_as_one_card_are_reported_once_the_surer() -> None:
    memory = CardMemory()
    out = memory.recall("seat5.cards", _zone(("Ah", 0.8, 10), ("Ah", 0.95, 60)))
    assert out["cards"] == [{"card": "Ah", "box": [60.0, 20.0, 123.0, 108.0], "confidence": 0.95}]
