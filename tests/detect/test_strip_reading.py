"""Zone crops: a card's left strip (its corner index and the column of pips below it)
is read beside its corner indices, weighed by ``STRIP_WEIGHT``, and settles what a
small or blurred index leaves open."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from assistant.detect.pipeline import MODELS_DIR, STRIP_WEIGHT, CardDetector, _tempered, read_image

STRIPS = Path(__file__).parent / "fixtures" / "strips"


@pytest.fixture(scope="module")
def zones() -> CardDetector:
    return CardDetector.for_zones(MODELS_DIR)


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


def test_a_strip_reading_counts_as_much_as_an_index_reading() -> None:
    """Since stop 22 the strip reader's probabilities multiply in at full weight: a strip
    that says 0.99 spade overrules an index read 0.9 club, but not one read 0.999 club,
    and it tips an index torn between two suits."""
    strip = _tempered(np.array([0.99, 0.01 / 3, 0.01 / 3, 0.01 / 3], np.float32))
    unsure = np.array([0.1 / 3, 0.9, 0.1 / 3, 0.1 / 3], np.float32)
    sure = np.array([0.001 / 3, 0.999, 0.001 / 3, 0.001 / 3], np.float32)
    torn = np.array([0.45, 0.45, 0.05, 0.05], np.float32)
    assert STRIP_WEIGHT == 1.0
    assert int((strip * unsure).argmax()) == 0
    assert int((strip * sure).argmax()) == 1
    assert int((strip * torn).argmax()) == 0
