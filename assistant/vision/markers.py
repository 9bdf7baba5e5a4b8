"""ArUco markers: the dictionary the project prints, and finding markers in a frame.

Markers come from OpenCV's ``DICT_4X4_50``: 4x4 data cells inside a one-cell black
border, so a marker is 6 cells wide. Detection refines corners to sub-pixel accuracy.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from assistant.vision.layout import ARUCO_DICTIONARY

#: Cells across a marker: the 4x4 data cells plus a one-cell border on each side.
MARKER_CELLS = 6


@dataclass(frozen=True)
class MarkerDetection:
    """A marker found in an image: its id and its corners in pixels (ArUco order)."""

    id: int
    corners: NDArray[np.float64]  # shape (4, 2): top-left, top-right, bottom-right, bottom-left

    @property
    def side_px(self) -> float:
        """The mean length of the marker's sides in the image."""
        edges = self.corners - np.roll(self.corners, -1, axis=0)
        return float(np.mean(np.hypot(edges[:, 0], edges[:, 1])))


def aruco_dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))


def marker_cells(marker_id: int) -> NDArray[np.bool_]:
    """The marker's cells, ``True`` where black, border included (6x6).

    >>> marker_cells(0).shape, bool(marker_cells(0)[0].all())
    ((6, 6), True)
    """
    image = cv2.aruco.generateImageMarker(aruco_dictionary(), marker_id, MARKER_CELLS, borderBits=1)
    return np.asarray(image < 128)


class MarkerDetector:
    """Finds the project's markers; one instance can be reused frame after frame."""

    def __init__(self) -> None:
        parameters = cv2.aruco.DetectorParameters()
        parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        parameters.cornerRefinementWinSize = 4
        parameters.cornerRefinementMaxIterations = 50
        parameters.cornerRefinementMinAccuracy = 0.01
        self._detector = cv2.aruco.ArucoDetector(aruco_dictionary(), parameters)

    def detect(self, image: NDArray[np.uint8]) -> list[MarkerDetection]:
        """Markers in a BGR or grey image, sorted by id; a marker seen twice is dropped."""
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _rejected = self._detector.detectMarkers(gray)
        if ids is None:
            return []
        found: dict[int, list[NDArray[np.float64]]] = {}
        for marker_corners, marker_id in zip(corners, ids.ravel(), strict=True):
            found.setdefault(int(marker_id), []).append(
                np.asarray(marker_corners, dtype=np.float64).reshape(4, 2)
            )
        return [
            MarkerDetection(marker_id, seen[0])
            for marker_id, seen in sorted(found.items())
            if len(seen) == 1
        ]
