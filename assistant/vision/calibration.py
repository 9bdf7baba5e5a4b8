"""Calibration: the homography from image pixels to table millimetres, saved with its layout.

:func:`calibrate` fits the mapping to the markers found in one frame: every corner of
every marker that the layout places gives one point pair. A marker whose corners land
far from where the layout puts it (moved, or placed carelessly) is left out and named,
as long as at least :data:`MIN_MARKERS_FOR_MAPPING` markers remain.
"""

from __future__ import annotations

import math
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
    dumps,
    layout_from_dict,
    layout_to_dict,
    load_json,
)
from assistant.vision.lens import distort_points, undistort_points
from assistant.vision.markers import MarkerDetection

CALIBRATION_FORMAT = "dealer-assistant/calibration"
CALIBRATION_VERSION = 1
#: Fewer markers than this cannot fix the table plane reliably.
MIN_MARKERS_FOR_MAPPING = 3
#: A marker that the others place further than this from where the layout puts it is
#: left out of the fit (predicting a marker from the others amplifies ordinary placement
#: errors of a few mm two or three times, so this is well above them).
MISPLACED_MARKER_MM = 20.0
#: A fit whose markers' corners miss the layout by more than this (RMS) is refused.
MAX_FIT_RMS_MM = 8.0
#: The lens's distortion is fitted from this many markers on, within +-MAX_DISTORTION.
MIN_MARKERS_FOR_DISTORTION = 4
MAX_DISTORTION = 0.15


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
    distortion: float = 0.0  # the lens's k, see assistant.vision.lens
    source: str = ""
    frame_index: int = 0
    created_utc: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @property
    def table_to_image(self) -> NDArray[np.float64]:
        """Table mm to *undistorted* pixels (see :meth:`undistort`)."""
        return np.asarray(np.linalg.inv(self.image_to_table), dtype=np.float64)

    def undistort(self, points_px: ArrayLike) -> NDArray[np.float64]:
        """Pixels as seen to the distortion-free pixels ``image_to_table`` works on."""
        return undistort_points(points_px, self.distortion, self.image_size)

    def to_table(self, points_px: ArrayLike) -> NDArray[np.float64]:
        """Image pixels (as seen) to table millimetres (points on the table plane)."""
        return apply_homography(self.image_to_table, self.undistort(points_px))

    def to_image(self, points_mm: ArrayLike) -> NDArray[np.float64]:
        """Table millimetres to image pixels (as seen)."""
        undistorted = apply_homography(self.table_to_image, points_mm)
        return distort_points(undistorted, self.distortion, self.image_size)

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


