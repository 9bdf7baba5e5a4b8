"""Zone crops: a card's left strip (its corner index and the column of pips below it)
is read beside its corner indices, weighed by ``STRIP_WEIGHT``, and settles what a
small or blurred index leaves open."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from assistant.detect import pipeline
from assistant.detect.pipeline import (
    MODELS_DIR,
    STRIP_ALONE_MIN_READING,
    STRIP_WEIGHT,
    CardDetector,
    StripWeight,
    _tempered,
    read_image,
)
from assistant.detect.readers import TRAINED_STRIP
from tests.detect.upright_zone import TUX_BACK, TWO_OF_CLUBS, UPRIGHT, reading_of, stage_1

STRIPS = Path(__file__).parent / "fixtures" / "strips"


@pytest.fixture(scope="module")
def zones() -> CardDetector:
    """The zone detector with its first index reader alone: these fixtures pin what the
    strip does where that reader misreads (stops 20-28). The two index readers read
    together since stop 53 misread other cards (s31-00122's 8c reads 6c with them)."""
    return CardDetector.for_zones(MODELS_DIR, with_wide_reader=False)


def _true_cards(name: str) -> list[str]:
    truth = json.loads((STRIPS / f"{name}.json").read_text())
    return sorted(o["card"] for o in truth["objects"] if o["kind"] == "card" and o["labelled"])


def _cards(detector: CardDetector, name: str) -> list[str]:
    return sorted(c.card for c in detector.detect(read_image(STRIPS / f"{name}.jpg")).cards)


@pytest.mark.parametrize(
    ("name", "without_strips"),
    [
        ("s31-00121_0085_seat2.cards", ["2d"]),  # gnome-orell at 1.8 mm per camera pixel
        ("s31-00122_0130_seat4.cards", ["Tc"]),  # gnome-gnomangelo-bitmap at 1.9 mm
    ],
)
def test_the_pip_column_settles_a_card_whose_small_index_is_misread(
    zones: CardDetector, name: str, without_strips: list[str]
) -> None:
    truth = json.loads((STRIPS / f"{name}.json").read_text())
    true = sorted(o["card"] for o in truth["objects"] if o["kind"] == "card" and o["labelled"])
    strip_reader = zones.strip_reader
    assert strip_reader is not None
    assert _cards(zones, name) == true
    try:
        zones.strip_reader = None  # the corner indices alone
        assert _cards(zones, name) == without_strips != true
    finally:
        zones.strip_reader = strip_reader


def test_only_upright_zone_crops_are_read_by_strips() -> None:
    """The zone detector (also the photo search's, in patches where each card stands
    upright) reads strips; a photo read in one pass, whose cards lie any way round,
    would have its strips cut across the cards."""
    assert CardDetector.for_zones(MODELS_DIR).strip_reader is not None
    assert CardDetector.load(MODELS_DIR).strip_reader is None


def test_a_strip_reading_counts_for_two_index_readings_in_suit_and_one_in_rank() -> None:
    """Since stop 29 the strip reader's suit probabilities (the average of its cuts) are
    raised to 2 and its rank probabilities to 1 before they multiply in, as the strip
    reads suits about as well as an index and ranks far worse: a strip that says 0.99
    spade overrules an index read 0.9999 club, but not one read 0.99999 club, and it
    tips an index torn between two suits; a strip that says 0.99 ace overrules an index
    read 0.98 two, but not one read 0.999 two."""
    assert StripWeight(rank=1.0, suit=2.0) == STRIP_WEIGHT
    strip = _tempered(np.array([0.99, 0.01 / 3, 0.01 / 3, 0.01 / 3], np.float32), STRIP_WEIGHT.suit)
    surer = np.array([0.0001 / 3, 0.9999, 0.0001 / 3, 0.0001 / 3], np.float32)
    surest = np.array([0.00001 / 3, 0.99999, 0.00001 / 3, 0.00001 / 3], np.float32)
    torn = np.array([0.45, 0.45, 0.05, 0.05], np.float32)
    assert int((strip * surer).argmax()) == 0
    assert int((strip * surest).argmax()) == 1
    assert int((strip * torn).argmax()) == 0

    def rank(top: int, p: float) -> np.ndarray:
        probs = np.full(13, (1 - p) / 12, np.float32)
        probs[top] = p
        return probs

    ace = _tempered(rank(0, 0.99), STRIP_WEIGHT.rank)
    assert int((ace * rank(1, 0.98)).argmax()) == 0
    assert int((ace * rank(1, 0.999)).argmax()) == 1


def test_a_card_box_whose_corners_show_no_index_is_read_from_its_pip_column_when_that_is_sure(
    zones: CardDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kde-nicu-white at 1.0 mm per camera pixel: the ten's index lies off the crop's edge."""
    name = "s601-00007_0099_seat2.cards"
    true = _true_cards(name)
    assert _cards(zones, name) == true
    monkeypatch.setattr(pipeline, "STRIP_ALONE_MIN_READING", 1.01)  # never
    assert _cards(zones, name) == sorted(set(true) - {"Tc"})


def test_a_pip_column_read_as_its_card_in_one_cut_only_is_not_sure_enough_to_read_the_card_alone(
    zones: CardDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gnome-ornamental at 1.6 mm: the 4 of clubs' thin index is found in neither corner.
    Its strip cut at stage 1's box reads 4 of clubs 0.98 sure, and read that way alone
    (stops 25-27: one cut, weight 1) the card is read; cut 3 px up and left the strip
    reads a ten, and cut at the card's true box too. Read in the zone cuts (stop 28),
    the card is under the bar and lost, and nothing wrong is read in its place."""
    name = "s1201-00028_0355_seat3.cards"
    true = _true_cards(name)
    assert _cards(zones, name) == sorted(set(true) - {"4c"})
    monkeypatch.setattr(zones, "strip_views", TRAINED_STRIP)
    monkeypatch.setattr(zones, "strip_weight", StripWeight.both(1.0))
    assert _cards(zones, name) == true
    monkeypatch.setattr(pipeline, "STRIP_ALONE_MIN_READING", 1.01)  # never
    assert _cards(zones, name) == sorted(set(true) - {"4c"})


@pytest.mark.parametrize(("sure", "read"), [(0.85, False), (0.95, True)])
def test_a_strip_alone_reads_a_card_only_when_read_surely(
    zones: CardDetector, monkeypatch: pytest.MonkeyPatch, sure: float, read: bool
) -> None:
    """A reading is its rank's probability times its suit's: 0.85 of each is under the
    bar, 0.95 of each over it."""
    assert (sure**2 >= STRIP_ALONE_MIN_READING) == read
    image = read_image(UPRIGHT)
    monkeypatch.setattr(zones, "_upright_corners", lambda image, box: [])
    monkeypatch.setattr(zones, "_strip_readings", lambda image, boxes: {0: reading_of("9d", sure)})
    cards = zones.interpret(image, stage_1(zones, (TWO_OF_CLUBS, "card"))).cards
    assert [c.card for c in cards] == (["9d"] if read else [])
    assert all(c.by_geometry for c in cards)


def test_a_strip_alone_does_not_read_a_box_with_next_to_no_card_face_white(
    zones: CardDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A back taken for a card shows no pip column, whatever the strip reader makes of it."""
    image = read_image(UPRIGHT)
    monkeypatch.setattr(zones, "_upright_corners", lambda image, box: [])
    monkeypatch.setattr(zones, "_strip_readings", lambda image, boxes: {0: reading_of("9d", 0.999)})
    assert zones.interpret(image, stage_1(zones, (TUX_BACK, "card"))).cards == []
