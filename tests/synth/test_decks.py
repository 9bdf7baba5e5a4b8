from __future__ import annotations

from pathlib import Path

import pytest

from assistant.synth import decks
from assistant.synth.decks import Split, installed_decks, load_records


def test_records_count_43_packaged_french_decks_of_which_40_render_cleanly_and_5_from_npm() -> None:
    packaged = [r for r in load_records() if not r.extra]
    assert len(packaged) == 46
    assert sum(r.french_suited for r in packaged) == 43
    assert sum(r.usable for r in packaged) == 40
    assert sum(r.extra and r.usable for r in load_records()) == 5


def test_every_split_has_decks_and_held_out_designs_never_train() -> None:
    usable = [r for r in load_records() if r.usable]
    by_split = {s: {r.id for r in usable if r.split is s} for s in Split}
    assert all(by_split.values())
    assert not by_split[Split.TRAIN] & by_split[Split.HELD_OUT]


@pytest.mark.parametrize(
    "family",
    [
        ("gnome-anglo", "gnome-anglo-bitmap"),
        ("gnome-gnomangelo", "gnome-gnomangelo-bitmap"),
        ("gnome-tigullio", "kde-tigullio-international"),
        ("kde-nicu-white", "kde-nicu-ornamental", "gnome-ornamental"),
        ("gnome-neoclassical", "gnome-neoclassical-4-color"),
        ("kde-dondorf", "gnome-dondorf"),
        ("kde-gm-paris", "gnome-paris"),
    ],
)
def test_redrawings_of_one_design_share_a_split(family: tuple[str, ...]) -> None:
    splits = {decks.deck_by_id(name).split for name in family}
    assert len(splits) == 1


def test_index_boxes_lie_in_their_corner_of_the_card() -> None:
    for r in load_records():
        if not r.usable:
            continue
        for corner in r.index_corners:
            x0, y0, x1, y1 = r.index_box_at(corner)
            assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1, r.id
            assert (x0 < 0.5) == (corner in ("tl", "bl")), (r.id, corner)
            assert (y0 < 0.5) == (corner in ("tl", "tr")), (r.id, corner)


def test_missing_deck_packages_name_the_apt_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(decks, "DECK_ROOTS", {k: tmp_path / k for k in decks.DECK_ROOTS})
    with pytest.raises(
        decks.DecksMissingError, match="apt-get install kdegames-card-data-kf5 gnome-cards-data"
    ):
        installed_decks()


@pytest.mark.parametrize(
    ("deck", "corners", "has_suit"),
    [
        ("kde-oxygen", ("tr",), False),
        ("kde-oxygen-white", ("tr",), False),
        ("kde-dondorf", ("tl", "tr", "br", "bl"), True),
        ("kde-xskat-french", ("tl", "tr", "br", "bl"), True),
        ("kde-standard", ("tl", "br"), True),
    ],
)
def test_index_corners_follow_the_printed_design(deck: str, corners: tuple[str, ...], has_suit: bool) -> None:
    record = decks.deck_by_id(deck)
    assert record.index_corners == corners
    assert record.index_has_suit is has_suit
