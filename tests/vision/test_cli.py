from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.cli import main
from assistant.vision.calibration import load_calibration
from assistant.vision.layout import load_layout, save_layout
from tests.vision.scenes import Scene, table_grid


def _grid_error_mm(scene: Scene, calibration_path: Path) -> float:
    calibration = load_calibration(calibration_path)
    grid = table_grid(scene.layout)
    pixels = np.hstack([grid, np.ones((len(grid), 1))]) @ scene.table_to_image.T
    return float(np.abs(calibration.to_table(pixels[:, :2] / pixels[:, 2:]) - grid).max())


def _fails_with(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("dealer-assistant calibrate: error: ")
    assert message in err[0]


def test_calibrate_from_a_video_saves_the_mapping_with_its_layout(
    scene: Scene, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (1280, 720))
    hidden = scene.hide_markers(scene.view(seed=400), [0, 1, 2, 3, 4, 5])
    for image in (hidden, scene.hide_markers(scene.view(seed=401), [3]), scene.view(seed=402)):
        writer.write(image)
    writer.release()
    out = tmp_path / "calibration.json"
    assert main(["calibrate", "--source", str(video), "--layout", "oval-8", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "calibrated from frame 2" in printed and "6 of 6 markers" in printed
    assert load_layout(out) == scene.layout
    assert _grid_error_mm(scene, out) < 3.0


def test_calibrate_from_a_folder_with_a_layout_file(scene: Scene, tmp_path: Path) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0001.png"), scene.view(seed=403))
    layout_file = tmp_path / "table.json"
    save_layout(scene.layout, layout_file)
    out = tmp_path / "calibration.json"
    assert main(["calibrate", "--source", str(frames), "--layout", str(layout_file), "--out", str(out)]) == 0
    assert _grid_error_mm(scene, out) < 3.0


def test_layout_command_writes_a_default_layout(tmp_path: Path) -> None:
    out = tmp_path / "six.json"
    assert main(["calibrate", "layout", "--seats", "6", "--out", str(out)]) == 0
    assert len(load_layout(out).seats) == 6


def test_missing_source_file_fails_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "calibration.json"
    _fails_with(
        capsys,
        ["calibrate", "--source", str(tmp_path / "absent.mp4"), "--out", str(out)],
        "no such file",
    )
    assert not out.exists()


def test_unreadable_video_fails_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    video = tmp_path / "game.mp4"
    video.write_bytes(os.urandom(8192))
    out = tmp_path / "calibration.json"
    _fails_with(capsys, ["calibrate", "--source", str(video), "--out", str(out)], "as a video")
    assert not out.exists()


def test_wrong_layout_file_fails_cleanly(
    scene: Scene, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), scene.view(seed=404))
    layout_file = tmp_path / "layout.json"
    layout_file.write_text('{"format": "dealer-assistant/table-layout", "version": 1, "table": 3}')
    out = tmp_path / "calibration.json"
    argv = ["calibrate", "--source", str(image), "--layout", str(layout_file), "--out", str(out)]
    _fails_with(capsys, argv, "table must be an object")
    _fails_with(
        capsys,
        [*argv[:3], "--layout", "oval-5", "--out", str(out)],
        "do not fit the layout 'oval-5'",
    )
    _fails_with(capsys, [*argv[:3], "--layout", str(tmp_path / "nope.json"), "--out", str(out)], "not found")
    assert not out.exists()


def test_no_markers_found_fails_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "felt.png"
    cv2.imwrite(str(image), np.full((720, 1280, 3), (40, 110, 30), np.uint8))
    out = tmp_path / "calibration.json"
    _fails_with(
        capsys,
        ["calibrate", "--source", str(image), "--out", str(out)],
        "found 0 of the layout's 6 markers",
    )
    assert not out.exists()


def test_camera_that_does_not_exist_fails_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "calibration.json"
    _fails_with(capsys, ["calibrate", "--source", "63", "--out", str(out)], "no camera answers at 63")
    assert not out.exists()


def test_unwritable_output_fails_cleanly(
    scene: Scene, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), scene.view(seed=405))
    out = tmp_path / "missing-folder" / "calibration.json"
    _fails_with(capsys, ["calibrate", "--source", str(image), "--out", str(out)], "cannot write")
