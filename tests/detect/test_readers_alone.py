"""Each card reader alone at the true boxes of upright cards (scripts/reader_evaluate.py
--each-reader, stop 57)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assistant.detect.grouping import combined
from assistant.detect.labels import RANKS, SUITS
from assistant.detect.pipeline import MODELS_DIR, CardDetector, read_image
from assistant.detect.readers_alone import READINGS, Readers, UprightCard, readers_alone, upright_cards

STRIPS = Path(__file__).parent / "fixtures" / "strips"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def readers() -> Readers:
    return Readers(MODELS_DIR)


def _truth(name: str) -> dict[str, Any]:
    truth: dict[str, Any] = json.loads((STRIPS / f"{name}.json").read_text())
    return truth


def _names(probs: dict[str, np.ndarray]) -> list[str]:
    return [
        RANKS[int(r)] + SUITS[int(s)]
        for r, s in zip(probs["rank"].argmax(1), probs["suit"].argmax(1), strict=True)
    ]


def _card(card: str, turned: bool = False, labelled: bool = True, index_shown: float = 1.0) -> dict[str, Any]:
    corners = [[10, 10], [73, 10], [73, 98], [10, 98]]
    if turned:
        corners = corners[2:] + corners[:2]
    quad = [[12, 12], [22, 12], [22, 32], [12, 32]]
    return {
        "kind": "card",
        "card": card,
        "box": [10, 10, 73, 98],
        "labelled": labelled,
        "corners": corners,
        "indices": [{"corner": "tl", "quad": quad, "visible": index_shown, "labelled": index_shown > 0.5}],
    }


def test_only_labelled_upright_cards_with_their_top_left_index_in_view_are_read() -> None:
    truth = {
        "objects": [
            _card("Qh"),
            _card("2c", turned=True),
            _card("3d", labelled=False),
            _card("4s", index_shown=0.8),
            {"kind": "face_down", "box": [80, 10, 143, 98], "labelled": True, "corners": None, "indices": []},
        ]
    }
    assert upright_cards(truth) == [UprightCard("Qh", (10.0, 10.0, 73.0, 98.0), (12.0, 12.0, 22.0, 32.0))]


def test_the_strip_settles_a_suit_both_index_readers_misread(readers: Readers) -> None:
    # gnome-orell's 3d seen at 1.8 mm per camera pixel: its small red pip reads as a heart
    name = "s31-00121_0085_seat2.cards"
    truth = _truth(name)
    probs = readers.read(read_image(STRIPS / f"{name}.jpg"), upright_cards(truth))
    assert {r: _names(p) for r, p in probs.items()} == {
        "first index reader": ["3h"],
        "second index reader": ["3h"],
        "both index readers": ["3h"],
        "strip": ["3d"],
        "face": ["3d"],
        "together": ["3d"],
    }


def test_together_is_the_pipeline_weighing_of_the_index_readers_strip_and_face(readers: Readers) -> None:
    name = "s31-00120_0512_seat2.cards"  # four kde-nicu-ornamental cards in a row, 2.9 mm per pixel
    image, cards = read_image(STRIPS / f"{name}.jpg"), upright_cards(_truth(name))
    zones = CardDetector.for_zones(MODELS_DIR)
    boxes = np.asarray([c.box for c in cards], np.float32)
    strips = zones._strip_readings(image, boxes)  # the strip times the face where uncovered, weighed
    indices = zones.index_reader.read(image, [c.index for c in cards])
    probs = readers.read(image, cards)
    for k in range(len(cards)):
        for h, head in enumerate(("rank", "suit")):
            expected = combined(np.stack([indices[head][k], strips[k][h]]))
            np.testing.assert_allclose(probs["together"][head][k], expected, atol=1e-5)
    assert _names(probs["together"]) == [c.card for c in cards]


def _split(root: Path, names: list[str]) -> Path:
    for kind in ("images", "truth"):
        (root / kind / "val").mkdir(parents=True)
    for name in names:
        shutil.copy(STRIPS / f"{name}.jpg", root / "images" / "val" / f"{name}.jpg")
        shutil.copy(STRIPS / f"{name}.json", root / "truth" / "val" / f"{name}.json")
    return root


def test_every_reading_is_tallied_per_design_and_camera_sampling(tmp_path: Path, readers: Readers) -> None:
    names = ["s31-00121_0085_seat2.cards", "s31-00122_0130_seat4.cards", "s601-00007_0099_seat2.cards"]
    report = readers_alone(readers, _split(tmp_path / "zones", names), "val").to_json()
    groups = report["groups"]
    # the kde-nicu-white crop's one card lies with its index out of view: nothing to read there
    assert set(groups) == {
        "all",
        "deck gnome-orell",
        "deck gnome-gnomangelo-bitmap",
        "mm/px 1.6-1.8",
        "mm/px 1.8-2.0",
    }
    assert list(groups["all"]) == list(READINGS)
    assert groups["all"]["together"] == {"cards": 2, "rank": 0.5, "suit": 1.0, "card": 0.5}
    assert groups["deck gnome-orell"]["both index readers"] == {
        "cards": 1,
        "rank": 1.0,
        "suit": 0.0,
        "card": 0.0,
    }
    # gnome-gnomangelo-bitmap's 8c at 1.9 mm: the indices read it, its pip column and its
    # face (no other face-up card covers it) read a 6, and together they read the 6
    assert groups["deck gnome-gnomangelo-bitmap"]["both index readers"]["card"] == 1.0
    assert groups["deck gnome-gnomangelo-bitmap"]["strip"]["rank"] == 0.0
    assert groups["deck gnome-gnomangelo-bitmap"]["face"]["rank"] == 0.0
    assert groups["deck gnome-gnomangelo-bitmap"]["together"]["card"] == 0.0


def test_the_script_names_a_split_without_truth_files(tmp_path: Path) -> None:
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "reader_evaluate.py"),
            "--dataset",
            str(tmp_path),
            "--each-reader",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert f"no truth files in {tmp_path}/truth/test" in run.stderr


def test_a_damaged_truth_file_is_named_and_an_unreadable_image_left_out(
    tmp_path: Path, readers: Readers
) -> None:
    split = _split(tmp_path / "zones", ["s31-00121_0085_seat2.cards", "s31-00122_0130_seat4.cards"])
    (split / "images" / "val" / "s31-00122_0130_seat4.cards.jpg").write_bytes(b"not a jpeg")
    report = readers_alone(readers, split, "val")
    assert report.unreadable == 1 and report.to_json()["groups"]["all"]["strip"]["cards"] == 1
    damaged = split / "truth" / "val" / "s31-00121_0085_seat2.cards.json"
    damaged.write_text('{"objects": [')
    named = re.escape(f"{damaged}: not a zone crop's truth file")
    with pytest.raises(ValueError, match=named):
        readers_alone(readers, split, "val")
