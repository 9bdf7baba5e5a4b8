"""Learning the table's deck from recorded play: stage 1 tuned on what the shipped pipeline
found, with no card named by anyone."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.detect.backends import box_iou
from assistant.detect.deck_learning import (
    COPIED,
    DECK_FILE,
    PLAY_DECK,
    DeckLearningError,
    deck_note,
    learnt_deck,
)
from assistant.detect.pipeline import (
    DETECTOR_ONNX,
    DETECTOR_PT,
    INDEX_READER,
    MODELS_DIR,
    STRIP_READER,
    CardDetector,
    Detection,
)
from assistant.detect.play_lesson import PlayLesson, PlaySource, learn_from_play, play_labels
from tests.detect.images import as_bgr
from tests.detect.upright_zone import TWO_OF_CLUBS, UPRIGHT

VIDEO = Path(__file__).resolve().parents[2] / "fixtures" / "video" / "online-727-heldout-standard.mp4"
#: A lesson small enough for a test: 24 of the video's zone crops, one epoch
TINY = PlayLesson(epochs=1, max_crops=24)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _calibration(video: Path = VIDEO) -> object:
    from assistant.pipeline.cli import calibration_for

    return calibration_for(video, None)


@pytest.fixture(scope="module")
def zones() -> CardDetector:
    return CardDetector.for_zones()


def test_play_labels_box_the_read_card_its_corner_index_and_the_backs_without_naming_them(
    zones: CardDetector,
) -> None:
    image = as_bgr(cv2.imread(str(UPRIGHT)))
    labels = play_labels(zones, image)
    assert {name for name, _ in labels} <= set(zones.class_names)  # classes only: no card's name
    cards = [box for name, box in labels if name == "card"]
    assert len(cards) == 1 and box_iou(cards[0], TWO_OF_CLUBS) > 0.8
    # the two backs beside it (the penguin backs of the same deck)
    backs = [box for name, box in labels if name == "face_down"]
    assert len(backs) == 2 and all(b[0] > cards[0][0] + 20 for b in backs)
    # the card's top-left index, where the corner search finds it; its bottom-right one lies
    # under the first back and is not labelled
    (index,) = [box for name, box in labels if name == "index"]
    x1, y1, x2, y2 = cards[0]
    assert x1 - 2 <= index[0] and y1 - 2 <= index[1] and index[2] <= x1 + 0.4 * (x2 - x1)
    assert index[3] <= y1 + 0.4 * (y2 - y1)


def test_a_card_stage_1_boxes_but_nobody_reads_is_still_a_card_to_stage_1(
    zones: CardDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = as_bgr(cv2.imread(str(UPRIGHT)))
    monkeypatch.setattr(zones, "detect", lambda image, name="": Detection(name))  # reads nothing
    cards = [box for name, box in play_labels(zones, image) if name == "card"]
    assert len(cards) == 1 and box_iou(cards[0], TWO_OF_CLUBS) > 0.8
    # ... unless stage 1 is less sure of it than the lesson asks
    assert not [name for name, _ in play_labels(zones, image, PlayLesson(card_conf=1.0)) if name == "card"]


def test_learning_from_a_recorded_session_tunes_stage_1_only_and_writes_a_model_folder(
    tmp_path: Path,
) -> None:
    before = {name: _digest(MODELS_DIR / name) for name in (DETECTOR_ONNX, INDEX_READER, STRIP_READER)}
    out, work = tmp_path / "table", tmp_path / "work"
    lines: list[str] = []
    record = learn_from_play(
        [PlaySource(VIDEO, _calibration())],  # type: ignore[arg-type]
        out,
        lesson=TINY,
        work=work,
        log=lines.append,
    )
    assert {name: _digest(MODELS_DIR / name) for name in before} == before  # the base is never written
    # stage 1 changed; the readers and the other models are the base's, copied
    assert _digest(out / DETECTOR_ONNX) != before[DETECTOR_ONNX] and (out / DETECTOR_PT).is_file()
    for name in (INDEX_READER, STRIP_READER, *COPIED):
        if (MODELS_DIR / name).is_file():
            assert _digest(out / name) == _digest(MODELS_DIR / name), name
    assert not list(tmp_path.glob(".*.learning"))
    # it learnt from the video's zones as the camera pipeline cuts them, thinned to the lesson's size
    crops = sorted((work / "zones" / "images" / "train").glob("*.jpg"))
    assert len(crops) == TINY.max_crops == record["zone_crops"]
    assert any("zone crops" in line and VIDEO.name in line for line in lines)
    label_files = [work / "zones" / "labels" / "train" / f"{c.stem}.txt" for c in crops]
    labels = [line.split() for f in label_files for line in f.read_text().splitlines()]
    assert labels and all(
        0 <= int(row[0]) < 10 and all(0 <= float(v) <= 1 for v in row[1:]) for row in labels
    )
    counts = record["labels"]
    assert isinstance(counts, dict) and counts["card"] > 0 and counts["index"] > 0
    saved = learnt_deck(out)
    assert saved == record and saved["deck"] == PLAY_DECK and saved["sources"] == [str(VIDEO)]
    note = deck_note(out)
    assert note is not None and "from 24 zone crops" in note and "recorded play" in note
    # the folder is what --models takes: the camera pipeline's detector loads and reads from it
    detection = CardDetector.for_zones(out).detect(as_bgr(cv2.imread(str(UPRIGHT))))
    assert all(card.card for card in detection.cards)


def test_a_folder_of_zone_crops_is_learnt_from_as_it_is(tmp_path: Path) -> None:
    crops = tmp_path / "crops"
    crops.mkdir()
    shutil.copyfile(UPRIGHT, crops / "a.png")
    (crops / "notes.txt").write_text("not a crop")
    (tmp_path / "to").mkdir()
    written = PlaySource(crops).write_crops(tmp_path / "to", "s00", 0.5)
    assert [p.name for p in written] == ["s00_000000.png"] and _digest(written[0]) == _digest(UPRIGHT)


def test_what_cannot_be_learnt_from_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    empty, broken, full = tmp_path / "empty", tmp_path / "broken", tmp_path / "full"
    empty.mkdir()
    broken.mkdir()
    (broken / "a.jpg").write_bytes(b"not a jpeg")
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    out = tmp_path / "out"
    with pytest.raises(DeckLearningError, match="gave no zone crop"):
        learn_from_play([PlaySource(empty)], out, lesson=TINY)
    with pytest.raises(DeckLearningError, match="not a readable image"):
        learn_from_play([PlaySource(broken)], out, lesson=TINY)
    video = tmp_path / "damaged.mp4"
    video.write_bytes(np.random.default_rng(1).integers(0, 255, 20000, dtype=np.uint8).tobytes())
    with pytest.raises(DeckLearningError, match=r"damaged\.mp4"):
        learn_from_play([PlaySource(video, _calibration())], out, lesson=TINY)  # type: ignore[arg-type]
    with pytest.raises(DeckLearningError, match="needs its table calibration"):
        learn_from_play([PlaySource(VIDEO)], out, lesson=TINY)
    with pytest.raises(DeckLearningError, match="at least one"):
        learn_from_play([], out, lesson=TINY)
    with pytest.raises(DeckLearningError, match="not an empty folder; choose another --out"):
        learn_from_play([PlaySource(empty)], full, lesson=TINY)
    with pytest.raises(DeckLearningError, match="base model folder"):
        learn_from_play([PlaySource(empty)], MODELS_DIR, lesson=TINY)
    with pytest.raises(DeckLearningError, match="lacks"):
        learn_from_play([PlaySource(empty)], out, base=full, lesson=TINY)
    assert not out.exists() and (full / "notes.txt").read_text() == "mine"
    assert not list(tmp_path.glob(".*.learning"))


@pytest.mark.parametrize(
    "lesson", [{"card_conf": 0.0}, {"index_sure": 1.5}, {"epochs": 0}, {"lr": 0.0}, {"max_crops": 0}]
)
def test_a_play_lesson_needs_thresholds_epochs_a_learning_rate_and_crops_in_range(
    lesson: dict[str, float],
) -> None:
    with pytest.raises(ValueError):
        PlayLesson(**lesson)  # type: ignore[arg-type]


def test_deck_learn_play_refuses_what_it_cannot_read_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main

    out = tmp_path / "x"
    assert main(["deck", "learn-play", str(tmp_path / "nothing.mp4"), "--out", str(out)]) == 1
    assert "no such video or folder" in capsys.readouterr().err
    lone = tmp_path / "lone.mp4"
    shutil.copyfile(VIDEO, lone)  # no calibration beside it
    assert main(["deck", "learn-play", str(lone), "--out", str(out)]) == 1
    assert "no calibration or layout file" in capsys.readouterr().err
    assert main(["deck", "learn-play", str(tmp_path), "--out", str(out), "--workers", "0"]) == 1
    assert "--workers" in capsys.readouterr().err
    assert not out.exists()


def test_the_dealer_is_told_when_stage_1_was_tuned_to_the_tables_play(tmp_path: Path) -> None:
    (tmp_path / DECK_FILE).write_text(json.dumps({"deck": PLAY_DECK, "zone_crops": 812}))
    note = deck_note(tmp_path)
    assert note is not None and "stage 1 tuned to this table's deck from 812 zone crops" in note


def test_deck_learn_play_writes_a_model_folder_from_a_folder_of_zone_crops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main

    crops = tmp_path / "crops"
    crops.mkdir()
    for k in range(3):
        shutil.copyfile(UPRIGHT, crops / f"seat3.cards.{k}.png")
    out = tmp_path / "table"
    assert main(["deck", "learn-play", str(crops), "--out", str(out), "--workers", "1"]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed["models"] == str(out) and printed["deck"] == PLAY_DECK and printed["zone_crops"] == 3
    assert learnt_deck(out) == {k: v for k, v in printed.items() if k != "models"}
