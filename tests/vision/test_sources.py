from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from assistant.vision.sources import (
    CameraSource,
    CameraUnavailableError,
    Frame,
    ImageFolderSource,
    SourceNotFoundError,
    SourceState,
    TruncatedVideoError,
    UnreadableSourceError,
    VideoFileSource,
    open_source,
)

FPS = 25.0


def _frame_image(index: int) -> np.ndarray:
    image = np.full((120, 160, 3), 6 * index, np.uint8)
    cv2.putText(image, str(index), (20, 80), cv2.FONT_HERSHEY_SIMPLEX, 2, (255, 255, 255), 3)
    return image


def _write_video(path: Path, frames: int = 24) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), FPS, (160, 120))
    assert writer.isOpened()
    for index in range(frames):
        writer.write(_frame_image(index))
    writer.release()
    return path


def _level(frame: Frame) -> float:
    return float(np.median(frame.image))


def test_video_frames_come_numbered_with_the_video_s_own_timestamps(tmp_path: Path) -> None:
    source = VideoFileSource(_write_video(tmp_path / "game.avi"))
    assert source.frame_count == 24
    frames = list(source)
    assert [f.index for f in frames] == list(range(24))
    assert [f.timestamp_s for f in frames] == pytest.approx([i / FPS for i in range(24)])
    assert [_level(f) for f in frames] == pytest.approx([6 * i for i in range(24)], abs=3)
    assert source.state is SourceState.ENDED


def test_replaying_a_video_twice_gives_identical_frames(tmp_path: Path) -> None:
    path = _write_video(tmp_path / "game.avi")
    first, second = list(open_source(str(path))), list(open_source(str(path)))
    assert [f.timestamp_s for f in first] == [f.timestamp_s for f in second]
    assert all(np.array_equal(a.image, b.image) for a, b in zip(first, second, strict=True))


def test_truncated_video_stops_with_a_clear_error_after_the_frames_it_could_read(
    tmp_path: Path,
) -> None:
    data = _write_video(tmp_path / "full.avi", frames=40).read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: len(data) // 2])
    kept: list[Frame] = []
    with pytest.raises(TruncatedVideoError, match="truncated or damaged") as caught:
        for frame in VideoFileSource(cut):
            kept.append(frame)
    assert 5 < len(kept) < 40
    assert caught.value.frames_read == len(kept)
    assert [_level(f) for f in kept] == pytest.approx([6 * i for i in range(len(kept))], abs=3)


def test_file_that_is_not_a_video_is_reported_as_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "noise.mp4"
    path.write_bytes(os.urandom(4096))
    with pytest.raises(UnreadableSourceError, match=r"cannot read .* as a video"):
        open_source(str(path))


def test_missing_video_is_reported(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFoundError, match="no such file"):
        open_source(str(tmp_path / "absent.mp4"))
    with pytest.raises(SourceNotFoundError, match="video file not found"):
        VideoFileSource(tmp_path / "absent.mp4")


def test_image_folder_plays_in_natural_order_at_its_frame_rate(tmp_path: Path) -> None:
    for index in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"frame{index}.png"), _frame_image(index))
    (tmp_path / "notes.txt").write_text("not an image")
    source = open_source(str(tmp_path), fps=10.0)
    assert isinstance(source, ImageFolderSource)
    frames = list(source)
    assert [_level(f) for f in frames] == [6.0, 12.0, 60.0]
    assert [f.timestamp_s for f in frames] == pytest.approx([0.0, 0.1, 0.2])


def test_single_image_is_a_one_frame_source(tmp_path: Path) -> None:
    path = tmp_path / "still.jpg"
    cv2.imwrite(str(path), _frame_image(3))
    assert len(list(open_source(str(path)))) == 1


def test_corrupt_image_in_a_folder_stops_after_the_good_ones(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a1.png"), _frame_image(1))
    (tmp_path / "a2.png").write_bytes(b"\x89PNG broken")
    kept = []
    with pytest.raises(UnreadableSourceError, match=r"cannot decode image .*a2\.png; the 1 frames"):
        for frame in open_source(str(tmp_path)):
            kept.append(frame)
    assert len(kept) == 1


def test_empty_folder_is_reported(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFoundError, match="no images in folder"):
        open_source(str(tmp_path))


def test_camera_index_that_does_not_exist_is_reported() -> None:
    with pytest.raises(CameraUnavailableError, match="no camera answers at 57"):
        open_source("57")


def test_camera_device_path_that_does_not_exist_is_reported() -> None:
    with pytest.raises(CameraUnavailableError, match="camera device not found: /dev/video97"):
        open_source("/dev/video97")


class ScriptedCamera:
    """A capture that plays a script: frames, then a failed read when unplugged."""

    def __init__(self, script: Iterator[np.ndarray | None], opened: bool = True) -> None:
        self.script = script
        self.opened = opened
        self.released = False

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, Any]:
        image = next(self.script, None)
        return (image is not None, image)

    def get(self, prop_id: int) -> float:
        return 30.0 if prop_id == cv2.CAP_PROP_FPS else 0.0

    def release(self) -> None:
        self.released = True


def test_vanished_camera_is_reported_and_reconnected_when_it_returns() -> None:
    now = [100.0]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    first_session = iter([_frame_image(i) for i in range(3)] + [None])
    second_session = iter([_frame_image(i) for i in range(3, 6)])
    # The camera is opened, unplugged after 3 frames, absent for two retries, then back.
    captures = iter(
        [
            ScriptedCamera(first_session),
            ScriptedCamera(iter([]), opened=False),
            ScriptedCamera(iter([]), opened=False),
            ScriptedCamera(second_session),
        ]
    )
    events: list[tuple[SourceState, str]] = []
    camera = CameraSource(
        0,
        retry_interval_s=0.5,
        opener=lambda device: next(captures, ScriptedCamera(iter([]), opened=False)),
        clock=lambda: now[0],
        sleep=sleep,
    )
    camera.on_state_change = lambda state, message: events.append((state, message))
    frames = []
    for _ in range(12):
        frame = camera.read()
        if frame is not None:
            frames.append(frame)
            now[0] += 1 / 30
    assert [_level(f) for f in frames] == [0.0, 6.0, 12.0, 18.0, 24.0, 30.0]
    assert [f.index for f in frames] == list(range(6))
    assert all(b.timestamp_s > a.timestamp_s for a, b in itertools.pairwise(frames))
    states = [state for state, _ in events]
    assert states == [SourceState.RECONNECTING, SourceState.OPEN, SourceState.RECONNECTING]
    assert "camera 0 lost" in events[0][1] and "reconnected" in events[1][1]
    assert sleeps[:3] == pytest.approx([0.5, 0.5, 0.5])


def test_reading_a_closed_source_gives_nothing(tmp_path: Path) -> None:
    source = open_source(str(_write_video(tmp_path / "game.avi", frames=3)))
    with source:
        assert source.read() is not None
    assert source.state is SourceState.CLOSED
    assert source.read() is None
    assert list(source) == []
