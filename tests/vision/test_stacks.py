from __future__ import annotations

import math

import numpy as np
import pytest

from assistant.vision.calibration import Calibration, calibrate
from assistant.vision.markers import MarkerDetector
from assistant.vision.stacks import camera_model, estimate_focal_px, stack_base_point
from assistant.vision.synthetic_view import PinholeCamera, oblique_camera
from tests.vision.scenes import Scene

RADIUS = 19.5
STACKS = [
    ((300.0, 200.0), 40.0),
    ((-600.0, -300.0), 60.0),
    ((0.0, 350.0), 20.0),
    ((750.0, 0.0), 100.0),
]


def _stack_box(camera: PinholeCamera, base: tuple[float, float], height: float) -> tuple[float, ...]:
    angles = np.linspace(0, 2 * math.pi, 180)
    rim = [(base[0] + RADIUS * math.cos(a), base[1] + RADIUS * math.sin(a)) for a in angles]
    points = [(x, y, z) for x, y in rim for z in (0.0, -height)]  # z < 0 is above the table
    pixels = camera.project(np.array(points))
    return (*pixels.min(axis=0), *pixels.max(axis=0))


def _exact_calibration(scene: Scene, camera: PinholeCamera) -> Calibration:
    image_to_table = np.linalg.inv(camera.table_to_image)
    return Calibration(scene.layout, image_to_table / image_to_table[2, 2], (1280, 720), {}, {}, 0.0)


CAMERAS = {
    "oblique": None,
    "overhead-offset": PinholeCamera.looking_at((300.0, 200.0, -2500.0), (0.0, 0.0, 0.0), focal_px=900.0),
}


@pytest.mark.parametrize("name", list(CAMERAS))
def test_stack_is_placed_by_its_base_not_its_box_centre(scene: Scene, name: str) -> None:
    camera = CAMERAS[name] or oblique_camera(scene.layout)
    calibration = _exact_calibration(scene, camera)
    model = camera_model(calibration)
    assert model.focal_px == pytest.approx(camera.focal_px, rel=0.01)
    naive_errors = []
    for base, height in STACKS:
        box = _stack_box(camera, base, height)
        found = stack_base_point(box, calibration, camera=model)
        assert math.dist(found, base) < 1.5
        centre = calibration.to_table([[(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]])[0]
        naive_errors.append(math.dist(centre, base))
    assert max(naive_errors) > 10.0  # the box centre would have been well off


def test_stack_base_from_a_detected_calibration_is_within_a_few_millimetres(scene: Scene) -> None:
    calibration = calibrate(MarkerDetector().detect(scene.view(seed=300)), scene.layout, (1280, 720))
    for base, height in STACKS:
        found = stack_base_point(_stack_box(scene.camera, base, height), calibration)
        assert math.dist(found, base) < 5.0


def test_focal_length_is_not_guessed_from_a_square_on_view() -> None:
    camera = PinholeCamera.looking_at((0.0, 0.0, -2000.0), (0.0, 0.0, 0.0), focal_px=900.0)
    assert estimate_focal_px(camera.table_to_image, (1280, 720)) is None
