"""The camera view: a real video file through the vision frame source, boxes drawn over it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from assistant.dashboard.camera_view import CameraView, FrameFeed, Overlay, Zone, to_qimage
from assistant.vision.sources import Frame, VideoFileSource

FRAMES = 12


@pytest.fixture
def video(tmp_path: Path) -> Path:
    """A 12-frame 160x120 MJPG video: dark grey with a white square that moves right."""
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (160, 120))
    assert writer.isOpened()
    for i in range(FRAMES):
        frame = np.full((120, 160, 3), 40, np.uint8)
        frame[40:80, 10 + 5 * i : 50 + 5 * i] = 255
        writer.write(frame)
    writer.release()
    return path


def test_every_frame_of_a_video_is_shown_with_its_detections(qtbot: Any, video: Path) -> None:
    view = CameraView()
    view.resize(320, 240)
    qtbot.addWidget(view)
    view.show()
    calls: list[tuple[int, ...]] = []

    def detector(frame: Frame) -> list[Overlay]:
        calls.append((frame.index, *frame.image.shape))
        return [Overlay((100, 10, 150, 30), "7h", (255, 0, 0))]

    source = VideoFileSource(video)
    feed = FrameFeed(
        view,
        source,
        detector,
        zones=[Zone("pot", ((5, 90), (60, 90), (60, 115), (5, 115)))],
        interval_ms=1,
        description="video table.avi",
    )
    with qtbot.waitSignal(feed.ended, timeout=10_000) as ended:
        feed.start()
    assert ended.args == [f"video table.avi ended after {FRAMES} frames"]
    assert feed.frames == view.frames_shown == FRAMES
    assert calls == [(i, 120, 160, 3) for i in range(FRAMES)]
    assert view.image is not None and (view.image.width(), view.image.height()) == (160, 120)
    image = view.grab().toImage()
    rect = view.frame_rect()
    scale = rect.width() / 160
    # the detection box is drawn in red on its frame position (its left edge at x = 100)
    edge = image.pixelColor(int(rect.x() + 100 * scale) + 1, int(rect.y() + 20 * scale))
    assert (edge.red(), edge.green(), edge.blue()) == (255, 0, 0)
    # the white square of the last frame is shown where the video has it
    square = image.pixelColor(int(rect.x() + 80 * scale), int(rect.y() + 60 * scale))
    assert square.red() > 200 and square.green() > 200
    assert view.status == "video table.avi ended after 12 frames"


def test_a_source_that_fails_stops_the_feed_with_its_message(qtbot: Any) -> None:
    class Broken:
        def read(self) -> object:
            raise OSError("camera unplugged")

    view = CameraView()
    qtbot.addWidget(view)
    feed = FrameFeed(view, Broken(), description="camera 0")
    feed.start()
    assert not feed.step()
    assert view.status == "camera 0 stopped: camera unplugged"
    assert not feed.running


def test_a_source_with_no_frame_yet_keeps_waiting(qtbot: Any) -> None:
    class Quiet:
        state = "open"

        def read(self) -> None:
            return None

    view = CameraView()
    qtbot.addWidget(view)
    feed = FrameFeed(view, Quiet())
    feed.start()
    assert not feed.step() and feed.running
    feed.stop()


def test_frames_must_be_8_bit_bgr_images() -> None:
    assert to_qimage(np.zeros((4, 6, 3), np.uint8)).width() == 6
    assert to_qimage(np.zeros((4, 6), np.uint8)).height() == 4
    with pytest.raises(ValueError, match="8-bit"):
        to_qimage(np.zeros((4, 6, 3), np.float32))
    with pytest.raises(ValueError, match="BGR"):
        to_qimage(np.zeros((4, 6, 4), np.uint8))


def test_a_failing_detector_is_reported_and_the_picture_keeps_coming(qtbot: Any, video: Path) -> None:
    def detector(frame: Frame) -> list[Overlay]:
        raise RuntimeError("model file missing")

    view = CameraView()
    qtbot.addWidget(view)
    feed = FrameFeed(view, VideoFileSource(video), detector, description="video")
    assert feed.step() and feed.step()
    assert view.frames_shown == 2
    assert view.status == "video · frame 2 · detector failed: model file missing"
