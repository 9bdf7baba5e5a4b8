"""Card strips drawn in system fonts: what the strip reader learns unseen pip columns from."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.detect.crops import STRIP_MARGIN, STRIP_SIZE
from assistant.detect.labels import RANKS, card_name
from assistant.synth.font_indices import FontSet
from assistant.synth.font_strips import LAYOUTS, draw_strip, font_strip_patches

PAD = 6


@pytest.mark.parametrize("rank", "23456789T")
def test_a_pip_card_has_as_many_pips_as_its_rank_laid_out_two_headed(rank: str) -> None:
    """The French layout: N pips, the picture the same after a half turn of the card but
    for the seven, whose odd pip stands in the upper half."""
    pips = LAYOUTS[rank]
    assert len(pips) == (10 if rank == "T" else int(rank))
    if rank == "7":
        assert (0, 0.25) in pips
        pips = tuple(p for p in pips if p != (0, 0.25))
    turned = sorted((-column, round(1 - row, 6)) for column, row in pips)
    assert sorted((column, round(row, 6)) for column, row in pips) == turned
    assert all(column in (-1, 0, 1) and 0 <= row <= 1 for column, row in pips)


def test_every_card_is_drawn_equally_often_cut_as_zone_strips_are(fonts: FontSet) -> None:
    patches, ranks, suits = font_strip_patches(3, 104, PAD)
    width, height = STRIP_SIZE
    assert patches.shape == (104, height + 2 * PAD, width + 2 * PAD, 3) and patches.dtype == np.uint8
    assert np.bincount(ranks * 4 + suits, minlength=52).tolist() == [2] * 52
    again, _, _ = font_strip_patches(3, 104, PAD, workers=2)
    assert np.array_equal(patches, again), "the same seed draws the same, whatever the workers"
    other, _, _ = font_strip_patches(4, 104, PAD)
    assert not np.array_equal(patches, other)


def _ink_redness(patch: np.ndarray) -> float:
    """Red minus the other channels over the darkest pixels of the card's corner index."""
    x0, y0 = STRIP_MARGIN[0] + PAD, STRIP_MARGIN[1] + PAD
    corner = patch[y0 : y0 + 24, x0 : x0 + 14].astype(np.float32)
    dark = corner.sum(-1) <= np.percentile(corner.sum(-1), 12)
    b, g, r = (corner[..., c][dark].mean() for c in range(3))
    return float(r - (b + g) / 2)


def test_the_targets_name_the_drawn_card_and_its_index_stands_in_the_top_left(fonts: FontSet) -> None:
    """A strip labelled a heart or a diamond has red ink where the card's index stands (the
    top-left of the strip, inside its margin), one labelled a spade or a club dark ink."""
    rng = np.random.default_rng(0)
    redness: dict[str, list[float]] = {s: [] for s in "cdhs"}
    for k in range(64):
        drawn = draw_strip(rng, fonts, PAD, rank=k % 13, suit=k % 4)
        redness[card_name(drawn.rank, drawn.suit)[-1]].append(_ink_redness(drawn.patch))
    assert np.median(redness["h"]) > 30 and np.median(redness["d"]) > 30
    assert np.median(redness["s"]) < 15 and np.median(redness["c"]) < 15


def test_a_ten_shows_more_ink_down_its_left_column_than_a_three(fonts: FontSet) -> None:
    """The body follows the rank: a ten's left column holds four pips, a three's none (its
    pips stand in the centre column, at the strip's right edge)."""
    rng = np.random.default_rng(1)

    def column_ink(rank: str) -> float:
        inks = []
        for k in range(12):
            drawn = draw_strip(rng, fonts, PAD, rank=RANKS.index(rank), suit=k % 4)
            column = drawn.patch[PAD + 30 : PAD + 70, PAD + 12 : PAD + 26].astype(np.float32)
            inks.append(float((column.sum(-1) < 300).mean()))
        return float(np.median(inks))

    assert column_ink("T") > column_ink("3") + 0.05


def test_an_off_colour_share_inks_some_hearts_strips_in_other_colours(fonts: FontSet) -> None:
    """Four-colour decks: with a share of half, the index and pips of about half the
    hearts are inked in a colour other than red; with none, all of them are red."""
    share_not_red = {}
    for off in (0.0, 0.5):
        rng = np.random.default_rng(5)
        redness = [
            _ink_redness(draw_strip(rng, fonts, PAD, rank=k % 13, suit=2, off_colour=off).patch)
            for k in range(48)
        ]
        share_not_red[off] = float(np.mean(np.array(redness) < 20))
    # the measure is rough (the darkest pixels of the corner are not always ink): compare
    assert share_not_red[0.5] >= share_not_red[0.0] + 0.15, share_not_red


def test_a_strip_as_wide_as_a_card_face_shows_its_centre_column(fonts: FontSet) -> None:
    """Drawn 72 mm wide (a whole face), an eight shows the two pips of its centre column
    that a six has not; both share the left column the 40 mm strip shows."""
    rng = np.random.default_rng(2)
    face = (72, 88)

    def centre_ink(rank: str) -> float:
        inks = []
        for k in range(12):
            drawn = draw_strip(rng, fonts, PAD, rank=RANKS.index(rank), suit=k % 4, size=face)
            assert drawn.patch.shape == (88 + 2 * PAD, 72 + 2 * PAD, 3)
            x0 = PAD + STRIP_MARGIN[0]
            column = drawn.patch[PAD + 25 : PAD + 65, x0 + 25 : x0 + 38].astype(np.float32)
            inks.append(float((column.sum(-1) < 300).mean()))
        return float(np.median(inks))

    assert centre_ink("8") > centre_ink("6") + 0.03
