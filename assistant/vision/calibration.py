"""Calibration: the homography from image pixels to table millimetres, saved with its layout.

:func:`calibrate` fits the mapping to the markers found in one frame: every corner of
every marker that the layout places gives one point pair. A marker whose corners land
far from where the layout puts it (moved, or placed carelessly) is left out and named,
as long as at least :data:`MIN_MARKERS_FOR_MAPPING` markers remain.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from assistant.vision.layout import (
    LayoutError,
    TableLayout,
    layout_from_dict,
    layout_to_dict,
    load_json,
)
from assistant.vision.markers import MarkerDetection

CALIBRATION_FORMAT = "dealer-assistant/calibration"
CALIBRATION_VERSION = 1
#: Fewer markers than this cannot fix the table plane reliably.
MIN_MARKERS_FOR_MAPPING = 3
#: A marker whose corners miss the layout by more than this is left out of the fit.
MISPLACED_MARKER_MM = 8.0


class CalibrationError(ValueError):
    """The frame does not allow a calibration (too few markers, degenerate view)."""


def apply_homography(matrix: NDArray[np.float64], points: ArrayLike) -> NDArray[np.float64]:
    """Map ``(N, 2)`` points through a 3x3 homography.

    >>> apply_homography(np.diag([2.0, 2.0, 1.0]), [[1.0, 3.0]]).tolist()
    [[2.0, 6.0]]
    """
    array = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    mapped = np.hstack([array, np.ones((len(array), 1))]) @ matrix.T
    return np.asarray(mapped[:, :2] / mapped[:, 2:3], dtype=np.float64)


@dataclass(frozen=True)
class Calibration:
    """Where the table is in the camera's image.

    ``marker_corners_mm`` holds, for each marker seen at calibration, its corners as
    measured then (image corners mapped to the table); bump detection compares new
    sightings against these, so a marker laid a little off its nominal place does not
    read as a bump.
    """

    layout: TableLayout
    image_to_table: NDArray[np.float64]
    image_size: tuple[int, int]
    marker_corners_mm: Mapping[int, NDArray[np.float64]]
    marker_residuals_mm: Mapping[int, float]
    rms_mm: float
    ignored_markers: tuple[int, ...] = ()
    source: str = ""
    frame_index: int = 0
    created_utc: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @property
    def table_to_image(self) -> NDArray[np.float64]:
        return np.asarray(np.linalg.inv(self.image_to_table), dtype=np.float64)

    def to_table(self, points_px: ArrayLike) -> NDArray[np.float64]:
        """Image pixels to table millimetres (points on the table plane)."""
        return apply_homography(self.image_to_table, points_px)

    def to_image(self, points_mm: ArrayLike) -> NDArray[np.float64]:
        """Table millimetres to image pixels."""
        return apply_homography(self.table_to_image, points_mm)

    def expected_marker_corners(self, marker_id: int) -> NDArray[np.float64] | None:
        """Where a marker's corners should be on the table: as measured, else as laid out."""
        if marker_id in self.marker_corners_mm:
            return self.marker_corners_mm[marker_id]
        placement = self.layout.marker(marker_id)
        return None if placement is None else np.asarray(placement.corners(), dtype=np.float64)


def fit_homography(
    detections: Sequence[MarkerDetection], targets_mm: Mapping[int, NDArray[np.float64]]
) -> NDArray[np.float64]:
    """Least-squares homography from the detections' corners to their table positions."""
    image_points = np.vstack([d.corners for d in detections])
    table_points = np.vstack([targets_mm[d.id] for d in detections])
    matrix, _mask = cv2.findHomography(image_points, table_points, 0)
    if matrix is None or not np.all(np.isfinite(matrix)) or abs(np.linalg.det(matrix)) < 1e-12:
        raise CalibrationError("the markers' corners do not fix the table plane (degenerate view)")
    return np.asarray(matrix / matrix[2, 2], dtype=np.float64)


