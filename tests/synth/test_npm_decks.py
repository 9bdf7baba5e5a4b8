"""The extra training designs from npm: one SVG file per card, drawn by rsvg-convert."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from assistant.engine.cards import Card, Rank, Suit
from assistant.synth import decks, facecache
from assistant.synth.decks import DeckSet, Split, installed_decks, load_records
from assistant.synth.npm_decks import ExtraDecksError, fetch, render_file, svg_aspect
from assistant.synth.zones import random_script, write_zone_dataset

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 250 350" width="2.5in" height="3.5in">'
    '<rect x="2" y="2" width="246" height="346" rx="16" fill="white" stroke="black"/>'
    '<text x="14" y="60" font-size="48" fill="{ink}">{label}</text></svg>'
)


def _record(**changes: object) -> decks.DeckRecord:
    base = decks.deck_by_id("npm-kennard")
    return replace(base, **changes)  # type: ignore[arg-type]


def _write_deck(folder: Path, pattern: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for suit in Suit:
        for rank in Rank:
            record = _record(faces=pattern)
            path = record.card_file(Card(rank, suit))
            assert path is not None
            ink = "red" if suit in (Suit.HEARTS, Suit.DIAMONDS) else "black"
            (folder / path.name).write_text(SVG.format(ink=ink, label=f"{rank.symbol}{suit.name[0]}"))


def test_extra_decks_are_npm_train_designs_apart_from_the_recorded_datasets_decks() -> None:
    records = load_records()
    extra = [r for r in records if r.extra]
    assert {r.id for r in extra} == {
        "npm-kennard",
        "npm-kennard-big-index",
        "npm-kennard-4-color",
        "npm-kennard-big-index-4-color",
        "npm-responsive",
    }
    assert all(r.split is Split.TRAIN and r.usable and r.faces for r in extra)
    # the standard set (every recorded dataset's) never deals them; the extra set only them
    assert not any(DeckSet.STANDARD.admits(r) for r in extra)
    assert all(DeckSet.EXTRA.admits(r) and DeckSet.ALL.admits(r) for r in extra)
    assert not any(DeckSet.EXTRA.admits(r) for r in records if not r.extra)


@pytest.mark.parametrize(
    ("pattern", "card", "name"),
    [
        ("{rank}{SUIT}.svg", Card(Rank.TEN, Suit.HEARTS), "TH.svg"),
        ("{rank}{SUIT}.svg", Card(Rank.ACE, Suit.SPADES), "AS.svg"),
        ("{num}{suit}.svg", Card(Rank.KING, Suit.CLUBS), "13c.svg"),
        ("{num}{suit}.svg", Card(Rank.ACE, Suit.DIAMONDS), "1d.svg"),
    ],
)
def test_a_per_card_deck_names_each_cards_file_by_its_pattern(pattern: str, card: Card, name: str) -> None:
    path = _record(faces=pattern).card_file(card)
    assert path is not None and path.name == name


def test_a_faces_pattern_naming_anything_else_is_refused() -> None:
    data = _record(faces="{rank}{SUIT}.svg").to_json()
    assert decks.DeckRecord.from_json(data).faces == "{rank}{SUIT}.svg"
    with pytest.raises(ValueError, match="faces pattern"):
        decks.DeckRecord.from_json(data | {"faces": "{colour}{SUIT}.svg"})


def test_a_per_card_deck_is_installed_only_when_every_card_file_is_there(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DEALER_DECKS", str(tmp_path))
    record = _record()
    folder = record.file()
    assert not record.installed()
    _write_deck(folder, record.faces)
    assert record.installed()
    (folder / "QD.svg").unlink()
    assert not record.installed()


def test_no_extra_deck_fetched_names_the_fetch_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DEALER_DECKS", str(tmp_path))
    with pytest.raises(decks.DecksMissingError, match="synth fetch-decks"):
        installed_decks(decks=DeckSet.EXTRA)


def test_the_extra_decks_deal_no_validation_or_held_out_hands(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Asking the extra decks for validation hands is an error whether or not they are
    fetched (this machine has none: a fresh one); a train-only run asks to fetch them."""
    monkeypatch.setenv("DEALER_DECKS", str(tmp_path / "nothing fetched"))
    with pytest.raises(ValueError, match="no extra deck is a val design"):
        random_script(1, 0, "val", deck_set=DeckSet.EXTRA)
    with pytest.raises(ValueError, match="give --val 0 --test 0"):
        write_zone_dataset(tmp_path / "z", 20, 1, val=0.5, test=0.0, deck_set=DeckSet.EXTRA)
    with pytest.raises(decks.DecksMissingError, match="synth fetch-decks"):
        write_zone_dataset(tmp_path / "z", 20, 1, val=0.0, test=0.0, deck_set=DeckSet.EXTRA)
    assert not (tmp_path / "z" / "images").exists()  # nothing written before the error


