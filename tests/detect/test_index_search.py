"""Cards read at their corners by searching the sizes and places designs print indices at."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from assistant.detect.backends import box_iou
from assistant.detect.corners import upright_index_boxes, upright_index_candidates
from assistant.detect.grouping import read_card
from assistant.detect.labels import RANKS, SUITS
from assistant.detect.pipeline import (
    MODELS_DIR,
    SEARCH_VIEWS,
    ZONE_INDEX_VIEWS,
    Card,
    CardDetector,
    read_image,
)
from assistant.synth.decks import load_records

FIXTURES = Path(__file__).parent / "fixtures"
#: kde-nicu-white (a validation deck): indices 31 mm tall, which stage 1 at its size misses
NICU = FIXTURES / "rescan" / "00124_0394_seat4.cards.jpg"
NICU_9D = (5.4, 19.3, 63.7, 106.0)  # stage 1's box of the 9d, the leftmost card of the row
#: gnome-tango (a validation deck): stage 1 finds the 8c's top-left index, but boxes it so that
#: it reads as a 10 in the average of every view
TANGO = FIXTURES / "search" / "s601-00003_0070_seat3.cards.jpg"


@pytest.fixture(scope="module")
def zones() -> CardDetector:
    return CardDetector.for_zones(MODELS_DIR)


def test_the_search_takes_in_the_index_of_every_design_that_prints_rank_over_pip() -> None:
    """Each deck design's top-left index box (decks.json, fractions of the card) is
    matched by one of the searched boxes, from 15 mm tall indices to the Nicu decks' 31."""
    # tuples at run time (its Box type also allows arrays, which box_iou is not typed for)
    candidates = cast(list[Sequence[float]], upright_index_candidates((0, 0, 63, 88)))
    judged = 0
    for deck in load_records():
        u0, v0, u1, v1 = deck.index_box
        if not deck.index_has_suit or (v1 - v0) * 88 < 12:  # Oxygen's and Future's small squares
            continue
        index = (u0 * 63, v0 * 88, u1 * 63, v1 * 88)
        assert max(box_iou(index, c) for c in candidates) >= 0.6, deck.id
        judged += 1
    assert judged >= 35


def test_the_bottom_right_candidates_are_the_top_left_ones_turned_half_round() -> None:
    box = (10.0, 20.0, 73.0, 108.0)
    for tl, br in zip(upright_index_candidates(box), upright_index_candidates(box, "br"), strict=True):
        np.testing.assert_allclose([tl[0] - 10, tl[1] - 20], [73 - br[2], 108 - br[3]], atol=0.02)
        np.testing.assert_allclose([tl[2] - tl[0], tl[3] - tl[1]], [br[2] - br[0], br[3] - br[1]], atol=0.02)


def test_a_big_index_that_stage_1_missed_is_read_where_the_search_finds_it(zones: CardDetector) -> None:
    image = read_image(NICU)
    box = np.array(NICU_9D, np.float32)
    fixed = zones.index_reader.read_turned(image, upright_index_boxes(box), 0, SEARCH_VIEWS)
    name, p = read_card(fixed["rank"].mean(0)[None], fixed["suit"].mean(0)[None])
    assert name != "9d" and p < 0.5  # the one place of the earlier reading cuts through it
    card = zones._read_upright_corner(image, box, 0.85)
    assert card is not None and card.card == "9d" and card.confidence > 0.8 and card.by_geometry


def test_a_card_whose_stage_1_index_is_misread_is_read_again_with_its_searched_corners() -> None:
    """Read in all 27 views, stage 1's box of the 8c's top-left index reads as the 10 of
    clubs, and the card as Tc, unsure; with the corners searched at the design's index
    size the card reads 8c, surely. Pinned with the first index reader alone (the two read
    together since stop 53 read this index otherwise)."""
    truth = json.loads(TANGO.with_suffix(".json").read_text())
    assert [o["card"] for o in truth["objects"] if o["kind"] == "card" and o["labelled"]] == ["8c"]
    image = read_image(TANGO)
    every_view = CardDetector.for_zones(MODELS_DIR, with_wide_reader=False)
    every_view.index_reader.views = replace(ZONE_INDEX_VIEWS, enough=None)
    every_view.strip_reader = None  # the corner indices alone: this pins the corner search
    unsearched = every_view.detect(image, reread=False).cards
    assert [c.card for c in unsearched] == ["Tc"]
    eight = [c for c in every_view.detect(image).cards if c.card == "8c"]
    assert len(eight) == 1 and eight[0].index is not None and not eight[0].by_geometry
    alone = every_view.index_reader.read_turned(image, [eight[0].index], 0)
    assert RANKS[int(alone["rank"][0].argmax())] + SUITS[int(alone["suit"][0].argmax())] == "Tc"
    assert eight[0].confidence > 0.8


def test_a_card_read_surely_from_its_stage_1_indices_is_not_searched_again(
    zones: CardDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the shipped views (an index read surely in the trained view keeps that
    reading) the same 8c reads right from its stage-1 indices, at least REREAD_BELOW
    sure, so its corners are not searched. (The 7 of spades a third in view under it has
    no stage-1 index and is read from its box's corners, by geometry: since stop 31 it
    is kept beside the 8c when read at least ``GEOMETRY_SURE_READING`` sure.)"""
    image = read_image(TANGO)
    searched: list[str] = []
    reread = zones._with_searched_corners

    def searching(*a: Any) -> object:
        searched.append(a[1].card)
        return reread(*a)

    monkeypatch.setattr(zones, "_with_searched_corners", searching)

    def from_indices(cards: list[Card]) -> list[str]:
        return [c.card for c in cards if not c.by_geometry]

    assert from_indices(zones.detect(image).cards) == ["8c"] and searched == []
    monkeypatch.setattr("assistant.detect.pipeline.REREAD_BELOW", 1.01)  # every card searched again
    assert from_indices(zones.detect(image).cards) == ["8c"] and searched == ["8c"]
