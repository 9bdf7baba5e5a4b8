from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from assistant.vision.calibration import (
    CalibrationError,
    calibrate,
    load_calibration,
    save_calibration,
)
from assistant.vision.default_layouts import oval_layout
from assistant.vision.layout import LayoutError, MarkerPlacement, load_layout
from assistant.vision.lens import distort_points
from assistant.vision.markers import MarkerDetector
from tests.vision.scenes import Scene, make_scene, rolled, table_grid

DETECTOR = MarkerDetector()


def _mapping_error_mm(scene: Scene, calibration_matrix: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Distance between where a calibration and the true camera put table points."""
    grid = table_grid(scene.layout)
    pixels = np.hstack([grid, np.ones((len(grid), 1))]) @ truth.T
    pixels = pixels[:, :2] / pixels[:, 2:]
    mapped = np.hstack([pixels, np.ones((len(pixels), 1))]) @ calibration_matrix.T
    return np.asarray(np.hypot(*(mapped[:, :2] / mapped[:, 2:] - grid).T))


@pytest.mark.parametrize(("seed", "blur", "noise"), [(1, 0.0, 0.0), (2, 0.7, 3.0), (3, 1.2, 6.0)])
def test_calibration_recovers_the_table_in_millimetres(
    scene: Scene, seed: int, blur: float, noise: float
) -> None:
    image = scene.view(seed=seed, blur=blur, noise=noise)
    calibration = calibrate(DETECTOR.detect(image), scene.layout, (1280, 720))
    assert sorted(calibration.marker_corners_mm) == [0, 1, 2, 3, 4, 5]
    errors = _mapping_error_mm(scene, calibration.image_to_table, scene.table_to_image)
    assert calibration.rms_mm < 1.5
    assert np.sqrt(np.mean(errors**2)) < 1.5
    assert errors.max() < 3.0


@pytest.mark.parametrize("distortion", [0.03, -0.03])
def test_calibration_fits_the_lens_distortion(scene: Scene, distortion: float) -> None:
    image = scene.view(seed=12, distortion=distortion)
    detections = DETECTOR.detect(image)
    calibration = calibrate(detections, scene.layout, (1280, 720))
    assert calibration.distortion == pytest.approx(distortion, abs=0.005)
    grid = table_grid(scene.layout)
    seen = distort_points(scene.camera.project(grid), distortion, (1280, 720))
    assert np.abs(calibration.to_table(seen) - grid).max() < 3.0
    assert np.abs(calibration.to_image(grid) - seen).max() < 1.5
    plain = calibrate(detections, scene.layout, (1280, 720), fit_distortion=False)
    assert np.abs(plain.to_table(seen) - grid).max() > 3.0  # a homography alone is off


def test_calibration_works_for_a_rolled_camera_and_a_small_table() -> None:
    scene = make_scene(4, roll_deg=4.0)
    calibration = calibrate(DETECTOR.detect(scene.view(seed=4)), scene.layout, (1280, 720))
    assert len(calibration.marker_corners_mm) == 4
    assert _mapping_error_mm(scene, calibration.image_to_table, scene.table_to_image).max() < 3.0


def test_calibration_carries_on_with_three_markers(scene: Scene) -> None:
    image = scene.hide_markers(scene.view(seed=5), [1, 3, 4])
    calibration = calibrate(DETECTOR.detect(image), scene.layout, (1280, 720))
    assert sorted(calibration.marker_corners_mm) == [0, 2, 5]
    assert _mapping_error_mm(scene, calibration.image_to_table, scene.table_to_image).max() < 6.0


def test_two_markers_are_not_enough(scene: Scene) -> None:
    image = scene.hide_markers(scene.view(seed=6), [0, 1, 2, 3])
    with pytest.raises(CalibrationError, match="found 2 of the layout's 6 markers"):
        calibrate(DETECTOR.detect(image), scene.layout, (1280, 720))


def test_no_markers_found_is_reported(scene: Scene) -> None:
    blank = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    with pytest.raises(CalibrationError, match=r"found 0 of .* \(ids seen: none\)"):
        calibrate(DETECTOR.detect(blank), scene.layout, (1280, 720))


def test_a_marker_laid_far_from_its_place_is_left_out_and_named(scene: Scene) -> None:
    layout = scene.layout
    moved = [
        dataclasses.replace(m, center=(m.center[0] + 40.0, m.center[1])) if m.id == 2 else m
        for m in layout.markers
    ]
    claimed = dataclasses.replace(layout, markers=tuple(moved))
    calibration = calibrate(DETECTOR.detect(scene.view(seed=7)), claimed, (1280, 720))
    assert calibration.ignored_markers == (2,)
    assert _mapping_error_mm(scene, calibration.image_to_table, scene.table_to_image).max() < 3.0


def test_the_wrong_layout_is_refused_not_fitted(scene: Scene) -> None:
    with pytest.raises(CalibrationError, match="do not fit the layout 'oval-6'"):
        calibrate(DETECTOR.detect(scene.view(seed=8)), oval_layout(6), (1280, 720))


def test_calibration_is_saved_with_its_layout_and_read_back(scene: Scene, tmp_path: Path) -> None:
    calibration = calibrate(
        DETECTOR.detect(scene.view(seed=9, distortion=0.02)), scene.layout, (1280, 720), source="cam"
    )
    path = tmp_path / "calibration.json"
    save_calibration(calibration, path)
    loaded = load_calibration(path)
    assert loaded.layout == scene.layout
    assert loaded.image_size == (1280, 720)
    assert np.allclose(loaded.image_to_table, calibration.image_to_table)
    assert loaded.rms_mm == pytest.approx(calibration.rms_mm, abs=1e-3)
    assert loaded.distortion == calibration.distortion != 0.0
    for marker_id, corners in calibration.marker_corners_mm.items():
        assert np.allclose(loaded.marker_corners_mm[marker_id], corners, atol=1e-3)
    assert load_layout(path) == scene.layout  # a calibration file serves as a layout file


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not valid JSON"),
        ('{"format": "dealer-assistant/calibration", "version": 5}', "version 5 is not supported"),
        ('{"format": "dealer-assistant/table-layout", "version": 1}', "not a calibration"),
    ],
)
def test_broken_calibration_files_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(text)
    with pytest.raises(LayoutError, match=message):
        load_calibration(path)


def test_singular_calibration_matrix_is_refused(scene: Scene, tmp_path: Path) -> None:
    calibration = calibrate(DETECTOR.detect(scene.view(seed=10)), scene.layout, (1280, 720))
    path = tmp_path / "calibration.json"
    save_calibration(dataclasses.replace(calibration, image_to_table=np.zeros((3, 3))), path)
    with pytest.raises(LayoutError, match="invertible 3x3"):
        load_calibration(path)


def test_expected_corners_fall_back_to_the_layout_for_unseen_markers(scene: Scene) -> None:
    image = scene.hide_markers(scene.view(seed=11), [4])
    calibration = calibrate(DETECTOR.detect(image), scene.layout, (1280, 720))
    marker = scene.layout.marker(4)
    assert isinstance(marker, MarkerPlacement)
    expected = calibration.expected_marker_corners(4)
    assert expected is not None and np.allclose(expected, marker.corners())
    assert calibration.expected_marker_corners(42) is None


def test_rolled_helper_rotates_about_the_image_centre(scene: Scene) -> None:
    matrix = rolled(np.eye(3), 90.0)
    centre = matrix @ [640.0, 360.0, 1.0]
    assert np.allclose(centre[:2] / centre[2], [640.0, 360.0])
