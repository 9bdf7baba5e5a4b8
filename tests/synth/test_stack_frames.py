"""Bet and pot zones cut out of the camera's frame, stacks boxed (``synth stack-frames``):
the stack finder's data."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from assistant.synth.chip_zones import chip_shots
from assistant.synth.labels import CLASS_ID, CLASS_NAMES
from assistant.synth.stack_frames import crop_labels, render_stack_frames
from assistant.vision.zone_frames import FRAME_CROP_PX, ZoneFrames


def test_every_stack_mostly_inside_a_zones_frame_crop_is_boxed_with_its_colour(decks_installed: None) -> None:
    shot = next(chip_shots(5, 0, "train", 1))
    frames = ZoneFrames(shot.calibration)
    (crop,) = frames.cut(shot.image, ["pot"])
    height, width = crop.image.shape[:2]
    lines = crop_labels(shot.truths, crop)
    chips = [t for t in shot.truths if t.kind == "chips" and t.labelled and t.box is not None]
    expected = []
    for t in chips:
        assert t.box is not None
        x1, y1, x2, y2 = crop.from_frame(t.box)
        if x1 >= 0 and y1 >= 0 and x2 <= width and y2 <= height:  # wholly inside: boxed as it is
            expected.append((CLASS_ID[f"chips_{t.colour}"], (x1 + x2) / 2 / width, (y1 + y2) / 2 / height))
    assert expected, "the pot holds stacks in this still"
    got = [tuple(float(v) for v in line.split()) for line in lines]
    for cls, cx, cy in expected:
        assert any(g[0] == cls and abs(g[1] - cx) < 1e-4 and abs(g[2] - cy) < 1e-4 for g in got)
    assert all(0 < g[3] <= 1 and 0 < g[4] <= 1 for g in got)


def test_a_hand_writes_upright_frame_crops_and_their_labels(tmp_path: Path, decks_installed: None) -> None:
    for split in ("train", "val"):
        (tmp_path / "images" / split).mkdir(parents=True)
        (tmp_path / "labels" / split).mkdir(parents=True)
    split, crops, boxes = render_stack_frames((tmp_path, 5, 0, "train", 2))
    assert split == "train" and crops >= 2 and boxes >= crops // 2
    images = sorted((tmp_path / "images" / "train").glob("*.jpg"))
    assert len(images) == crops
    for path in images:
        image = cv2.imread(str(path))
        assert image is not None and max(image.shape[:2]) == FRAME_CROP_PX
        assert path.stem.endswith(("_pot", ".bet"))  # bet and pot zones only
        label = tmp_path / "labels" / "train" / f"{path.stem}.txt"
        for line in label.read_text().splitlines():
            assert CLASS_NAMES[int(line.split()[0])].startswith(("chips_", "face_down"))
    assert (
        sum(len(p.read_text().splitlines()) for p in (tmp_path / "labels" / "train").glob("*.txt")) == boxes
    )


def test_synth_stack_frames_writes_a_yolo_dataset_and_refuses_no_hands(
    tmp_path: Path, decks_installed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main

    args = ["synth", "stack-frames", "--out", str(tmp_path), "--shots", "1", "--workers", "1", "--val", "0.5"]
    assert main([*args, "--hands", "2"]) == 0
    said = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert said["train"] == len(list((tmp_path / "images" / "train").glob("*.jpg"))) > 0
    assert said["val"] == len(list((tmp_path / "images" / "val").glob("*.jpg"))) > 0
    data = (tmp_path / "data.yaml").read_text()
    assert "chips_red" in data and "train: images/train" in data
    assert json.loads((tmp_path / "stack_frames.json").read_text())["hands"] == 2
    assert main([*args, "--hands", "0"]) == 1
    assert "at least 1" in capsys.readouterr().err