def test_rsvg_convert_draws_a_card_file_at_exactly_the_asked_size_with_its_outline(tmp_path: Path) -> None:
    path = tmp_path / "AS.svg"
    path.write_text(SVG.format(ink="black", label="A"))
    assert svg_aspect(path) == pytest.approx(250 / 350)
    image = render_file(path, 72, 100)
    assert image.shape == (100, 72, 4) and image.dtype == np.uint8
    assert image[50, 36, 3] == 255 and image[50, 36, :3].min() > 240  # the white face inside
    assert image[0, 0, 3] < 128  # the rounded corner outside the card
    assert image[10:20, 5:30, :3].min() < 100  # the printed index in the top-left corner


def test_an_unreadable_card_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "AS.svg"
    bad.write_text("<svg this is not")
    with pytest.raises(ExtraDecksError, match="cannot draw"):
        render_file(bad, 72, 100)
    with pytest.raises(FileNotFoundError):
        render_file(tmp_path / "missing.svg", 72, 100)


def test_a_per_card_deck_is_cached_with_a_back_drawn_for_it_the_same_each_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DEALER_DECKS", str(tmp_path / "decks"))
    monkeypatch.setenv("DEALER_SYNTH_CACHE", str(tmp_path / "cache"))
    record = _record(faces="{num}{suit}.svg", back="")
    _write_deck(record.file(), record.faces)
    faces = facecache.DeckFaces.load(record, height=140).faces
    assert len(faces) == 53
    assert {image.shape for image in faces.values()} == {(140, 100, 4)}
    back = faces["back"]
    assert back[0, 0, 3] < 128 and back[70, 50, 3] == 255  # cut to the card's outline
    shutil.rmtree(tmp_path / "cache")
    again = facecache.DeckFaces.load(record, height=140).faces["back"]
    assert np.array_equal(back, again)


def test_fetch_packs_an_npm_package_and_unpacks_its_files(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``npm pack`` of a local folder runs offline, as it would for a registry package."""
    if shutil.which("npm") is None:
        pytest.fail("npm is needed to fetch the extra decks (apt-get install npm)")
    source = tmp_path / "deck-source"
    _write_deck(source / "cards", "{rank}{SUIT}.svg")
    (source / "package.json").write_text(json.dumps({"name": "tiny-deck", "version": "1.0.0"}))
    root = tmp_path / "decks"
    folder = fetch(f"npm:{source}", root, log=lambda _: None)
    assert folder.parent == root and (folder / "package.json").is_file()
    assert len(list((folder / "cards").glob("*.svg"))) == 52
    assert fetch(f"npm:{source}", root, log=lambda _: None) == folder  # already there: left alone


def test_fetch_without_npm_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("assistant.synth.npm_decks.shutil.which", lambda _: None)
    with pytest.raises(ExtraDecksError, match="npm is not installed"):
        fetch("npm:some-deck@1.0.0", tmp_path)
    with pytest.raises(ValueError, match="not an npm package"):
        fetch("gnome-cards-data", tmp_path)
