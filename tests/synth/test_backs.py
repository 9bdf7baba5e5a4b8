"""Backs drawn at random (``synth zones --random-backs``): stage 1 sees backs that no
installed deck prints, and a hand renders the same at any share but for its backs."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.engine.cards import parse_card
from assistant.synth.backs import PATTERNS, Pattern, drawn_back
from assistant.synth.dataset import deck_faces
from assistant.synth.decks import installed_decks
from assistant.synth.zones import write_zone_dataset
from tests.detect.images import as_bgr


def _card_outline(h: int = 360, w: int = 252) -> np.ndarray:
    like = np.zeros((h, w, 4), np.uint8)
    cv2.rectangle(like, (6, 0), (w - 7, h - 1), (0, 0, 0, 255), -1)
    cv2.rectangle(like, (0, 6), (w - 1, h - 7), (0, 0, 0, 255), -1)
    return like


def test_a_drawn_back_takes_the_size_and_outline_of_the_decks_own_back() -> None:
    like = _card_outline()
    for seed in range(20):
        back = drawn_back(np.random.default_rng(seed), like)
        assert back.shape == like.shape and back.dtype == np.uint8
        np.testing.assert_array_equal(back[:, :, 3], like[:, :, 3])


def test_backs_differ_from_one_draw_to_the_next_and_repeat_for_one_seed() -> None:
    like = _card_outline()
    backs = [drawn_back(np.random.default_rng(seed), like)[:, :, :3] for seed in range(12)]
    np.testing.assert_array_equal(backs[0], drawn_back(np.random.default_rng(0), like)[:, :, :3])
    means = {tuple(np.round(b.reshape(-1, 3).mean(0) / 8).astype(int)) for b in backs}
    assert len(means) >= 10  # twelve draws, (nearly) twelve looks
    assert all(float(b.std()) > 3.0 for b in backs)  # a pattern, not a blank


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.__name__.strip("_"))
def test_every_pattern_marks_its_panel(pattern: Pattern) -> None:
    panel = np.full((120, 80, 3), (30, 120, 200), np.uint8)
    before = panel.copy()
    pattern(np.random.default_rng(1), panel, (240, 240, 240))
    assert (np.abs(panel.astype(int) - before).sum(axis=2) > 30).mean() > 0.02


@pytest.mark.usefixtures("decks_installed")
def test_faces_with_a_drawn_back_show_it_at_every_size_and_keep_the_fronts() -> None:
    faces = deck_faces(installed_decks()[0])
    own = faces.face(None).copy()
    back = drawn_back(np.random.default_rng(3), own)
    drawn = faces.with_back(back)
    np.testing.assert_array_equal(drawn.face(None), back)
    for height in (20.0, 45.0, 90.0, 180.0):
        small, theirs = drawn.face(None, min_height=height), faces.face(None, min_height=height)
        assert small.shape == theirs.shape
        assert not np.array_equal(small, theirs)
    ace = parse_card("Ah")
    np.testing.assert_array_equal(drawn.face(ace, min_height=60.0), faces.face(ace, min_height=60.0))
    np.testing.assert_array_equal(faces.face(None), own)  # the deck's own back is untouched


@pytest.mark.usefixtures("decks_installed")
def test_a_hand_renders_the_same_with_drawn_backs_but_for_its_backs(tmp_path: Path) -> None:
    plain, drawn = tmp_path / "plain", tmp_path / "drawn"
    write_zone_dataset(plain, 1, 7, rate=0.08, val=0.0, test=0.0)
    write_zone_dataset(drawn, 1, 7, rate=0.08, val=0.0, test=0.0, drawn_backs=1.0)
    names = sorted(p.name for p in (plain / "truth" / "train").glob("*.json"))
    assert names == sorted(p.name for p in (drawn / "truth" / "train").glob("*.json"))
    for sub in ("truth", "labels"):
        for p in (plain / sub / "train").iterdir():
            assert p.read_bytes() == (drawn / sub / "train" / p.name).read_bytes()
    changed = 0
    for name in names:
        truth = json.loads((plain / "truth" / "train" / name).read_text())
        a = as_bgr(cv2.imread(str(plain / "images" / "train" / truth["image"])))
        b = as_bgr(cv2.imread(str(drawn / "images" / "train" / truth["image"])))
        backs = any(o["kind"] == "face_down" for o in truth["objects"])
        if not backs and not any(o["kind"] == "card" for o in truth["objects"]):
            np.testing.assert_array_equal(a, b)  # an empty zone is the same
        changed += int(backs and not np.array_equal(a, b))
    assert changed > 0
    assert json.loads((drawn / "synth.json").read_text())["runs"][-1]["random_backs"] == 1.0
    assert "random_backs" not in json.loads((plain / "synth.json").read_text())["runs"][-1]
    with pytest.raises(ValueError, match="random-backs"):
        write_zone_dataset(tmp_path / "bad", 1, 7, drawn_backs=1.5)