@dataclass(frozen=True)
class _Fit:
    matrix: NDArray[np.float64]
    distortion: float
    image_size: tuple[int, int]

    def to_table(self, points_px: NDArray[np.float64]) -> NDArray[np.float64]:
        undistorted = undistort_points(points_px, self.distortion, self.image_size)
        return apply_homography(self.matrix, undistorted)

    def corner_errors(
        self, detection: MarkerDetection, expected_mm: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """Distance in mm between each mapped corner and where it was expected."""
        mapped = self.to_table(detection.corners)
        return np.asarray(np.hypot(*(mapped - expected_mm).T), dtype=np.float64)

    def residuals(
        self, detections: Sequence[MarkerDetection], nominal: Mapping[int, NDArray[np.float64]]
    ) -> dict[int, float]:
        """Each marker's RMS corner error (mm)."""
        return {d.id: float(np.sqrt(np.mean(self.corner_errors(d, nominal[d.id]) ** 2))) for d in detections}


def _fit_with(
    detections: Sequence[MarkerDetection],
    nominal: Mapping[int, NDArray[np.float64]],
    image_size: tuple[int, int],
    distortion: float,
) -> tuple[_Fit, float]:
    undistorted = [
        MarkerDetection(d.id, undistort_points(d.corners, distortion, image_size)) for d in detections
    ]
    fit = _Fit(fit_homography(undistorted, nominal), distortion, image_size)
    errors = np.concatenate([fit.corner_errors(d, nominal[d.id]) for d in detections])
    return fit, float(np.sqrt(np.mean(errors**2)))


def _fit(
    detections: Sequence[MarkerDetection],
    nominal: Mapping[int, NDArray[np.float64]],
    image_size: tuple[int, int],
    fit_distortion: bool,
) -> tuple[_Fit, dict[int, float]]:
    """The best fit, with the lens's distortion if asked and 4 or more markers fix it,
    and each marker's RMS corner residual (mm) under it."""
    best, best_rms = _fit_with(detections, nominal, image_size, 0.0)
    if fit_distortion and len(detections) >= MIN_MARKERS_FOR_DISTORTION:
        for k in np.linspace(-MAX_DISTORTION, MAX_DISTORTION, 25):
            fit, rms = _fit_with(detections, nominal, image_size, float(k))
            if rms < best_rms:
                best, best_rms = fit, rms
        low, high = best.distortion - 0.01, best.distortion + 0.01
        ratio = (math.sqrt(5) - 1) / 2
        for _ in range(18):  # golden-section search around the best step
            a, b = high - ratio * (high - low), low + ratio * (high - low)
            if (
                _fit_with(detections, nominal, image_size, a)[1]
                < _fit_with(detections, nominal, image_size, b)[1]
            ):
                high = b
            else:
                low = a
        fit, rms = _fit_with(detections, nominal, image_size, (low + high) / 2)
        if rms < best_rms:
            best, best_rms = fit, rms
    return best, best.residuals(detections, nominal)


def calibrate(
    detections: Sequence[MarkerDetection],
    layout: TableLayout,
    image_size: tuple[int, int],
    *,
    source: str = "",
    frame_index: int = 0,
    min_markers: int = MIN_MARKERS_FOR_MAPPING,
    fit_distortion: bool = True,
) -> Calibration:
    """Fit the image-to-table mapping to the layout's markers found in one frame.

    With 4 or more markers the lens's radial distortion is fitted too (see
    :mod:`assistant.vision.lens`); with 3, a plain homography.
    """
    nominal = {m.id: np.asarray(m.corners(), dtype=np.float64) for m in layout.markers}
    usable = [d for d in detections if d.id in nominal]
    if len(usable) < min_markers:
        seen = ", ".join(str(d.id) for d in usable) or "none"
        raise CalibrationError(
            f"found {len(usable)} of the layout's {len(nominal)} markers (ids seen: {seen}); "
            f"at least {min_markers} must be visible, flat and unobstructed"
        )
    ignored: list[int] = []
    while True:
        fit, residuals = _fit(usable, nominal, image_size, fit_distortion)
        if len(usable) <= min_markers:
            break
        # Each marker's place as predicted by the others (the lens's distortion held at
        # the full fit's): a least-squares fit, and a fitted distortion even more, spread
        # one misplaced marker's error over the rest, but the others do not predict it.
        predicted = {
            d.id: float(
                np.sqrt(
                    np.mean(
                        _fit_with([o for o in usable if o.id != d.id], nominal, image_size, fit.distortion)[
                            0
                        ].corner_errors(d, nominal[d.id])
                        ** 2
                    )
                )
            )
            for d in usable
        }
        culprit = max(predicted, key=lambda marker_id: predicted[marker_id])
        if predicted[culprit] <= MISPLACED_MARKER_MM:
            break
        ignored.append(culprit)
        usable = [d for d in usable if d.id != culprit]
    all_corners = np.concatenate([fit.corner_errors(d, nominal[d.id]) for d in usable])
    rms = float(np.sqrt(np.mean(all_corners**2)))
    if rms > MAX_FIT_RMS_MM:
        worst = max(residuals, key=lambda marker_id: residuals[marker_id])
        raise CalibrationError(
            f"the markers seen ({', '.join(str(d.id) for d in usable)}) do not fit the layout "
            f"{layout.name!r} (off by {rms:.0f} mm RMS, marker {worst} by "
            f"{residuals[worst]:.0f} mm): wrong layout, or markers not where the layout puts them"
        )
    return Calibration(
        layout=layout,
        image_to_table=fit.matrix,
        image_size=image_size,
        distortion=fit.distortion,
        marker_corners_mm={d.id: fit.to_table(d.corners) for d in usable},
        marker_residuals_mm=residuals,
        rms_mm=rms,
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
        "distortion": calibration.distortion,
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
        raise LayoutError(f'{origin}: not a calibration (expected "format": "{CALIBRATION_FORMAT}")')
    if data.get("version") != CALIBRATION_VERSION:
        raise LayoutError(
            f"{origin}: calibration version {data.get('version')} is not supported "
            f"(this program reads version {CALIBRATION_VERSION})"
        )
    layout = layout_from_dict(data.get("layout"), f"{origin} (layout)")
    try:
        matrix = np.asarray(data["image_to_table"], dtype=np.float64)
        width, height = (int(v) for v in data["image_size"])
        corners = {int(m["id"]): np.asarray(m["corners_mm"], dtype=np.float64) for m in data["markers"]}
        residuals = {int(m["id"]): float(m["residual_mm"]) for m in data["markers"]}
        calibration = Calibration(
            layout=layout,
            image_to_table=matrix,
            image_size=(width, height),
            marker_corners_mm=corners,
            marker_residuals_mm=residuals,
            rms_mm=float(data["rms_mm"]),
            ignored_markers=tuple(int(v) for v in data.get("ignored_markers", [])),
            distortion=float(data.get("distortion", 0.0)),
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
    temporary.write_text(dumps(calibration_to_dict(calibration)), "utf-8")
    temporary.replace(path)


def load_calibration(path: str | Path) -> Calibration:
    path = Path(path)
    return calibration_from_dict(load_json(path, "calibration"), str(path))
