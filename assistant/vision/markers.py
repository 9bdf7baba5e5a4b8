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


def refine_corners(gray: NDArray[np.uint8], corners: NDArray[np.float64]) -> NDArray[np.float64]:
    """Sharpen a marker's corners by fitting straight lines to its four outer edges.

    Along each side, edge points are found where the intensity crosses halfway between
    the black border and the white margin (unbiased by blur); a line is fitted through
    them and adjacent lines are intersected. A side without a clear edge (glare,
    occlusion) leaves the corners as detected.
    """
    side = float(np.mean(np.hypot(*(corners - np.roll(corners, -1, axis=0)).T)))
    reach = float(np.clip(side / MARKER_CELLS * 0.8, 2.0, 6.0))
    steps = np.linspace(-reach, reach, int(reach * 8) + 1)
    fractions = np.linspace(0.15, 0.85, 16)
    centre = corners.mean(axis=0)
    lines: list[tuple[NDArray[np.float64], NDArray[np.float64]]] = []
    for index in range(4):
        start, end = corners[index], corners[(index + 1) % 4]
        direction = (end - start) / max(np.linalg.norm(end - start), 1e-9)
        normal = np.array([direction[1], -direction[0]])
        if np.dot((start + end) / 2 - centre, normal) < 0:
            normal = -normal  # point outwards, from black border to white margin
        points = start + np.outer(fractions, end - start)
        samples = points[:, None, :] + steps[None, :, None] * normal
        profile = cv2.remap(
            gray.astype(np.float32),
            samples[..., 0].astype(np.float32),
            samples[..., 1].astype(np.float32),
            cv2.INTER_LINEAR,
        )
        quarter = max(len(steps) // 4, 1)
        black = profile[:, :quarter].mean(axis=1)
        white = profile[:, -quarter:].mean(axis=1)
        edges: list[NDArray[np.float64]] = []
        for row in range(len(points)):
            if white[row] - black[row] < 25:
                continue
            level = (black[row] + white[row]) / 2
            above = np.nonzero(profile[row] >= level)[0]
            if len(above) == 0 or above[0] == 0:
                continue
            k = above[0]
            low, high = profile[row, k - 1], profile[row, k]
            offset = steps[k - 1] + (level - low) / max(high - low, 1e-6) * (steps[k] - steps[k - 1])
            edges.append(points[row] + offset * normal)
        if len(edges) < 6:
            return corners
        fitted = cv2.fitLine(np.asarray(edges, np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
        vx, vy, x0, y0 = (float(v) for v in fitted.ravel())
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    refined = np.empty_like(corners)
    for index in range(4):
        (p1, d1), (p0, d0) = lines[index], lines[(index - 1) % 4]
        matrix = np.column_stack([d0, -d1])
        if abs(np.linalg.det(matrix)) < 1e-6:
            return corners
        t = np.linalg.solve(matrix, p1 - p0)
        refined[index] = p0 + t[0] * d0
    if np.max(np.hypot(*(refined - corners).T)) > reach:
        return corners
    return refined


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
        gray = np.asarray(image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
        corners, ids, _rejected = self._detector.detectMarkers(gray)
        if ids is None:
            return []
        found: dict[int, list[NDArray[np.float64]]] = {}
        for marker_corners, marker_id in zip(corners, ids.ravel(), strict=True):
            found.setdefault(int(marker_id), []).append(
                np.asarray(marker_corners, dtype=np.float64).reshape(4, 2)
            )
        return [
            MarkerDetection(marker_id, refine_corners(gray, seen[0]))
            for marker_id, seen in sorted(found.items())
            if len(seen) == 1
        ]
