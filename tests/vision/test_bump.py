from __future__ import annotations

import numpy as np
import pytest

from assistant.vision.bump import BumpMonitor, CameraStatus
from assistant.vision.calibration import Calibration, calibrate
from assistant.vision.markers import MarkerDetector
from tests.vision.scenes import Scene, rolled, shifted, table_grid


@pytest.fixture(scope="module")
def calibration(scene: Scene) -> Calibration:
    return calibrate(MarkerDetector().detect(scene.view(seed=100)), scene.layout, (1280, 720))


def test_undisturbed_camera_stays_steady_with_residuals_under_a_millimetre(
    scene: Scene, calibration: Calibration
) -> None:
    monitor = BumpMonitor(calibration)
    for seed in (101, 102, 103):
        check = monitor.check(seed, scene.view(seed=seed))
        assert check.status is CameraStatus.STEADY
        assert check.residual_mm is not None and check.residual_mm < 1.0
        assert check.markers_seen == (0, 1, 2, 3, 4, 5)


@pytest.mark.parametrize(
    ("moved", "least_mm"),
    [(lambda h: shifted(h, 3.0, 0.0), 4.0), (lambda h: rolled(h, 0.5), 5.0)],
    ids=["shift-3px", "roll-half-degree"],
)
def test_bumped_camera_is_noticed_on_the_second_check_and_recalibration_offered(
    scene: Scene, calibration: Calibration, moved: object, least_mm: float
) -> None:
    assert callable(moved)
    truth = moved(scene.table_to_image)
    monitor = BumpMonitor(calibration)
    first = monitor.check(0, scene.view(truth, seed=104))
    second = monitor.check(15, scene.view(truth, seed=105))
    assert first.status is CameraStatus.SUSPECT
    assert second.status is CameraStatus.BUMPED
    assert first.residual_mm is not None and first.residual_mm > least_mm
    offer = second.recalibration
    assert offer is not None
    grid = table_grid(scene.layout)
    pixels = np.hstack([grid, np.ones((len(grid), 1))]) @ truth.T
    assert np.abs(offer.to_table(pixels[:, :2] / pixels[:, 2:]) - grid).max() < 3.0
    assert monitor.calibration is calibration  # never swapped without the dealer


def test_one_odd_frame_is_not_a_bump(scene: Scene, calibration: Calibration) -> None:
    monitor = BumpMonitor(calibration)
    statuses = [
        monitor.check(0, scene.view(shifted(scene.table_to_image, 4.0, 2.0), seed=106)).status,
        monitor.check(15, scene.view(seed=107)).status,
        monitor.check(30, scene.view(shifted(scene.table_to_image, 4.0, 2.0), seed=108)).status,
    ]
    assert statuses == [CameraStatus.SUSPECT, CameraStatus.STEADY, CameraStatus.SUSPECT]


def test_check_carries_on_with_three_markers(scene: Scene, calibration: Calibration) -> None:
    monitor = BumpMonitor(calibration)
    steady = monitor.check(0, scene.hide_markers(scene.view(seed=109), [0, 2, 4]))
    assert steady.status is CameraStatus.STEADY and steady.markers_seen == (1, 3, 5)
    bumped_view = scene.view(shifted(scene.table_to_image, 0.0, 4.0), seed=110)
    suspect = monitor.check(15, scene.hide_markers(bumped_view, [0, 2, 4]))
    assert suspect.status is CameraStatus.SUSPECT


def test_too_few_markers_leaves_the_mapping_alone(scene: Scene, calibration: Calibration) -> None:
    monitor = BumpMonitor(calibration)
    bumped_view = scene.view(shifted(scene.table_to_image, 5.0, 0.0), seed=111)
    for index in (0, 15, 30):
        check = monitor.check(index, scene.hide_markers(bumped_view, [0, 1, 2, 3]))
        assert check.status is CameraStatus.TOO_FEW_MARKERS
        assert check.residual_mm is None
    assert monitor.calibration is calibration


def test_markers_are_rechecked_every_interval_frames(scene: Scene, calibration: Calibration) -> None:
    monitor = BumpMonitor(calibration, interval=5)
    image = scene.view(seed=112)
    checked = [index for index in range(12) if monitor.update(index, image) is not None]
    assert checked == [0, 5, 10]
    assert monitor.last is not None and monitor.last.frame_index == 10


def test_accepting_a_recalibration_makes_the_moved_camera_steady(
    scene: Scene, calibration: Calibration
) -> None:
    truth = shifted(scene.table_to_image, 3.0, -2.0)
    monitor = BumpMonitor(calibration, confirmations=1)
    check = monitor.check(0, scene.view(truth, seed=113))
    assert check.status is CameraStatus.BUMPED and check.recalibration is not None
    monitor.accept(check.recalibration)
    assert monitor.check(15, scene.view(truth, seed=114)).status is CameraStatus.STEADY
