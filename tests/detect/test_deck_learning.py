"""Learning the table's one deck: hands dealt from it, the models tuned, a folder for --models."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from assistant.detect.deck_learning import (
    COPIED,
    DECK_FILE,
    TUNED,
    DeckLearningError,
    DeckLesson,
    learn_deck,
    learnt_deck,
)
from assistant.detect.onnx_weights import initializers
from assistant.detect.pipeline import INDEX_READER, MODELS_DIR, STRIP_READER

#: A lesson small enough for a test: one hand to learn from, one to check, one epoch each,
#: the readers' batch norms calibrated on 64 drawn crops (drawing 2,048 strips takes a minute),
#: the readers written halfway between the base's weights and the tuned ones
TINY = DeckLesson(
    hands=1,
    check_hands=1,
    rate=0.02,
    seed=7,
    detector_epochs=1,
    reader_epochs=1,
    calibration_crops=64,
    reader_share=0.5,
)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _weights(path: Path) -> dict[str, npt.NDArray[np.float32]]:
    import onnx

    return initializers(onnx.load(str(path)))


def test_zone_hands_of_one_deck_are_all_dealt_from_that_deck(tmp_path: Path) -> None:
    from assistant.synth.zones import write_zone_dataset

    summary = write_zone_dataset(tmp_path, 2, 3, rate=0.02, val=0.5, test=0.0, deck_id="kde-jolly-royal")
    truths = sorted(tmp_path.glob("truth/*/*.json"))
    assert summary["deck"] == "kde-jolly-royal" and truths
    assert {json.loads(t.read_text())["deck"] for t in truths} == {"kde-jolly-royal"}
    # the held-out deck is dealt into whichever folder its hand falls in
    assert {t.parent.name for t in truths} == {"train", "val"}


@pytest.mark.parametrize(
    ("deck", "message"),
    [("no-such-deck", "unknown deck"), ("gnome-swiss-xvii", "cannot be dealt: Swiss suits")],
)
def test_a_deck_that_cannot_be_dealt_is_refused_before_anything_is_written(
    tmp_path: Path, deck: str, message: str
) -> None:
    with pytest.raises(DeckLearningError, match=message):
        learn_deck(deck, tmp_path / "learnt", lesson=TINY)
    assert not any(tmp_path.iterdir())


def test_learning_a_deck_writes_a_complete_model_folder_whose_tuned_models_read_cards(tmp_path: Path) -> None:
    from assistant.detect.pipeline import CardDetector

    before = {name: _digest(MODELS_DIR / name) for name in TUNED + COPIED if (MODELS_DIR / name).is_file()}
    out = tmp_path / "jolly"
    record = learn_deck("kde-jolly-royal", out, lesson=TINY, work=tmp_path / "work", log=lambda _: None)
    # the base folder is never written
    assert {name: _digest(MODELS_DIR / name) for name in before} == before
    # every model the shipped folder holds is there: the tuned ones changed, the others copied
    for name in before:
        assert (out / name).is_file() and not (out / name).is_symlink()
        same = _digest(out / name) == before[name]
        assert same == (name in COPIED), name
    assert not list(tmp_path.glob(".*.learning"))
    # each reader written is the base's weights and the tuned ones in equal parts
    for kind, name in (("index", INDEX_READER), ("strips", STRIP_READER)):
        tuned, written, start = (
            _weights(tmp_path / "work" / f"{kind}_tuned.onnx"),
            _weights(out / name),
            _weights(MODELS_DIR / name),
        )
        assert tuned.keys() == written.keys() == start.keys()
        for key, value in written.items():
            assert np.allclose(value, (start[key] + tuned[key]) / 2, rtol=1e-6, atol=1e-7), key
        assert any(not np.allclose(written[k], tuned[k]) for k in written)
    saved = learnt_deck(out)
    assert saved == record and saved["deck"] == "kde-jolly-royal"
    assert saved["lesson"] == {**TINY.__dict__}
    check = saved["card_identity_on_check_hands"]
    assert isinstance(check, dict) and set(check) == {"base", "learnt"}
    assert all(0.0 <= check[k]["f1"] <= 1.0 for k in ("base", "learnt"))
    assert saved["reads_check_hands_better"] == (check["learnt"]["f1"] > check["base"]["f1"])
    # the folder is what --models takes: the camera pipeline's detector loads and reads from it
    crops = sorted((tmp_path / "work" / "zones" / "images" / "val").glob("*.jpg"))
    import cv2

    from tests.detect.images import as_bgr

    detection = CardDetector.for_zones(out).detect(as_bgr(cv2.imread(str(crops[0]))), crops[0].name)
    assert all(card.card for card in detection.cards)


def test_a_lesson_that_fails_leaves_no_model_folder_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import assistant.detect.deck_learning as learning

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the readers could not be tuned")

    monkeypatch.setattr(learning, "_tune_readers", broken)
    with pytest.raises(RuntimeError, match="readers"):
        learn_deck("kde-jolly-royal", tmp_path / "jolly", lesson=TINY, log=lambda _: None)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_lesson_will_not_overwrite_a_folder_or_the_base_models(tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    with pytest.raises(DeckLearningError, match="not an empty folder; choose another --out"):
        learn_deck("kde-jolly-royal", tmp_path / "full", lesson=TINY)
    assert (tmp_path / "full" / "notes.txt").read_text() == "mine"
    with pytest.raises(DeckLearningError, match="another --work"):
        learn_deck("kde-jolly-royal", tmp_path / "new", lesson=TINY, work=tmp_path / "full")
    with pytest.raises(DeckLearningError, match="base model folder"):
        learn_deck("kde-jolly-royal", MODELS_DIR, lesson=TINY)
    with pytest.raises(DeckLearningError, match="lacks"):
        learn_deck("kde-jolly-royal", tmp_path / "new", base=tmp_path / "full", lesson=TINY)


@pytest.mark.parametrize(
    "lesson",
    [
        {"hands": 0},
        {"check_hands": -1},
        {"rate": 0.0},
        {"detector_epochs": 0},
        {"reader_lr": 0.0},
        {"calibration_crops": 0},
        {"reader_share": -0.1},
        {"reader_share": 1.5},
    ],
)
def test_a_lesson_needs_hands_frames_epochs_learning_rates_and_a_share_in_range(
    lesson: dict[str, float],
) -> None:
    with pytest.raises(ValueError):
        DeckLesson(**lesson)  # type: ignore[arg-type]


def test_a_model_folder_says_which_deck_it_learnt_or_that_it_learnt_none(tmp_path: Path) -> None:
    assert learnt_deck(MODELS_DIR) is None
    (tmp_path / DECK_FILE).write_text("{not json")
    with pytest.raises(DeckLearningError, match="cannot be read"):
        learnt_deck(tmp_path)
    (tmp_path / DECK_FILE).write_text('{"lesson": {}}')
    with pytest.raises(DeckLearningError, match="which deck"):
        learnt_deck(tmp_path)


def test_deck_commands_refuse_what_they_cannot_do_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main

    assert main(["deck", "learn", "no-such-deck", "--out", str(tmp_path / "x")]) == 1
    assert "unknown deck 'no-such-deck'" in capsys.readouterr().err
    assert main(["deck", "learn", "kde-jolly-royal", "--out", str(tmp_path / "x"), "--hands", "0"]) == 1
    assert "at least one hand" in capsys.readouterr().err
    assert (
        main(["deck", "learn", "kde-jolly-royal", "--out", str(tmp_path / "x"), "--reader-share", "2"]) == 1
    )
    assert "share of their weights must be in [0, 1]" in capsys.readouterr().err
    assert (
        main(["synth", "zones", "--out", str(tmp_path / "z"), "--hands", "1", "--deck", "x", "--chips", "2"])
        == 1
    )
    assert "--deck" in capsys.readouterr().err
    assert (
        main(["synth", "zones", "--out", str(tmp_path / "z"), "--hands", "1", "--deck", "no-such-deck"]) == 1
    )
    assert "unknown deck" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not (tmp_path / "z").exists()


def test_deck_list_names_the_decks_a_table_can_learn(capsys: pytest.CaptureFixture[str]) -> None:
    from assistant.cli import main

    assert main(["deck", "list", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    decks = {row["deck"]: row for row in rows}
    assert decks["kde-jolly-royal"]["split"] == "held_out"
    assert "gnome-swiss-xvii" not in decks  # Swiss suits: not a deck the readers read
    assert all(isinstance(row["installed"], bool) for row in rows)


def test_the_dealer_is_told_when_the_card_models_are_tuned_to_one_deck(tmp_path: Path) -> None:
    from assistant.detect.deck_learning import deck_note

    assert deck_note(MODELS_DIR) is None
    (tmp_path / DECK_FILE).write_text('{"deck": "kde-jolly-royal"}')
    note = deck_note(tmp_path)
    assert note is not None and "tuned to the deck kde-jolly-royal" in note
    check = {"base": {"f1": 0.46}, "learnt": {"f1": 0.44}}
    record = {"deck": "kde-standard", "card_identity_on_check_hands": check}
    (tmp_path / DECK_FILE).write_text(json.dumps(record))
    note = deck_note(tmp_path)
    assert note is not None and "0.46 -> 0.44: no better than the models it started from" in note
    check["learnt"]["f1"] = 0.65
    (tmp_path / DECK_FILE).write_text(json.dumps(record))
    note = deck_note(tmp_path)
    assert note is not None and "0.46 -> 0.65" in note and "no better" not in note
    (tmp_path / DECK_FILE).write_text("")
    damaged = deck_note(tmp_path)
    assert damaged is not None and "cannot be read" in damaged and "load all the same" in damaged


def test_a_lesson_stopped_with_sigterm_leaves_no_staged_folder(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "jolly"
    staging = tmp_path / ".jolly.learning"
    command = [sys.executable, "-m", "assistant", "deck", "learn", "kde-jolly-royal", "--out", str(out)]
    process = subprocess.Popen(
        [*command, "--hands", "1", "--workers", "1"], stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while not staging.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert staging.exists(), "the lesson never staged its folder"
        os.kill(process.pid, signal.SIGTERM)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM, err[-2000:]
    assert not staging.exists() and not out.exists()
