"""Noticing a bumped camera: re-detect the markers every few frames and compare.

Every ``interval`` frames the monitor finds the markers again, maps their corners to the
table through the stored calibration and measures how far they land from where they
were at calibration. On an undisturbed camera the corners land within about a
millimetre; a camera shifted by a few pixels or rolled by half a degree moves them by
several. A bump is declared only when two checks in a row agree (one glitchy frame is not
a bump), and only from at least :data:`MIN_MARKERS_FOR_CHECK` markers: with fewer in
view (a hand, glare) the check says so and the stored mapping carries on.

When a bump is declared, the report carries a fresh calibration fitted to the markers
in view, for the dealer to accept; the monitor never swaps mappings on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np
from numpy.typing import NDArray

from assistant.vision.calibration import (
    Calibration,
    CalibrationError,
    calibrate,
)
from assistant.vision.markers import MarkerDetection, MarkerDetector

MIN_MARKERS_FOR_CHECK = 3
#: Corner residual (RMS, mm) above which the camera is taken to have moved.
BUMP_THRESHOLD_MM = 2.5


class CameraStatus(Enum):
    STEADY = "steady"
    SUSPECT = "suspect"  # one check over the threshold; waiting for the next
    BUMPED = "bumped"
    TOO_FEW_MARKERS = "too few markers"


@dataclass(frozen=True)
class BumpCheck:
    """The result of one check."""

    frame_index: int
    status: CameraStatus
    residual_mm: float | None  # RMS over the corners of the markers seen
    per_marker_mm: dict[int, float]
    markers_seen: tuple[int, ...]
    recalibration: Calibration | None = None  # offered when BUMPED


def marker_residuals_mm(
    calibration: Calibration, detections: list[MarkerDetection]
) -> dict[int, NDArray[np.float64]]:
    """Per marker: the distance (mm) of each corner from where calibration put it."""
    residuals: dict[int, NDArray[np.float64]] = {}
    for detection in detections:
        expected = calibration.expected_marker_corners(detection.id)
        if expected is None:
            continue
        mapped = calibration.to_table(detection.corners)
        residuals[detection.id] = np.asarray(np.hypot(*(mapped - expected).T), dtype=np.float64)
    return residuals


class BumpMonitor:
    """Watches a stream of frames for the camera moving against the stored calibration."""

    def __init__(
        self,
        calibration: Calibration,
        *,
        interval: int = 15,
        threshold_mm: float = BUMP_THRESHOLD_MM,
        confirmations: int = 2,
        detector: MarkerDetector | None = None,
    ) -> None:
        if interval < 1 or confirmations < 1:
            raise ValueError("interval and confirmations must be at least 1")
        self.calibration = calibration
        self.interval = interval
        self.threshold_mm = threshold_mm
        self.confirmations = confirmations
        self._detector = detector or MarkerDetector()
        self._over = 0
        self.last: BumpCheck | None = None

    def update(self, frame_index: int, image: NDArray[np.uint8]) -> BumpCheck | None:
        """Check every ``interval``-th frame; returns the check, or ``None`` between checks."""
        if frame_index % self.interval:
            return None
        self.last = self.check(frame_index, image)
        return self.last

    def check(self, frame_index: int, image: NDArray[np.uint8]) -> BumpCheck:
        detections = self._detector.detect(image)
        residuals = marker_residuals_mm(self.calibration, detections)
        seen = tuple(sorted(residuals))
        per_marker = {k: float(np.sqrt(np.mean(v**2))) for k, v in residuals.items()}
        if len(residuals) < MIN_MARKERS_FOR_CHECK:
            return BumpCheck(frame_index, CameraStatus.TOO_FEW_MARKERS, None, per_marker, seen)
        corners = np.concatenate(list(residuals.values()))
        rms = float(np.sqrt(np.mean(corners**2)))
        if rms <= self.threshold_mm:
            self._over = 0
            return BumpCheck(frame_index, CameraStatus.STEADY, rms, per_marker, seen)
        self._over += 1
        if self._over < self.confirmations:
            return BumpCheck(frame_index, CameraStatus.SUSPECT, rms, per_marker, seen)
        offer: Calibration | None
        try:
            height, width = image.shape[:2]
            offer = calibrate(
                detections,
                self.calibration.layout,
                (width, height),
                source=self.calibration.source,
                frame_index=frame_index,
            )
        except CalibrationError:
            offer = None
        return BumpCheck(frame_index, CameraStatus.BUMPED, rms, per_marker, seen, offer)

    def accept(self, calibration: Calibration) -> None:
        """Adopt a new calibration (the dealer accepted a recalibration)."""
        self.calibration = calibration
        self._over = 0
