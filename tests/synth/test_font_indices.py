"""Corner indices drawn in system fonts: what the index reader learns unseen designs from."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assistant.synth import font_indices
from assistant.synth.font_indices import (
    FONT_PACKAGES,
    SUITS,
    FontSet,
    NoFontsError,
    draw_index,
    font_index_patches,
    system_fonts,
)

ROOT = Path(__file__).resolve().parents[2]
CONTEXT = 1.84  # the index box inside the patch, as the reader's training crops have it


@pytest.fixture(scope="module")
def fonts() -> FontSet:
    try:
        return system_fonts()
    except NoFontsError as error:
        pytest.skip(str(error))


def test_the_test_install_brings_the_font_packages() -> None:
    script = (ROOT / "scripts" / "install.sh").read_text()
    for package in FONT_PACKAGES:
        assert package in script


def test_rank_glyphs_come_from_text_fonts_and_pips_from_fonts_that_draw_suits(fonts: FontSet) -> None:
    assert len(fonts.text) >= 10, "a handful of fonts teaches a handful of designs"
    assert fonts.suits, "no font draws the card suits"
    for path in fonts.text:
        assert not any(word in path.name.lower() for word in ("math", "symbol", "dingbat"))


def test_no_fonts_is_a_clear_error_naming_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(font_indices, "_fc_list", lambda pattern: [])
    system_fonts.cache_clear()
    try:
        with pytest.raises(NoFontsError, match="fonts-dejavu"):
            system_fonts()
    finally:
        monkeypatch.undo()
        system_fonts.cache_clear()


def test_every_card_is_drawn_equally_often_and_the_same_seed_draws_the_same(fonts: FontSet) -> None:
    patches, ranks, suits = font_index_patches(5, 104, 52, CONTEXT)
    assert patches.shape == (104, 52, 52, 3) and patches.dtype == np.uint8
    counts = np.bincount(ranks * 4 + suits, minlength=52)
    assert counts.tolist() == [2] * 52
    again, _, _ = font_index_patches(5, 104, 52, CONTEXT)
    assert np.array_equal(patches, again)
    other, _, _ = font_index_patches(6, 104, 52, CONTEXT)
    assert not np.array_equal(patches, other)


def test_hearts_and_diamonds_are_inked_red_spades_and_clubs_black_in_the_patch_centre(fonts: FontSet) -> None:
    rng = np.random.default_rng(0)
    redness: dict[str, list[float]] = {s: [] for s in SUITS}
    for k in range(80):
        suit = k % 4
        patch = draw_index(rng, fonts, 52, CONTEXT, rank=k % 13, suit=suit).patch.astype(np.float32)
        centre = patch[16:36, 16:36]  # the index box fills the middle 1/1.84 of the patch
        dark = centre.sum(-1) < np.percentile(centre.sum(-1), 15)  # the ink
        b, g, r = (centre[..., c][dark].mean() for c in range(3))
        redness[SUITS[suit]].append(r - (b + g) / 2)
    assert np.median(redness["h"]) > 40 and np.median(redness["d"]) > 40
    assert np.median(redness["s"]) < 15 and np.median(redness["c"]) < 15


def test_the_index_lies_in_the_middle_of_its_patch_like_a_labelled_one(fonts: FontSet) -> None:
    """Red ink sits where the reader's crop of a detected index box puts an index."""
    rng = np.random.default_rng(1)
    offsets = []
    for k in range(60):
        patch = draw_index(rng, fonts, 52, CONTEXT, rank=k % 13, suit=1 + k % 2).patch.astype(np.float32)
        redness = patch[..., 2] - (patch[..., 0] + patch[..., 1]) / 2
        ys, xs = np.nonzero(redness > 60)
        if len(xs) > 10:
            offsets.append(np.hypot(xs.mean() - 25.5, ys.mean() - 25.5))
    assert len(offsets) > 40
    assert np.median(offsets) < 7  # px of 52: the index box spans the middle 28
