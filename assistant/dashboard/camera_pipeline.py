"""The camera in the dashboard: frames shown, read into the game, trouble shown.

:class:`CameraPipeline` reads a frame source on the window's timer (through
:class:`~assistant.dashboard.camera_view.FrameFeed`), puts every frame through a
:class:`~assistant.dashboard.live_table.LiveTable` when a calibration and a detector are
there, draws the zones and what the detector found, hands the camera's questions to the
:class:`~assistant.dashboard.queries_panel.QueriesPanel`, and keeps a line of camera
trouble under the picture: a camera that vanished ("camera lost, reconnecting"), a bumped
camera ("camera moved: recalibrate", with a button to accept the new mapping), a
detector that is not installed. None of these stops the game: cards go in by hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from assistant.dashboard.camera_view import CameraView, FrameFeed, Overlay
from assistant.dashboard.live_table import LiveTable, zone_outlines
from assistant.dashboard.queries_panel import QueriesPanel
from assistant.engine.actions import event_to_action
from assistant.pipeline.referee import Applied, DealerQuery
from assistant.vision.sources import Frame, FrameSource, SourceState

ALERT_STYLE = "font-size:13pt; font-weight:bold; color:{};"


class PacedSource:
    """Reads a source, but a lost camera only once per ``retry_s``: reopening a camera
    must never make the window wait (the camera source itself would sleep until its
    next attempt)."""

    def __init__(
        self, source: FrameSource, retry_s: float = 1.0, clock: Callable[[], float] = time.monotonic
    ):
        self.source = source
        self.retry_s = retry_s
        self._clock = clock
        self._tried = -float("inf")
        self.description = str(getattr(source, "description", "camera"))
        self.fps = float(getattr(source, "fps", 30.0) or 30.0)

    @property
    def state(self) -> SourceState:
        return self.source.state

    def read(self) -> Frame | None:
        if self.source.state is SourceState.RECONNECTING:
            now = self._clock()
            if now - self._tried < self.retry_s:
                return None
            self._tried = now
        return self.source.read()

    def close(self) -> None:
        self.source.close()


class CameraBar(QWidget):
    """The camera's trouble, in one line under the picture, and the recalibration button."""

    def __init__(self) -> None:
        super().__init__()
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel()
        self.label.setWordWrap(True)
        row.addWidget(self.label, 1)
        self.accept = QPushButton("Use new calibration")
        self.accept.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.accept.hide()
        row.addWidget(self.accept)
        self.hide()

    def show_text(self, text: str, color: str = "#ff5c5c") -> None:
        self.label.setStyleSheet(ALERT_STYLE.format(color))
        self.label.setText(text)
        if self.parentWidget() is not None:  # never a window of its own
            self.setVisible(bool(text))


class CameraPipeline(QObject):
    """One frame source in the window; with ``live``, its frames are read into the game.

    ``alert`` carries the current camera trouble ("" when none); ``applied`` each event
    the camera put into the game; ``lost`` True while the camera is gone or not read.
    """

    alert = Signal(str)
    applied = Signal(object)
    lost = Signal(bool)

    def __init__(
        self,
        view: CameraView,
        source: FrameSource,
        queries: QueriesPanel,
        live: LiveTable | None = None,
        *,
        note: str = "",
        interval_ms: int | None = None,
        retry_s: float = 1.0,
    ) -> None:
        super().__init__(view)
        self.view = view
        self.source = source
        self.queries = queries
        self.live = live
        self.note = note  # standing remark (no detector, no calibration)
        self.bar = CameraBar()
        self.bar.accept.clicked.connect(lambda _=False: self.accept_recalibration())
        self.trouble = ""
        self.is_lost = False
        paced = PacedSource(source, retry_s)
        source.on_state_change = self._on_state
        interval = interval_ms if interval_ms is not None else max(1, int(1000 / paced.fps))
        self.feed = FrameFeed(
            view,
            paced,
            detector=self._on_frame if live is not None else None,
            zones=live.zones if live is not None else (),
            interval_ms=interval,
            description=paced.description,
        )
        self.show_alert()

    @classmethod
    def zones_only(
        cls,
        view: CameraView,
        source: FrameSource,
        queries: QueriesPanel,
        calibration: Any,
        note: str,
        **kw: Any,
    ) -> CameraPipeline:
        """The picture with the calibration's zones drawn, but nothing read."""
        pipeline = cls(view, source, queries, None, note=note, **kw)
        keys = [key for key in calibration.layout.zones() if key.endswith((".cards", ".bet"))]
        pipeline.feed.zones = tuple(zone_outlines(calibration, keys))
        return pipeline

    # ------------------------------------------------------------------ running

    def start(self) -> None:
        self.feed.start()

    def stop(self) -> None:
        self.feed.stop()

    def step(self) -> bool:
        """Read and show one frame now (the timer does this on its own)."""
        return self.feed.step()

    def _on_frame(self, item: Any) -> Sequence[Overlay]:
        assert self.live is not None
        if not isinstance(item, Frame):
            return ()
        reading = self.live.read(item)
        for outcome in reading.outcomes:
            if isinstance(outcome, DealerQuery):
                self.queries.add(outcome)
            elif isinstance(outcome, Applied):
                self.applied.emit(outcome)
        self.feed.zones = tuple(self.live.zones)
        self._set_trouble(reading.paused)
        return reading.overlays

    def _on_state(self, state: SourceState, message: str) -> None:
        if state is SourceState.RECONNECTING:
            self.view.set_status(f"{self.feed.description} lost, reconnecting…")
            self._set_trouble("camera lost, reconnecting…")
        elif state is SourceState.OPEN:
            self.view.set_status(f"{self.feed.description} reconnected")
            self._set_trouble("")

    def _set_trouble(self, text: str) -> None:
        if text == self.trouble:
            return
        self.trouble = text
        self.show_alert()
        lost = bool(text)
        if lost != self.is_lost:
            self.is_lost = lost
            self.lost.emit(lost)

    def show_alert(self) -> None:
        """Show the current trouble (or the standing note) under the picture."""
        offer = self.live is not None and self.live.bumped is not None and self.live.bumped.recalibration
        if self.bar.parentWidget() is not None:
            self.bar.accept.setVisible(bool(offer))
        if self.trouble:
            text = self.trouble
            if self.live is not None and self.live.bumped is not None and not offer:
                text += " (too few markers in view to refit: run 'dealer-assistant calibrate')"
            self.bar.show_text(text)
        else:
            self.bar.show_text(self.note, "#ffb347")
        self.alert.emit(self.trouble or self.note)

    def accept_recalibration(self) -> bool:
        if self.live is None or not self.live.accept_recalibration():
            return False
        self.feed.zones = tuple(self.live.zones)
        self._set_trouble("")
        self.show_alert()
        return True


def describe(applied: Applied) -> str:
    return "camera: " + " ".join(str(part) for part in event_to_action(applied.event))
