"""A pinhole camera over the table, with radial lens distortion.

World coordinates are centimetres on the table plane (z up, table at z = 0). The lens
model is defined by where each output pixel samples the ideal (undistorted) image:
``x_u = x_d * (1 + k1 * r_d**2)`` in normalised coordinates, so the image warp is exact
and points are mapped forward by solving that cubic (Newton's method).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


def rotation_matrix(yaw: float, tilt: float, roll: float) -> Array:
    """World-to-camera rotation of a camera looking down at the table.

    ``tilt`` 0 looks straight down; ``yaw`` turns the camera about the vertical axis and
    ``roll`` about its optical axis (radians).
    """
    # Looking straight down: camera x = world x, camera y = -world y, camera z = -world z.
    base = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]])
    cz, sz = math.cos(yaw), math.sin(yaw)
    rz = np.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
    ct, st = math.cos(tilt), math.sin(tilt)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, ct, -st], [0.0, st, ct]])
    cr, sr = math.cos(roll), math.sin(roll)
    rr = np.array([[cr, -sr, 0.0], [sr, cr, 0.0], [0.0, 0.0, 1.0]])
    # world -> yawed world -> camera looking down -> tilted about camera x -> rolled
    return np.asarray(rr @ rx @ base @ rz.T, dtype=np.float64)


@dataclass(frozen=True)
class Camera:
    width: int
    height: int
    focal: float  # pixels
    rotation: tuple[tuple[float, ...], ...]  # 3x3 world -> camera
    position: tuple[float, float, float]  # camera centre in world cm
    k1: float = 0.0

    @classmethod
    def looking_at(
        cls,
        width: int,
        height: int,
        *,
        hfov_deg: float,
        target: tuple[float, float],
        distance: float,
        tilt_deg: float,
        yaw_deg: float,
        roll_deg: float = 0.0,
        k1: float = 0.0,
    ) -> Camera:
        """A camera ``distance`` cm from ``target`` on the table, tilted from vertical."""
        focal = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
        rot = rotation_matrix(math.radians(yaw_deg), math.radians(tilt_deg), math.radians(roll_deg))
        # optical axis in world coordinates is the third row of rot
        axis = rot[2]
        target3 = np.array([target[0], target[1], 0.0])
        centre = target3 - axis * distance
        return cls(
            width,
            height,
            focal,
            tuple(tuple(float(v) for v in row) for row in rot),
            (float(centre[0]), float(centre[1]), float(centre[2])),
            k1,
        )

    @property
    def cx(self) -> float:
        """Principal point: the image centre in OpenCV's pixel-centre convention."""
        return (self.width - 1) / 2

    @property
    def cy(self) -> float:
        return (self.height - 1) / 2

    @property
    def lens_k(self) -> float:
        """``k1`` in the form of :mod:`assistant.vision.lens` (radius over half the width)."""
        return self.k1 * (self.width / 2 / self.focal) ** 2

    @property
    def R(self) -> Array:
        return np.array(self.rotation, dtype=np.float64)

    @property
    def K(self) -> Array:
        return np.array([[self.focal, 0.0, self.cx], [0.0, self.focal, self.cy], [0.0, 0.0, 1.0]])

    def to_camera(self, points: Array) -> Array:
        cam = (np.asarray(points, dtype=np.float64) - np.array(self.position)) @ self.R.T
        return np.asarray(cam, dtype=np.float64)

    def normalised(self, points: Array) -> Array:
        """Undistorted normalised image coordinates of world points (N, 3)."""
        cam = self.to_camera(points)
        z = np.maximum(cam[:, 2:3], 1e-6)
        return cam[:, :2] / z

    def distort_normalised(self, xy: Array) -> Array:
        """Forward lens model: ideal normalised coordinates to distorted ones."""
        if self.k1 == 0.0:
            return xy
        r_u = np.linalg.norm(xy, axis=1)
        r_d = r_u.copy()
        for _ in range(6):
            f = r_d * (1 + self.k1 * r_d**2) - r_u
            r_d -= f / (1 + 3 * self.k1 * r_d**2)
        scale = np.where(r_u > 1e-12, r_d / np.maximum(r_u, 1e-12), 1.0)
        return xy * scale[:, None]

    def project(self, points: Array) -> Array:
        """Pixel coordinates (distorted, as in the output image) of world points (N, 3)."""
        xy = self.distort_normalised(self.normalised(points))
        return np.asarray(xy * self.focal + np.array([self.cx, self.cy]), np.float64)

    def project_ideal(self, points: Array, offset: tuple[float, float] = (0.0, 0.0)) -> Array:
        """Undistorted pixel coordinates, shifted by ``offset`` (for a padded canvas)."""
        xy = self.normalised(points)
        centre = np.array([self.cx + offset[0], self.cy + offset[1]])
        return np.asarray(xy * self.focal + centre, dtype=np.float64)

    def canvas_padding(self) -> tuple[int, int]:
        """How far beyond the frame the ideal image must reach to fill the output."""
        if self.k1 <= 0.0:
            return (0, 0)
        half_w, half_h = self.width / 2 / self.focal, self.height / 2 / self.focal
        r2 = half_w**2 + half_h**2
        scale = 1 + self.k1 * r2
        return (
            math.ceil(half_w * (scale - 1) * self.focal) + 2,
            math.ceil(half_h * (scale - 1) * self.focal) + 2,
        )

    def distortion_maps(
        self, pad: tuple[int, int]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """``cv2.remap`` maps from the output image into the padded ideal canvas."""
        x = ((np.arange(self.width) - self.cx) / self.focal).astype(np.float32)[None, :]
        y = ((np.arange(self.height) - self.cy) / self.focal).astype(np.float32)[:, None]
        scale = 1 + np.float32(self.k1) * (x * x + y * y)
        map_x = (x * scale * self.focal + self.cx + pad[0]).astype(np.float32)
        map_y = (y * scale * self.focal + self.cy + pad[1]).astype(np.float32)
        return map_x, map_y

    def plane_homography(self, offset: tuple[float, float] = (0.0, 0.0), z: float = 0.0) -> Array:
        """Homography from world (x, y) on the plane at height ``z`` to ideal canvas pixels."""
        R = self.R
        t = -R @ np.array(self.position)
        K = self.K.copy()
        K[0, 2] += offset[0]
        K[1, 2] += offset[1]
        H = K @ np.column_stack([R[:, 0], R[:, 1], R[:, 2] * z + t])
        return np.asarray(H / H[2, 2], dtype=np.float64)

    def to_json(self) -> dict[str, object]:
        return {
            "width": self.width,
            "height": self.height,
            "focal_px": round(self.focal, 4),
            "principal_point": [self.cx, self.cy],
            "rotation_world_to_camera": [[round(v, 8) for v in row] for row in self.rotation],
            "position_cm": [round(v, 4) for v in self.position],
            "distortion": {
                "model": "x_u = x_d * (1 + k1 * r_d^2), normalised coordinates",
                "k1": self.k1,
            },
        }
