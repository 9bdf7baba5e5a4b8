"""Synthetic scenes shared by the vision tests: a laid-out table seen by known cameras."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from assistant.vision.default_layouts import oval_layout
from assistant.vision.layout import TableLayout
from assistant.vision.synthetic_view import (
    PinholeCamera,
    oblique_camera,
    render_table_view,
    render_top_view,
)

PX_PER_MM = 1.0
FELT = (40, 110, 30)


@dataclass
class Scene:
    """A table layout, its top view, and a camera looking at it."""

    layout: TableLayout
    top_view: NDArray[np.uint8]
    camera: PinholeCamera

    @property
    def table_to_image(self) -> NDArray[np.float64]:
        return self.camera.table_to_image

    def view(
        self,
        table_to_image: NDArray[np.float64] | None = None,
        *,
        seed: int = 0,
        blur: float = 0.7,
        noise: float = 3.0,
        top_view: NDArray[np.uint8] | None = None,
        distortion: float = 0.0,
    ) -> NDArray[np.uint8]:
        return render_table_view(
            self.layout,
            self.table_to_image if table_to_image is None else table_to_image,
            px_per_mm=PX_PER_MM,
            blur_sigma=blur,
            noise_sigma=noise,
            seed=seed,
            top_view=self.top_view if top_view is None else top_view,
            distortion=distortion,
        )

    def hide_markers(self, image: NDArray[np.uint8], marker_ids: list[int]) -> NDArray[np.uint8]:
        """Paint felt over markers (as a hand or glare would hide them)."""
        covered = image.copy()
        for marker_id in marker_ids:
            marker = self.layout.marker(marker_id)
            assert marker is not None
            corners = self.camera.project(np.array(marker.corners()))
            centre = corners.mean(axis=0)
            grown = centre + (corners - centre) * 1.8
            cv2.fillPoly(covered, [np.round(grown).astype(np.int32)], FELT)
        return covered


def make_scene(seats: int = 8, **camera: float) -> Scene:
    layout = oval_layout(seats)
    return Scene(layout, render_top_view(layout, PX_PER_MM), oblique_camera(layout, **camera))


def shifted(matrix: NDArray[np.float64], dx: float, dy: float) -> NDArray[np.float64]:
    """The homography of a camera whose image moved by (dx, dy) pixels."""
    return np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1]]) @ matrix


def rolled(
    matrix: NDArray[np.float64], degrees: float, size: tuple[int, int] = (1280, 720)
) -> NDArray[np.float64]:
    """The homography of a camera rolled about its optical axis by ``degrees``."""
    theta = math.radians(degrees)
    cx, cy = size[0] / 2.0, size[1] / 2.0
    rotation = np.array(
        [[math.cos(theta), -math.sin(theta), 0], [math.sin(theta), math.cos(theta), 0], [0, 0, 1]]
    )
    centre = np.array([[1.0, 0, cx], [0, 1.0, cy], [0, 0, 1]])
    return np.asarray(centre @ rotation @ np.linalg.inv(centre) @ matrix, np.float64)


def table_grid(layout: TableLayout, step: float = 100.0) -> NDArray[np.float64]:
    """Points on the table surface (inside the oval, 60 mm in from its edge)."""
    half_w, half_d = layout.table.width_mm / 2 - 60, layout.table.depth_mm / 2 - 60
    points = [
        (x, y)
        for x in np.arange(-half_w, half_w + 1, step)
        for y in np.arange(-half_d, half_d + 1, step)
        if (x / half_w) ** 2 + (y / half_d) ** 2 <= 1
    ]
    return np.array(points, dtype=np.float64)
