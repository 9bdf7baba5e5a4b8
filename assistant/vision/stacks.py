"""Chip stacks: where a stack stands on the table, from its box in the image.

A stack rises off the table plane, so its box's centre maps (through the table's
homography) to a point behind the stack, further the taller it is. What lies on the
plane is the stack's base. This module recovers a camera model from the calibration's
homography (focal length estimated, principal point at the image centre), so it knows
which way "up" goes at any point of the image; it then finds the base circle (of the
chip's diameter) whose lowest edge touches the box's lower edge, on the stack's axis
through the box's centre.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from assistant.vision.calibration import Calibration, apply_homography

CHIP_DIAMETER_MM = 39.0


def estimate_focal_px(table_to_image: NDArray[np.float64], image_size: tuple[int, int]) -> float | None:
    """The focal length (pixels) implied by a plane's homography, or ``None`` if the view
    does not fix it (the camera square-on to the table, or tilted along an image axis in
    a way that leaves one constraint only and that one degenerate)."""
    centre = np.array([[1.0, 0.0, -image_size[0] / 2.0], [0.0, 1.0, -image_size[1] / 2.0], [0, 0, 1]])
    h = centre @ table_to_image
    h = h / np.linalg.norm(h[:, :2])
    (a1, a2), (b1, b2), (c1, c2) = h[0, :2], h[1, :2], h[2, :2]
    # With K = diag(f, f, 1): h1' w h2 = 0 and h1' w h1 = h2' w h2, w = diag(1/f^2, 1/f^2, 1).
    rows = np.array([[a1 * a2 + b1 * b2], [a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2]])
    rhs = -np.array([c1 * c2, c1 * c1 - c2 * c2])
    strength = float(np.abs(rhs).max())
    if strength < 1e-9:
        return None
    inverse_f2 = float(np.linalg.lstsq(rows, rhs, rcond=None)[0][0])
    if inverse_f2 <= 0:
        return None
    focal = 1.0 / math.sqrt(inverse_f2)
    return focal if 0.2 * image_size[0] <= focal <= 10.0 * image_size[0] else None


@dataclass(frozen=True)
class CameraModel:
    """A 3x4 projection of table points (mm, ``z`` down into the table) to pixels."""

    projection: NDArray[np.float64]
    focal_px: float

    def project(self, points_mm: ArrayLike) -> NDArray[np.float64]:
        points = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        mapped = np.hstack([points, np.ones((len(points), 1))]) @ self.projection.T
        return np.asarray(mapped[:, :2] / mapped[:, 2:3], dtype=np.float64)


def camera_model(calibration: Calibration, focal_px: float | None = None) -> CameraModel:
    """The camera behind a calibration; the focal length is estimated unless given
    (when the view does not fix it, the image's width is assumed, a typical webcam)."""
    width, height = calibration.image_size
    focal = focal_px or estimate_focal_px(calibration.table_to_image, (width, height)) or float(width)
    intrinsics = np.array([[focal, 0.0, width / 2.0], [0.0, focal, height / 2.0], [0.0, 0.0, 1.0]])
    m = np.linalg.inv(intrinsics) @ calibration.table_to_image
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    if m[2, 2] * scale < 0:
        scale = -scale  # the table lies in front of the camera
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    u, _s, vt = np.linalg.svd(np.column_stack([r1, r2, np.cross(r1, r2)]))
    rotation = u @ vt
    projection = intrinsics @ np.column_stack([rotation, t])
    return CameraModel(projection, focal)


def _base_circle(centre: NDArray[np.float64], radius: float) -> NDArray[np.float64]:
    angles = np.linspace(0.0, 2.0 * math.pi, 48, endpoint=False)
    return np.column_stack(
        [centre[0] + radius * np.cos(angles), centre[1] + radius * np.sin(angles), np.zeros(48)]
    )


def _base_offset(
    box: tuple[float, float, float, float],
    down: NDArray[np.float64],
    calibration: Calibration,
    model: CameraModel,
    radius: float,
) -> float:
    """How far down the stack's axis from the box centre the base centre's image lies:
    where the base circle's lowest edge meets the box edge that "down" points at."""
    x1, y1, x2, y2 = box
    box_centre = np.array([(x1 + x2) / 2.0, (y1 + y2) / 2.0])
    edges = {(0, 1.0): x2, (0, -1.0): -x1, (1, 1.0): y2, (1, -1.0): -y1}
    (axis, sign), limit = max(edges.items(), key=lambda item: item[0][1] * down[item[0][0]])

    def overshoot(t: float) -> float:
        centre = apply_homography(calibration.image_to_table, [box_centre + t * down])[0]
        circle = model.project(_base_circle(centre, radius))
        return float(np.max(sign * circle[:, axis])) - limit

    low, high = 0.0, float(np.hypot(x2 - x1, y2 - y1))
    if overshoot(low) >= 0:
        return 0.0
    for _step in range(40):
        middle = (low + high) / 2.0
        if overshoot(middle) < 0:
            low = middle
        else:
            high = middle
    return high


def box_outline(box_xyxy: ArrayLike, per_side: int = 5) -> NDArray[np.float64]:
    """Points along a box's four sides (``per_side`` on each, corners included): what a
    box becomes when it is mapped through a curve or a homography."""
    x1, y1, x2, y2 = (float(v) for v in np.asarray(box_xyxy, dtype=np.float64).ravel()[:4])
    xs, ys = np.linspace(x1, x2, per_side), np.linspace(y1, y2, per_side)
    return np.vstack(
        [np.column_stack([xs, np.full(per_side, y)]) for y in (y1, y2)]
        + [np.column_stack([np.full(per_side, x), ys]) for x in (x1, x2)]
    )


def _undistorted_box(box_xyxy: ArrayLike, calibration: Calibration) -> tuple[float, float, float, float]:
    """The box in the distortion-free pixels the homography works on."""
    points = calibration.undistort(box_outline(box_xyxy))
    (left, top), (right, bottom) = points.min(axis=0), points.max(axis=0)
    return float(left), float(top), float(right), float(bottom)


def stack_base_point(
    box_xyxy: ArrayLike,
    calibration: Calibration,
    *,
    chip_diameter_mm: float = CHIP_DIAMETER_MM,
    camera: CameraModel | None = None,
) -> tuple[float, float]:
    """Table position (mm) of the centre of a chip stack's base, from its image box.

    ``box_xyxy`` is ``(x1, y1, x2, y2)`` in pixels. Pass ``camera`` (from
    :func:`camera_model`) to reuse one model for many stacks.
    """
    x1, y1, x2, y2 = _undistorted_box(box_xyxy, calibration)
    model = camera or camera_model(calibration)
    radius = chip_diameter_mm / 2.0
    box_centre = np.array([(x1 + x2) / 2.0, (y1 + y2) / 2.0])
    base = apply_homography(calibration.image_to_table, [[box_centre[0], y2]])[0]
    for _ in range(4):
        ground = model.project([[base[0], base[1], 0.0]])[0]
        raised = model.project([[base[0], base[1], -10.0]])[0]  # 10 mm above the table
        up = raised - ground
        norm = float(np.linalg.norm(up))
        if norm < 1e-9:
            break  # looking straight down this point: the stack hides its own height
        down = -up / norm
        offset = _base_offset((x1, y1, x2, y2), down, calibration, model, radius)
        base = apply_homography(calibration.image_to_table, [box_centre + offset * down])[0]
    return float(base[0]), float(base[1])
