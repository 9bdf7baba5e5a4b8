"""A zone cut out of the camera's own frame, tall enough for the stacks standing in it."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.synth.camera import Camera
from assistant.vision.zone_frames import FRAME_CROP_PX, FrameCrop, ZoneFrames
from tests.vision.test_sampling import calibration_of
from tests.vision.test_stack_view import oblique, rims


def stack_box(camera: Camera, base: tuple[float, float], chips: int) -> tuple[float, float, float, float]:
    """The box in the frame of ``chips`` chips standing at ``base`` (table mm)."""
    pixels = camera.project(rims(base, chips))
    (x1, y1), (x2, y2) = pixels.min(axis=0), pixels.max(axis=0)
    return float(x1), float(y1), float(x2), float(y2)


def inside(box: tuple[float, float, float, float], region: tuple[int, int, int, int]) -> bool:
    return region[0] <= box[0] and region[1] <= box[1] and box[2] <= region[2] and box[3] <= region[3]


@pytest.mark.parametrize("tilt", [20.0, 45.0, 65.0])
def test_a_twenty_chip_stack_standing_anywhere_in_a_zone_is_seen_whole_in_its_frame_crop(tilt: float) -> None:
    camera = oblique(tilt_deg=tilt, yaw_deg=-40.0)
    frames = ZoneFrames(calibration_of(camera))
    assert frames.regions, "the camera sees the table's zones"
    for key, region in frames.regions.items():
        zone = frames.zones[key]
        box = [stack_box(camera, corner, 20) for corner in zone.corners()]
        left, top, right, bottom = region
        width, height = camera.width, camera.height
        # a stack on the zone's corner lies in the crop, except where the frame itself ends
        for x1, y1, x2, y2 in box:
            assert inside((max(x1, 0), max(y1, 0), min(x2, width), min(y2, height)), region), key
        assert 0 <= left < right <= width and 0 <= top < bottom <= height


def test_a_crop_is_the_frames_rectangle_scaled_and_its_boxes_map_back() -> None:
    camera = oblique()
    frames = ZoneFrames(calibration_of(camera))
    frame = np.random.default_rng(1).integers(0, 255, (camera.height, camera.width, 3), np.uint8)
    (crop,) = frames.cut(frame, ["pot"])
    height, width = crop.image.shape[:2]
    assert max(width, height) == FRAME_CROP_PX
    left, top, right, bottom = frames.regions["pot"]
    assert crop.origin == (left, top) and crop.scale == pytest.approx(
        FRAME_CROP_PX / max(right - left, bottom - top)
    )
    box = (left + 10.0, top + 20.0, left + 60.0, top + 90.0)
    assert crop.to_frame(crop.from_frame(box)) == pytest.approx(box)
    # the crop's pixels are the frame's: a patch in the frame shows where its box maps
    marked = frame.copy()
    marked[top + 20 : top + 90, left + 10 : left + 60] = (0, 0, 255)
    (again,) = frames.cut(marked, ["pot"])
    x1, y1, x2, y2 = (round(v) for v in crop.from_frame(box))
    assert (again.image[y1 + 2 : y2 - 2, x1 + 2 : x2 - 2] == (0, 0, 255)).all()


def test_a_stack_belongs_to_the_zone_its_base_stands_in() -> None:
    frames = ZoneFrames(calibration_of(oblique()))
    pot = frames.zones["pot"]
    assert frames.holds("pot", pot.center)
    beyond = (pot.center[0] + pot.size[0], pot.center[1])
    assert not frames.holds("pot", beyond)


def test_a_frame_of_another_size_than_the_calibration_is_refused() -> None:
    camera = oblique()
    frames = ZoneFrames(calibration_of(camera))
    with pytest.raises(ValueError, match="calibration is for 1280x720"):
        frames.cut(np.zeros((480, 640, 3), np.uint8))


def test_zones_the_camera_does_not_see_give_no_crop() -> None:
    # close above one side of the table: the far seats are out of the picture
    camera = Camera.looking_at(
        1280, 720, hfov_deg=50.0, target=(-40.0, 0.0), distance=60.0, tilt_deg=10.0, yaw_deg=0.0
    )
    frames = ZoneFrames(calibration_of(camera))
    assert "pot" in frames.regions
    missing = set(frames.zones) - set(frames.regions)
    assert missing
    frame = np.zeros((720, 1280, 3), np.uint8)
    assert [c.key for c in frames.cut(frame, sorted(missing))] == []


def test_frame_crop_boxes_round_trip() -> None:
    crop = FrameCrop("pot", np.zeros((10, 10, 3), np.uint8), (100, 50), 0.5)
    assert crop.to_frame((0, 0, 10, 10)) == (100.0, 50.0, 120.0, 70.0)
    assert crop.from_frame((100, 50, 120, 70)) == (0.0, 0.0, 10.0, 10.0)
