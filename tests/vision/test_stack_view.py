"""A chip stack's side cut out of a calibrated camera's frame as one fixed upright view."""

from __future__ import annotations

import math

import numpy as np
import pytest

from assistant.synth.camera import Camera
from assistant.vision.calibration import apply_homography
from assistant.vision.stack_view import (
    CHIP_THICKNESS_MM,
    VIEW_HEIGHTS_MM,
    VIEW_SIZE,
    base_from_plane_box,
    camera_centre,
    readable,
    side_px,
    stack_view,
    toward_camera,
    view_points,
)
from assistant.vision.stacks import CHIP_DIAMETER_MM, camera_model
from tests.vision.test_sampling import calibration_of


def oblique(tilt_deg: float = 55.0, yaw_deg: float = 30.0) -> Camera:
    return Camera.looking_at(
        1280, 720, hfov_deg=60.0, target=(0.0, 0.0), distance=120.0, tilt_deg=tilt_deg, yaw_deg=yaw_deg
    )


def world(point_mm: tuple[float, float], height_mm: float = 0.0) -> list[float]:
    """Table millimetres (y towards the near side) to the renderer's world centimetres."""
    return [point_mm[0] / 10.0, -point_mm[1] / 10.0, height_mm / 10.0]


@pytest.mark.parametrize("base", [(0.0, 0.0), (250.0, -120.0), (-400.0, 200.0)])
def test_one_chip_spans_as_many_pixels_as_the_camera_that_filmed_it_says(base: tuple[float, float]) -> None:
    camera = oblique()
    model = camera_model(calibration_of(camera))
    foot, top = camera.project_ideal(np.array([world(base), world(base, CHIP_THICKNESS_MM)]))
    assert side_px(model, base) == pytest.approx(math.dist(foot, top), rel=0.02)
    assert readable(model, base)


def test_a_stack_right_under_the_camera_cannot_be_counted() -> None:
    camera = Camera.looking_at(
        1280, 720, hfov_deg=60.0, target=(0.0, 0.0), distance=120.0, tilt_deg=0.0, yaw_deg=0.0
    )
    model = camera_model(calibration_of(camera))
    below = tuple(camera_centre(model)[:2])
    assert toward_camera(model, below) is None
    assert view_points(model, below) is None
    assert not readable(model, (below[0] + 50.0, below[1]))  # one chip adds a fraction of a pixel


def test_the_view_samples_the_stacks_near_side_from_below_the_table_to_above_the_tallest_stack() -> None:
    model = camera_model(calibration_of(oblique()))
    base = (100.0, 50.0)
    points = view_points(model, base)
    assert points is not None
    assert points.shape == (VIEW_SIZE[1], VIEW_SIZE[0], 3)
    heights = -points[:, 0, 2]
    assert heights[0] == pytest.approx(VIEW_HEIGHTS_MM[1], abs=1.0) and heights[-1] == pytest.approx(
        VIEW_HEIGHTS_MM[0], abs=1.0
    )
    # the middle column runs up the chip's rim on the side facing the camera
    toward = toward_camera(model, base)
    assert toward is not None
    middle = points[:, VIEW_SIZE[0] // 2, :2] - np.array(base)
    assert np.allclose(np.linalg.norm(middle, axis=1), CHIP_DIAMETER_MM / 2, atol=1.0)
    assert float(middle[0] @ toward) > 0


def rims(base: tuple[float, float], chips: int) -> np.ndarray:
    """The bottom and top rims (world cm) of ``chips`` chips standing at ``base`` (table mm)."""
    angles = np.linspace(0.0, 2.0 * math.pi, 90, endpoint=False)
    radius = CHIP_DIAMETER_MM / 2.0
    return np.array(
        [
            world((base[0] + radius * math.cos(a), base[1] + radius * math.sin(a)), h)
            for a in angles
            for h in (0.0, chips * CHIP_THICKNESS_MM)
        ]
    )


def plane_box(camera: Camera, base: tuple[float, float], chips: int) -> tuple[float, float, float, float]:
    """The box a stack fills on the table plane (a zone crop at 1 mm/px, origin at the table's)."""
    calibration = calibration_of(camera)
    image = camera.project_ideal(rims(base, chips))  # distortion-free pixels
    table = apply_homography(calibration.image_to_table, image)
    (x1, y1), (x2, y2) = table.min(axis=0), table.max(axis=0)
    return float(x1), float(y1), float(x2), float(y2)


@pytest.mark.parametrize("base", [(300.0, 150.0), (-350.0, -100.0), (50.0, 320.0)])
def test_a_smeared_stack_is_placed_by_the_disc_nearest_the_camera(base: tuple[float, float]) -> None:
    camera = oblique()
    model = camera_model(calibration_of(camera))
    box = plane_box(camera, base, 15)
    found = base_from_plane_box(box, np.eye(3), model)
    assert math.dist(found, base) < 2.5
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    assert math.dist(centre, base) > 15.0  # the box's middle lies well behind the stack


def test_a_stack_view_of_a_flat_table_shows_the_table_as_the_camera_does() -> None:
    camera = oblique()
    calibration = calibration_of(camera)
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[:, 640:] = 255  # right half white
    view = stack_view(frame, calibration, (0.0, 0.0))
    assert view is not None and view.shape == (VIEW_SIZE[1], VIEW_SIZE[0], 3)
    model = camera_model(calibration)
    points = view_points(model, (0.0, 0.0))
    assert points is not None
    pixels = model.project(points.reshape(-1, 3))
    expected = np.where(pixels[:, 0] >= 640, 255, 0).reshape(VIEW_SIZE[1], VIEW_SIZE[0])
    agree = np.abs(view[:, :, 0].astype(int) - expected) < 128
    assert agree.mean() > 0.97
