"""Frame sources: a camera, a video file or a folder of images behind one interface.

Every source hands out :class:`Frame` objects numbered from 0 with a timestamp that
comes from the source itself (the video's presentation time, the folder's frame rate,
the camera's clock), so replaying a file twice gives identical frames and times.

``read()`` returns a frame, or ``None`` when none is available now; ``state`` then says
why (:attr:`SourceState.ENDED` at the end of a file, :attr:`SourceState.RECONNECTING`
while a camera is gone). Iterating a source yields frames until it ends. A camera that
vanishes is reopened every ``retry_interval_s`` until it returns; the state changes are
reported through ``on_state_change`` so a screen can show them. A video that stops
before its announced length raises :class:`TruncatedVideoError` after the frames that
could be read were handed out.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


class SourceError(Exception):
    """A frame source cannot be opened or read; the message says which and why."""


class SourceNotFoundError(SourceError):
    """The file, folder or device does not exist."""


class UnreadableSourceError(SourceError):
    """The file exists but is not a video or image this program can decode."""


class TruncatedVideoError(SourceError):
    """The video stopped before its announced end; ``frames_read`` frames were delivered."""

    def __init__(self, message: str, frames_read: int) -> None:
        super().__init__(message)
        self.frames_read = frames_read


class CameraUnavailableError(SourceError):
    """No camera answers at that index or device path."""


class SourceState(Enum):
    OPEN = "open"
    RECONNECTING = "reconnecting"
    ENDED = "ended"
    CLOSED = "closed"


@dataclass(frozen=True)
class Frame:
    """One image from a source: its number, its time in seconds (source clock), BGR pixels."""

    index: int
    timestamp_s: float
    image: NDArray[np.uint8]


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` that sources use."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, Any]: ...

    def get(self, prop_id: int) -> float: ...

    def release(self) -> None: ...


StateListener = Callable[[SourceState, str], None]


class FrameSource:
    """Base of all sources: state, iteration, context management."""

    description = "source"

    def __init__(self) -> None:
        self._state = SourceState.OPEN
        self.on_state_change: StateListener | None = None

    @property
    def state(self) -> SourceState:
        return self._state

    def _set_state(self, state: SourceState, message: str) -> None:
        if state is not self._state:
            self._state = state
            if self.on_state_change is not None:
                self.on_state_change(state, message)

    def read(self) -> Frame | None:
        raise NotImplementedError

    def close(self) -> None:
        self._set_state(SourceState.CLOSED, f"{self.description} closed")

    def __iter__(self) -> Iterator[Frame]:
        while True:
            frame = self.read()
            if frame is not None:
                yield frame
            elif self._state in (SourceState.ENDED, SourceState.CLOSED):
                return

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class VideoFileSource(FrameSource):
    """A recorded video; timestamps are the frames' presentation times."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)
        self.description = f"video {self.path}"
        if not self.path.is_file():
            raise SourceNotFoundError(f"video file not found: {self.path}")
        self._capture: Capture = cv2.VideoCapture(str(self.path))
        if not self._capture.isOpened():
            raise UnreadableSourceError(
                f"cannot read {self.path} as a video (not a video file, or damaged beyond decoding)"
            )
        fps = self._capture.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and np.isfinite(fps) and fps > 0 else 30.0
        count = self._capture.get(cv2.CAP_PROP_FRAME_COUNT)
        self.frame_count: int | None = int(count) if count and count > 0 else None
        self._next_index = 0

    def read(self) -> Frame | None:
        if self._state is not SourceState.OPEN:
            return None
        ok, image = self._capture.read()
        if not ok or image is None:
            self._capture.release()
            self._set_state(SourceState.ENDED, f"{self.description} ended")
            self._check_complete()
            return None
        msec = self._capture.get(cv2.CAP_PROP_POS_MSEC)
        index = self._next_index
        self._next_index += 1
        timestamp = msec / 1000.0 if index == 0 or msec > 0 else index / self.fps
        return Frame(index, timestamp, np.asarray(image, dtype=np.uint8))

    def _check_complete(self) -> None:
        read = self._next_index
        if read == 0:
            raise UnreadableSourceError(f"{self.path} holds no frame that can be decoded")
        if self.frame_count is not None and read < self.frame_count:
            raise TruncatedVideoError(
                f"{self.path} is truncated or damaged: it stopped after frame {read} of the "
                f"{self.frame_count} it announces; the {read} frames read are kept",
                read,
            )

    def close(self) -> None:
        self._capture.release()
        super().close()


def _natural_key(path: Path) -> list[Any]:
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]