def corner_residuals_mm(
    matrix: NDArray[np.float64],
    detection: MarkerDetection,
    expected_mm: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Distance in mm between each mapped corner and where it was expected."""
    mapped = apply_homography(matrix, detection.corners)
    return np.asarray(np.hypot(*(mapped - expected_mm).T), dtype=np.float64)


def calibrate(
    detections: Sequence[MarkerDetection],
    layout: TableLayout,
    image_size: tuple[int, int],
    *,
    source: str = "",
    frame_index: int = 0,
    min_markers: int = MIN_MARKERS_FOR_MAPPING,
) -> Calibration:
    """Fit the image-to-table mapping to the layout's markers found in one frame."""
    nominal = {
        m.id: np.asarray(m.corners(), dtype=np.float64) for m in layout.markers
    }
    usable = [d for d in detections if d.id in nominal]
    if len(usable) < min_markers:
        seen = ", ".join(str(d.id) for d in usable) or "none"
        raise CalibrationError(
            f"found {len(usable)} of the layout's {len(nominal)} markers (ids seen: {seen}); "
            f"at least {min_markers} must be visible, flat and unobstructed"
        )
    ignored: list[int] = []
    while True:
        matrix = fit_homography(usable, nominal)
        residuals = {
            d.id: float(np.sqrt(np.mean(corner_residuals_mm(matrix, d, nominal[d.id]) ** 2)))
            for d in usable
        }
        worst = max(residuals, key=lambda marker_id: residuals[marker_id])
        if residuals[worst] <= MISPLACED_MARKER_MM or len(usable) <= min_markers:
            break
        ignored.append(worst)
        usable = [d for d in usable if d.id != worst]
    all_corners = np.concatenate(
        [corner_residuals_mm(matrix, d, nominal[d.id]) for d in usable]
    )
    return Calibration(
        layout=layout,
        image_to_table=matrix,
        image_size=image_size,
        marker_corners_mm={d.id: apply_homography(matrix, d.corners) for d in usable},
        marker_residuals_mm=residuals,
        rms_mm=float(np.sqrt(np.mean(all_corners**2))),
        ignored_markers=tuple(sorted(ignored)),
        source=source,
        frame_index=frame_index,
    )


# --- file form -------------------------------------------------------------------------


def calibration_to_dict(calibration: Calibration) -> dict[str, Any]:
    return {
        "format": CALIBRATION_FORMAT,
        "version": CALIBRATION_VERSION,
        "created_utc": calibration.created_utc,
        "source": calibration.source,
        "frame_index": calibration.frame_index,
        "image_size": list(calibration.image_size),
        "image_to_table": calibration.image_to_table.tolist(),
        "rms_mm": round(calibration.rms_mm, 4),
        "ignored_markers": list(calibration.ignored_markers),
        "markers": [
            {
                "id": marker_id,
                "corners_mm": np.round(corners, 4).tolist(),
                "residual_mm": round(calibration.marker_residuals_mm.get(marker_id, 0.0), 4),
            }
            for marker_id, corners in sorted(calibration.marker_corners_mm.items())
        ],
        "layout": layout_to_dict(calibration.layout),
    }


def calibration_from_dict(data: Any, origin: str = "calibration") -> Calibration:
    if not isinstance(data, Mapping) or data.get("format") != CALIBRATION_FORMAT:
        raise LayoutError(f"{origin}: not a calibration (expected \"format\": \"{CALIBRATION_FORMAT}\")")
    if data.get("version") != CALIBRATION_VERSION:
        raise LayoutError(
            f"{origin}: calibration version {data.get('version')} is not supported "
            f"(this program reads version {CALIBRATION_VERSION})"
        )
    layout = layout_from_dict(data.get("layout"), f"{origin} (layout)")
    try:
        matrix = np.asarray(data["image_to_table"], dtype=np.float64)
        width, height = (int(v) for v in data["image_size"])
        corners = {
            int(m["id"]): np.asarray(m["corners_mm"], dtype=np.float64) for m in data["markers"]
        }
        residuals = {int(m["id"]): float(m["residual_mm"]) for m in data["markers"]}
        calibration = Calibration(
            layout=layout,
            image_to_table=matrix,
            image_size=(width, height),
            marker_corners_mm=corners,
            marker_residuals_mm=residuals,
            rms_mm=float(data["rms_mm"]),
            ignored_markers=tuple(int(v) for v in data.get("ignored_markers", [])),
            source=str(data.get("source", "")),
            frame_index=int(data.get("frame_index", 0)),
            created_utc=str(data.get("created_utc", "")),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise LayoutError(f"{origin}: malformed calibration ({error!r})") from None
    if matrix.shape != (3, 3) or not np.all(np.isfinite(matrix)) or abs(np.linalg.det(matrix)) < 1e-12:
        raise LayoutError(f"{origin}: image_to_table must be an invertible 3x3 matrix")
    if any(c.shape != (4, 2) for c in corners.values()):
        raise LayoutError(f"{origin}: every marker needs four [x, y] corners")
    return calibration


def save_calibration(calibration: Calibration, path: str | Path) -> None:
    """Write the calibration, layout included, atomically (a crash leaves the old file)."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(calibration_to_dict(calibration), indent=2) + "\n", "utf-8")
    temporary.replace(path)


def load_calibration(path: str | Path) -> Calibration:
    path = Path(path)
    return calibration_from_dict(load_json(path, "calibration"), str(path))
