"""The live camera (or replayed video) view, with detections and zones drawn over it.

:class:`CameraView` shows one BGR frame (a numpy array) with boxes, labels and zone
outlines given in the frame's pixels. :class:`FrameFeed` polls any object with a
``read()`` method (the vision package's frame sources: ``read()`` returns a frame with an
``image`` array, a bare array, or ``None`` when no frame is ready) on a timer, runs an
optional detector on each frame (see :data:`Detector`), and hands both to the view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray
from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import QWidget

Image = NDArray[np.uint8]


@dataclass(frozen=True)
class Overlay:
    """A detection to draw: a box in frame pixels (x1, y1, x2, y2), its label, an RGB colour."""

    box: tuple[float, float, float, float]
    label: str
    color: tuple[int, int, int] = (40, 220, 90)


@dataclass(frozen=True)
class Zone:
    """A table zone (a seat's card area, the pot) as a polygon in frame pixels."""

    name: str
    points: tuple[tuple[float, float], ...]
    color: tuple[int, int, int] = (250, 200, 40)


class FrameReader(Protocol):
    def read(self) -> Any: ...


#: Called with what the source's ``read()`` returned (a frame with ``index``, ``timestamp_s``
#: and ``image``, or a bare image array); returns the boxes to draw. The game pipeline
#: can run here and hand its readings back as overlays.
Detector = Callable[[Any], Sequence[Overlay]]


def to_qimage(image: Image) -> QImage:
    """A QImage copy of a BGR (or grey) uint8 array."""
    array = np.ascontiguousarray(image)
    if array.dtype != np.uint8:
        raise ValueError(f"frames must be 8-bit images, not {array.dtype}")
    if array.ndim == 2:
        height, width = array.shape
        return QImage(array.data, width, height, array.strides[0], QImage.Format.Format_Grayscale8).copy()
    if array.ndim != 3 or array.shape[2] != 3:
        raise ValueError(f"frames must be BGR images of shape (height, width, 3), not {array.shape}")
    height, width, _ = array.shape
    return QImage(array.data, width, height, array.strides[0], QImage.Format.Format_BGR888).copy()


class CameraView(QWidget):
    """Shows the latest frame, scaled to fit, with zones and detection boxes over it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumSize(320, 180)
        self.image: QImage | None = None
        self.overlays: tuple[Overlay, ...] = ()
        self.zones: tuple[Zone, ...] = ()
        self.status = "No camera attached: enter cards by hand"
        self.frames_shown = 0

    def show_frame(
        self, image: Image, overlays: Sequence[Overlay] = (), zones: Sequence[Zone] | None = None
    ) -> None:
        self.image = to_qimage(image)
        self.overlays = tuple(overlays)
        if zones is not None:
            self.zones = tuple(zones)
        self.frames_shown += 1
        self.update()

    def set_status(self, text: str) -> None:
        self.status = text
        self.update()

    def frame_rect(self) -> QRectF:
        """Where the frame is drawn in the widget (aspect ratio kept)."""
        if self.image is None:
            return QRectF(self.rect())
        w, h = self.image.width(), self.image.height()
        scale = min(self.width() / w, self.height() / h)
        return QRectF((self.width() - w * scale) / 2, (self.height() - h * scale) / 2, w * scale, h * scale)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(20, 24, 28))
        font = QFont(self.font())
        font.setPointSize(11)
        painter.setFont(font)
        if self.image is None:
            painter.setPen(QColor(200, 200, 200))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.status)
            painter.end()
            return
        target = self.frame_rect()
        painter.drawImage(target, self.image)
        scale = target.width() / self.image.width()

        def point(x: float, y: float) -> QPointF:
            return QPointF(target.x() + x * scale, target.y() + y * scale)

        for zone in self.zones:
            painter.setPen(QPen(QColor(*zone.color), 2, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPolygon(QPolygonF([point(x, y) for x, y in zone.points]))
            if zone.points:
                painter.drawText(point(*zone.points[0]) + QPointF(4, 16), zone.name)
        for overlay in self.overlays:
            x1, y1, x2, y2 = overlay.box
            color = QColor(*overlay.color)
            painter.setPen(QPen(color, 3))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            box = QRectF(point(x1, y1), point(x2, y2))
            painter.drawRect(box)
            metrics = painter.fontMetrics()
            label = QRectF(
                box.x(),
                box.y() - metrics.height() - 2,
                metrics.horizontalAdvance(overlay.label) + 8,
                metrics.height() + 2,
            )
            painter.fillRect(label, color)
            painter.setPen(QColor(0, 0, 0))
            painter.drawText(label, Qt.AlignmentFlag.AlignCenter, overlay.label)
        if self.status:
            painter.setPen(QColor(255, 255, 255))
            painter.drawText(
                self.rect().adjusted(8, 4, -8, -4),
                Qt.AlignmentFlag.AlignBottom | Qt.AlignmentFlag.AlignLeft,
                self.status,
            )
        painter.end()


def frame_image(item: Any) -> Image | None:
    """The pixels of what a source's ``read()`` returned (a frame object or an array)."""
    if item is None:
        return None
    image = getattr(item, "image", item)
    if not isinstance(image, np.ndarray):
        raise TypeError(f"a frame source returned {type(item).__name__}, not a frame or an image array")
    return image


class FrameFeed(QObject):
    """Reads a frame source on a timer and shows each frame (and its detections)."""

    frame_shown = Signal(int)
    ended = Signal(str)

    def __init__(
        self,
        view: CameraView,
        source: FrameReader,
        detector: Detector | None = None,
        zones: Sequence[Zone] = (),
        interval_ms: int = 33,
        description: str = "camera",
    ) -> None:
        super().__init__(view)
        self.view = view
        self.source = source
        self.detector = detector
        self.zones = tuple(zones)
        self.description = description
        self.frames = 0
        self.running = False
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.step)
        view.set_status(f"{description}: waiting for the first frame")

    def start(self) -> None:
        self.running = True
        self.timer.start()

    def stop(self, reason: str = "") -> None:
        self.timer.stop()
        if self.running:
            self.running = False
            self.view.set_status(reason or f"{self.description} stopped")
            self.ended.emit(reason)

    def step(self) -> bool:
        """Read and show one frame; returns False when none was shown."""
        try:
            item = self.source.read()
            image = frame_image(item)
        except Exception as error:  # a source that fails stops the feed, never the dashboard
            self.stop(f"{self.description} stopped: {error}")
            return False
        if image is None:
            state = getattr(self.source, "state", None)
            value = getattr(state, "value", state)
            if value in ("ended", "closed"):
                self.stop(f"{self.description} ended after {self.frames} frames")
            return False
        overlays: Sequence[Overlay] = ()
        try:
            if self.detector is not None:
                overlays = self.detector(item)
            note = f"{len(overlays)} detections"
        except Exception as error:  # a failing detector is shown, the picture keeps coming
            overlays, note = (), f"detector failed: {error}"
        self.view.show_frame(image, overlays, self.zones)
        self.frames += 1
        self.view.set_status(f"{self.description} · frame {self.frames} · {note}")
        self.frame_shown.emit(self.frames)
        return True