class ImageFolderSource(FrameSource):
    """Images in a folder (or one image file), in natural name order, at ``fps``."""

    def __init__(self, path: str | Path, fps: float = 30.0) -> None:
        super().__init__()
        self.path = Path(path)
        self.description = f"images {self.path}"
        if fps <= 0:
            raise ValueError("fps must be positive")
        self.fps = fps
        if self.path.is_dir():
            self.files = sorted(
                (p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()),
                key=_natural_key,
            )
            if not self.files:
                raise SourceNotFoundError(f"no images in folder {self.path}")
        elif self.path.is_file():
            self.files = [self.path]
        else:
            raise SourceNotFoundError(f"image folder not found: {self.path}")
        self.frame_count: int | None = len(self.files)
        self._next_index = 0

    def read(self) -> Frame | None:
        if self._state is not SourceState.OPEN:
            return None
        if self._next_index >= len(self.files):
            self._set_state(SourceState.ENDED, f"{self.description} ended")
            return None
        path = self.files[self._next_index]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            self._set_state(SourceState.ENDED, f"{self.description} stopped at {path.name}")
            raise UnreadableSourceError(
                f"cannot decode image {path}; the {self._next_index} frames before it are kept"
            )
        index = self._next_index
        self._next_index += 1
        return Frame(index, index / self.fps, np.asarray(image, dtype=np.uint8))


CaptureOpener = Callable[[int | str], Capture]


def _open_capture(device: int | str) -> Capture:
    """Open a camera, keeping OpenCV's own warnings about a missing one off the terminal."""
    logging = getattr(cv2, "utils", None) and getattr(cv2.utils, "logging", None)
    if logging is None:
        return cv2.VideoCapture(device)
    previous = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_SILENT)
    try:
        return cv2.VideoCapture(device)
    finally:
        logging.setLogLevel(previous)


class CameraSource(FrameSource):
    """A live camera by index or device path; reconnects when it vanishes and returns.

    Timestamps are seconds on the monotonic clock since the source opened. While the
    camera is gone ``read()`` waits up to ``retry_interval_s``, tries to reopen it once
    and returns ``None`` if it is still gone; frame numbers carry on after it returns.
    ``opener`` builds the capture (``cv2.VideoCapture`` unless a test scripts one).
    """

    def __init__(
        self,
        device: int | str,
        *,
        retry_interval_s: float = 1.0,
        opener: CaptureOpener = _open_capture,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__()
        self.device = device
        self.description = f"camera {device}"
        self.retry_interval_s = retry_interval_s
        self._opener = opener
        self._clock = clock
        self._sleep = sleep
        if isinstance(device, str) and not Path(device).exists():
            raise CameraUnavailableError(f"camera device not found: {device}{_camera_hint()}")
        self._capture = opener(device)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraUnavailableError(f"no camera answers at {device}{_camera_hint()}")
        self._start = clock()
        self._last_attempt = self._start
        self._next_index = 0
        self.fps = self._capture.get(cv2.CAP_PROP_FPS) or 30.0
        self.frame_count: int | None = None

    def read(self) -> Frame | None:
        if self._state is SourceState.CLOSED:
            return None
        if self._state is SourceState.RECONNECTING and not self._reconnect():
            return None
        ok, image = self._capture.read()
        if not ok or image is None:
            self._capture.release()
            self._last_attempt = self._clock()
            self._set_state(SourceState.RECONNECTING, f"{self.description} lost; trying to reconnect")
            return None
        index = self._next_index
        self._next_index += 1
        return Frame(index, self._clock() - self._start, np.asarray(image, dtype=np.uint8))

    def _reconnect(self) -> bool:
        wait = self._last_attempt + self.retry_interval_s - self._clock()
        if wait > 0:
            self._sleep(wait)
        self._last_attempt = self._clock()
        capture = self._opener(self.device)
        if not capture.isOpened():
            capture.release()
            return False
        self._capture = capture
        self._set_state(SourceState.OPEN, f"{self.description} reconnected")
        return True

    def close(self) -> None:
        self._capture.release()
        super().close()


def _camera_hint() -> str:
    devices = sorted(str(p) for p in Path("/dev").glob("video*")) if Path("/dev").is_dir() else []
    return f" (cameras present: {', '.join(devices)})" if devices else " (no camera is connected)"


def open_source(spec: str | int, *, fps: float = 30.0, **camera_options: Any) -> FrameSource:
    """Open what ``spec`` names: a camera index (``0``) or device (``/dev/video0``), a
    video file, a folder of images or a single image."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return CameraSource(int(spec), **camera_options)
    path = Path(spec)
    if path.is_dir():
        return ImageFolderSource(path, fps)
    if not path.exists():
        if str(spec).startswith("/dev/"):
            raise CameraUnavailableError(f"camera device not found: {spec}{_camera_hint()}")
        raise SourceNotFoundError(f"no such file, folder or camera: {spec}")
    if stat.S_ISCHR(os.stat(path).st_mode):
        return CameraSource(str(path), **camera_options)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFolderSource(path, fps)
    return VideoFileSource(path)
