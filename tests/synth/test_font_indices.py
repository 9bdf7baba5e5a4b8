"""Corner indices drawn in system fonts: what the index reader learns unseen designs from."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.detect.labels import SUITS, card_name
from assistant.synth import font_indices
from assistant.synth.font_indices import (
    FONT_PACKAGES,
    FontSet,
    NoFontsError,
    draw_index,
    font_index_patches,
    system_fonts,
)

ROOT = Path(__file__).resolve().parents[2]
CONTEXT = 1.84  # the index box inside the patch, as the reader's training crops have it


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


def _ink_redness(patch: np.ndarray) -> float:
    """Red minus the other channels over the darkest pixels (the ink) of the index box,
    which fills the middle 1/1.84 of the patch."""
    centre = patch[16:36, 16:36].astype(np.float32)
    dark = centre.sum(-1) < np.percentile(centre.sum(-1), 15)
    b, g, r = (float(centre[..., c][dark].mean()) for c in range(3))
    return r - (b + g) / 2


def test_the_targets_name_the_drawn_card_in_the_readers_label_order(fonts: FontSet) -> None:
    """A patch labelled (by :func:`assistant.detect.labels.card_name`) a heart or a diamond is
    inked red, one labelled a spade or a club black: the reader learns the suit it sees."""
    rng = np.random.default_rng(0)
    redness: dict[str, list[float]] = {s: [] for s in "cdhs"}
    for k in range(80):
        drawn = draw_index(rng, fonts, 52, CONTEXT, rank=k % 13, suit=k % 4)
        redness[card_name(drawn.rank, drawn.suit)[-1]].append(_ink_redness(drawn.patch))
    assert np.median(redness["h"]) > 40 and np.median(redness["d"]) > 40
    assert np.median(redness["s"]) < 15 and np.median(redness["c"]) < 15


def test_the_index_lies_in_the_middle_of_its_patch_like_a_labelled_one(fonts: FontSet) -> None:
    """Red ink sits where the reader's crop of a detected index box puts an index."""
    rng = np.random.default_rng(1)
    offsets = []
    for k in range(60):
        red = SUITS.index("h") if k % 2 else SUITS.index("d")
        patch = draw_index(rng, fonts, 52, CONTEXT, rank=k % 13, suit=red).patch.astype(np.float32)
        redness = patch[..., 2] - (patch[..., 0] + patch[..., 1]) / 2
        ys, xs = np.nonzero(redness > 60)
        if len(xs) > 10:
            offsets.append(np.hypot(xs.mean() - 25.5, ys.mean() - 25.5))
    assert len(offsets) > 40
    assert np.median(offsets) < 7  # px of 52: the index box spans the middle 28


