"""How finely a calibrated camera sees the table (mm of table per camera pixel)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from assistant.synth.camera import Camera
from assistant.synth.table import table_mm_to_px
from assistant.vision.calibration import Calibration, load_calibration
from assistant.vision.default_layouts import oval_layout
from assistant.vision.sampling import (
    READABLE_MM_PER_PX,
    card_zone_sampling,
    mm_per_camera_px,
    sampling_warning,
    too_coarse,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "video"


def calibration_of(camera: Camera) -> Calibration:
    """The exact calibration of a synthetic camera over an oval 6-seat table."""
    return Calibration(
        layout=oval_layout(6),
        image_to_table=np.linalg.inv(table_mm_to_px(camera)),
        image_size=(camera.width, camera.height),
        marker_corners_mm={},
        marker_residuals_mm={},
        rms_mm=0.0,
        distortion=camera.lens_k,
    )


def overhead(width: int, height: int, *, distance_cm: float = 150.0, tilt_deg: float = 0.0) -> Camera:
    return Camera.looking_at(
        width, height, hfov_deg=60.0, target=(0.0, 0.0), distance=distance_cm, tilt_deg=tilt_deg, yaw_deg=0.0
    )


def test_a_camera_straight_above_sees_its_distance_over_its_focal_length_per_pixel() -> None:
    camera = overhead(1280, 720)
    expected = 1500.0 / camera.focal
    assert mm_per_camera_px(calibration_of(camera), (0.0, 0.0)) == pytest.approx(expected, rel=0.01)


def test_a_tilted_camera_is_judged_along_its_foreshortened_direction() -> None:
    tilt = 30.0
    camera = overhead(1280, 720, tilt_deg=tilt)
    expected = 1500.0 / camera.focal / math.cos(math.radians(tilt))
    assert mm_per_camera_px(calibration_of(camera), (0.0, 0.0)) == pytest.approx(expected, rel=0.02)


def test_twice_the_resolution_halves_the_table_each_pixel_spans() -> None:
    coarse = card_zone_sampling(calibration_of(overhead(1280, 720)))
    fine = card_zone_sampling(calibration_of(overhead(2560, 1440)))
    assert coarse.keys() == fine.keys() and len(coarse) == 6
    for key in coarse:
        assert fine[key] == pytest.approx(coarse[key] / 2, rel=0.01)


def test_a_zone_is_judged_by_its_coarsest_point() -> None:
    camera = overhead(1280, 720, tilt_deg=25.0)
    calibration = calibration_of(camera)
    sampling = card_zone_sampling(calibration)
    for key, value in sampling.items():
        rect = calibration.layout.zones()[key]
        points = [rect.center, *rect.corners()]
        assert value == pytest.approx(max(mm_per_camera_px(calibration, p) for p in points))
        assert value >= mm_per_camera_px(calibration, rect.center)


def test_a_sharp_camera_raises_no_warning_and_a_coarse_one_names_its_seats() -> None:
    sharp = calibration_of(overhead(3840, 2160))
    assert too_coarse(sharp) == {} and sampling_warning(sharp) is None
    coarse = calibration_of(overhead(640, 360))
    assert set(too_coarse(coarse)) == {f"seat{n}.cards" for n in range(1, 7)}
    warning = sampling_warning(coarse)
    assert warning is not None and "seat 1, 2, 3, 4, 5, 6" in warning
    assert f"{READABLE_MM_PER_PX:.1f}" in warning


def test_the_bundled_videos_cameras_are_measured_at_their_seats() -> None:
    paris = load_calibration(FIXTURES / "seven-twenty-seven-paris.calibration.json")
    sampling = card_zone_sampling(paris)
    assert sorted(sampling) == [f"seat{n}.cards" for n in range(1, 5)]
    # a 1280 x 720 camera taking in the whole table: 1.5-1.9 mm of table per pixel
    assert all(1.4 < value < READABLE_MM_PER_PX for value in sampling.values())
    assert sampling_warning(paris) is None
    heldout = load_calibration(FIXTURES / "online-727-heldout-standard.calibration.json")
    assert sorted(too_coarse(heldout)) == ["seat1.cards", "seat2.cards"]
    warning = sampling_warning(heldout)
    assert warning is not None and "seat 1, 2 at up to 1.9 mm" in warning
