"""Radial lens distortion with one coefficient, about the image centre.

Webcams bend straight lines (barrel distortion), by tens of pixels at the corners of a
720p frame, which a homography alone cannot follow. The model maps a pixel as seen
(distorted, ``d``) to where an ideal pinhole camera would have put it (``u``):

    u = c + (d - c) * (1 + k * |d - c|^2 / s^2)

with ``c`` the image centre and ``s`` half the image width, so ``k`` does not depend
on the resolution. ``k > 0`` is barrel distortion. Undistorting is closed form;
distorting is solved by fixed-point iteration.

>>> size = (1280, 720)
>>> point = np.array([[1200.0, 700.0]])
>>> bool(np.allclose(distort_points(undistort_points(point, 0.03, size), 0.03, size), point))
True
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray


def _frame(image_size: tuple[int, int]) -> tuple[NDArray[np.float64], float]:
    centre = np.array([(image_size[0] - 1) / 2.0, (image_size[1] - 1) / 2.0])
    return centre, image_size[0] / 2.0


def undistort_points(points_px: ArrayLike, k: float, image_size: tuple[int, int]) -> NDArray[np.float64]:
    """Pixels as seen to where a distortion-free camera would have put them."""
    points = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
    if k == 0.0:
        return points.copy()
    centre, scale = _frame(image_size)
    offset = points - centre
    r2 = np.sum(offset**2, axis=1, keepdims=True) / scale**2
    return np.asarray(centre + offset * (1.0 + k * r2), dtype=np.float64)


def distort_points(
    points_px: ArrayLike, k: float, image_size: tuple[int, int], iterations: int = 20
) -> NDArray[np.float64]:
    """Distortion-free pixels to where the real camera shows them."""
    points = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
    if k == 0.0:
        return points.copy()
    centre, scale = _frame(image_size)
    ideal = points - centre
    seen = ideal.copy()
    for _ in range(iterations):
        r2 = np.sum(seen**2, axis=1, keepdims=True) / scale**2
        seen = ideal / (1.0 + k * r2)
    return np.asarray(centre + seen, dtype=np.float64)