def test_the_pip_drawn_is_the_labelled_suits_and_the_rank_the_labelled_ranks(
    fonts: FontSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn_text: list[str] = []
    drawn_polygons: list[str] = []
    glyph, polygon = font_indices._glyph_mask, font_indices._suit_polygon

    def spy_glyph(path: Path, text: str, height_px: int, squeeze: float) -> np.ndarray:
        drawn_text.append(text)
        return glyph(path, text, height_px, squeeze)

    def spy_polygon(suit: str, height_px: int, rng: np.random.Generator) -> np.ndarray:
        drawn_polygons.append(suit)
        return polygon(suit, height_px, rng)

    monkeypatch.setattr(font_indices, "_glyph_mask", spy_glyph)
    monkeypatch.setattr(font_indices, "_suit_polygon", spy_polygon)
    symbols = {"\u2660": "s", "\u2665": "h", "\u2666": "d", "\u2663": "c"}
    rng = np.random.default_rng(2)
    for k in range(52):
        drawn_text.clear()
        drawn_polygons.clear()
        index = draw_index(rng, fonts, 52, CONTEXT, rank=k % 13, suit=k // 13)
        name = card_name(index.rank, index.suit)
        rank_text = drawn_text[0]
        pips = [symbols[t] for t in drawn_text[1:] if t in symbols] + drawn_polygons[:1]
        assert ("T" if rank_text == "10" else rank_text) == name[:-1]
        assert pips[0] == name[-1]


def test_off_colour_inks_come_in_every_hue_whatever_the_suit() -> None:
    """Four-colour decks print a suit in green, blue, yellow or even red: an off-colour ink
    says nothing of the suit, so the reader must learn the pip's shape from it."""
    rng = np.random.default_rng(3)
    for suit in "hdsc":
        inks = np.array([[font_indices._ink(suit, rng, off_colour=1.0)] for _ in range(300)], np.float32)
        hues = cv2.cvtColor(inks.clip(0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV)[:, 0, 0]
        assert np.bincount(hues // 30, minlength=6).min() >= 20, f"hues of {suit}: {sorted(hues)}"


def test_an_off_colour_share_inks_about_that_share_of_hearts_in_other_colours(fonts: FontSet) -> None:
    """With no share every heart is inked red; with half, about half are not."""
    share_not_red = {}
    for off in (0.0, 0.5):
        rng = np.random.default_rng(4)
        redness = [
            _ink_redness(
                draw_index(rng, fonts, 52, CONTEXT, rank=k % 13, suit=SUITS.index("h"), off_colour=off).patch
            )
            for k in range(60)
        ]
        share_not_red[off] = float(np.mean(np.array(redness) < 20))
    assert share_not_red[0.0] < 0.1
    assert 0.25 < share_not_red[0.5] < 0.75, share_not_red


def test_no_off_colour_share_draws_what_the_first_recipes_drew(fonts: FontSet) -> None:
    """A share of 0 spends no random draw on it: the font indices of the recipes written
    before it (and their caches) stay the same patches."""
    before, _, _ = font_index_patches(5, 26, 52, CONTEXT)
    now, _, _ = font_index_patches(5, 26, 52, CONTEXT, off_colour=0.0)
    off, _, _ = font_index_patches(5, 26, 52, CONTEXT, off_colour=0.3)
    assert np.array_equal(before, now)
    assert not np.array_equal(before, off)


def test_a_coarse_share_films_about_that_share_of_indices_by_a_coarse_camera() -> None:
    """Table cameras 1.7-3 mm per pixel at the cards see a 9 mm index as 3-5 pixels: with a
    coarse share, about that share of the indices are filmed so; without, none is."""
    low, high = font_indices.COARSE_PX_PER_MM
    for coarse in (0.0, 0.4):
        rng = np.random.default_rng(6)
        sensors = np.array([font_indices._sensor(rng, coarse) for _ in range(2000)])
        share = float(np.mean(sensors < 0.6))
        assert abs(share - coarse) < 0.04, (coarse, share)
        assert sensors.min() >= low and sensors.max() <= 2.5
        assert sensors[sensors < 0.6].max(initial=low) <= high


def test_indices_filmed_by_a_coarse_camera_keep_less_fine_detail(fonts: FontSet) -> None:
    """The same cards drawn for a coarse camera come out softer (less edge energy) than
    drawn for the cameras the first recipes had."""

    def edges(coarse: float) -> float:
        rng = np.random.default_rng(8)
        patches = [
            draw_index(rng, fonts, 52, CONTEXT, rank=k % 13, suit=k % 4, coarse=coarse).patch
            for k in range(40)
        ]
        return float(
            np.mean(
                [
                    np.abs(cv2.Laplacian(cv2.cvtColor(p, cv2.COLOR_BGR2GRAY), cv2.CV_32F)).mean()
                    for p in patches
                ]
            )
        )

    assert edges(1.0) < 0.7 * edges(0.0)


def test_no_coarse_share_draws_what_the_first_recipes_drew(fonts: FontSet) -> None:
    before, _, _ = font_index_patches(5, 26, 52, CONTEXT)
    now, _, _ = font_index_patches(5, 26, 52, CONTEXT, coarse=0.0)
    coarse, _, _ = font_index_patches(5, 26, 52, CONTEXT, coarse=0.5)
    assert np.array_equal(before, now)
    assert not np.array_equal(before, coarse)
