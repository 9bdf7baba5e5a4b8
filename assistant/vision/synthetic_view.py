"""Synthetic camera views of a laid-out table, for tests and measurements.

A :class:`PinholeCamera` looks at the table from a known pose, so the true
table-to-image homography is known exactly. :func:`render_table_view` draws the table
top-down (felt, printed markers on white paper, zone outlines) and warps it into the
camera's image, optionally with blur and noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from assistant.vision.layout import TableLayout, TableShape, marker_margin_mm
from assistant.vision.markers import MARKER_CELLS, marker_cells


@dataclass(frozen=True)
class PinholeCamera:
    """A camera with square pixels, its principal point at the image centre.

    World coordinates are table millimetres with ``z`` pointing down into the table, so
    points above the table have negative ``z``.
    """

    rotation: NDArray[np.float64]  # world to camera
    position: NDArray[np.float64]  # camera centre in world mm
    focal_px: float
    image_size: tuple[int, int] = (1280, 720)

    @classmethod
    def looking_at(
        cls,
        position: ArrayLike,
        target: ArrayLike = (0.0, 0.0, 0.0),
        *,
        focal_px: float = 1000.0,
        roll_deg: float = 0.0,
        image_size: tuple[int, int] = (1280, 720),
    ) -> PinholeCamera:
        """A camera at ``position`` (mm; height as negative z) aimed at ``target``."""
        centre = np.asarray(position, dtype=np.float64)
        forward = np.asarray(target, dtype=np.float64) - centre
        forward /= np.linalg.norm(forward)
        right = np.array([1.0, 0.0, 0.0]) - forward[0] * forward
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        roll = math.radians(roll_deg)
        right, down = (
            math.cos(roll) * right + math.sin(roll) * down,
            -math.sin(roll) * right + math.cos(roll) * down,
        )
        rotation = np.vstack([right, down, forward])
        return cls(rotation, centre, focal_px, image_size)

    @property
    def intrinsics(self) -> NDArray[np.float64]:
        width, height = self.image_size
        return np.array([[self.focal_px, 0.0, width / 2.0], [0.0, self.focal_px, height / 2.0], [0, 0, 1.0]])

    def project(self, points_mm: ArrayLike) -> NDArray[np.float64]:
        """Project ``(N, 3)`` world points (or ``(N, 2)`` table points) to pixels."""
        points = np.asarray(points_mm, dtype=np.float64)
        points = points.reshape(-1, points.shape[-1])
        if points.shape[1] == 2:
            points = np.hstack([points, np.zeros((len(points), 1))])
        camera = (points - self.position) @ self.rotation.T
        pixels = camera @ self.intrinsics.T
        return np.asarray(pixels[:, :2] / pixels[:, 2:3], dtype=np.float64)

    @property
    def table_to_image(self) -> NDArray[np.float64]:
        translation = -self.rotation @ self.position
        matrix = self.intrinsics @ np.column_stack([self.rotation[:, 0], self.rotation[:, 1], translation])
        return np.asarray(matrix / matrix[2, 2], dtype=np.float64)


def oblique_camera(layout: TableLayout, **kwargs: float) -> PinholeCamera:
    """A camera behind and above the near side, framing the whole table at 720p."""
    depth = layout.table.depth_mm
    width = layout.table.width_mm
    distance = 0.78 * width
    return PinholeCamera.looking_at(
        (0.0, 0.75 * distance + 0.3 * depth, -0.8 * distance),
        (0.0, 0.03 * depth, 0.0),
        focal_px=1000.0,
        roll_deg=kwargs.get("roll_deg", 0.0),
    )


TOP_VIEW_BORDER_MM = 100.0


def table_to_top_view(layout: TableLayout, px_per_mm: float) -> NDArray[np.float64]:
    """3x3 map from table mm to the pixels of :func:`render_top_view`'s image."""
    width = layout.table.width_mm + 2 * TOP_VIEW_BORDER_MM
    depth = layout.table.depth_mm + 2 * TOP_VIEW_BORDER_MM
    return np.array(
        [
            [px_per_mm, 0.0, width / 2.0 * px_per_mm],
            [0.0, px_per_mm, depth / 2.0 * px_per_mm],
            [0, 0, 1],
        ]
    )


def draw_on_top_view(
    top_view: NDArray[np.uint8],
    layout: TableLayout,
    px_per_mm: float,
    polygon_mm: ArrayLike,
    colour: tuple[int, int, int],
) -> None:
    """Fill a polygon given in table mm onto a top view (a card, a chip, a hand)."""
    matrix = table_to_top_view(layout, px_per_mm)
    points = np.asarray(polygon_mm, dtype=np.float64).reshape(-1, 2)
    pixels = points @ matrix[:2, :2].T + matrix[:2, 2]
    cv2.fillPoly(top_view, [np.round(pixels * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


def render_top_view(layout: TableLayout, px_per_mm: float, *, seed: int = 0) -> NDArray[np.uint8]:
    """The table seen from straight above: felt, markers on white paper, zone outlines.

    Pixel ``(u, v)`` shows table point ``(u / s - W/2, v / s - D/2)`` with
    ``s = px_per_mm``, where ``W`` and ``D`` are the table's size plus a 100 mm border.
    """
    border = TOP_VIEW_BORDER_MM
    width = layout.table.width_mm + 2 * border
    depth = layout.table.depth_mm + 2 * border
    rng = np.random.default_rng(seed)
    shape = (round(depth * px_per_mm), round(width * px_per_mm))
    image = np.empty((*shape, 3), dtype=np.uint8)
    image[:] = (70, 60, 55)  # the floor
    felt_colour = np.array([40.0, 110.0, 30.0])
    felt = np.clip(rng.normal(0, 6, (*shape, 1)) + felt_colour, 0, 255).astype(np.uint8)
    mask = np.zeros(shape, dtype=np.uint8)
    centre = (width / 2.0 * px_per_mm, depth / 2.0 * px_per_mm)
    axes = (layout.table.width_mm / 2.0 * px_per_mm, layout.table.depth_mm / 2.0 * px_per_mm)
    if layout.table.shape is TableShape.OVAL:
        cv2.ellipse(mask, (centre, (2 * axes[0], 2 * axes[1]), 0.0), 255, -1)
    else:
        mask[round(border * px_per_mm) : -round(border * px_per_mm), :] = 255
    image[mask > 0] = felt[mask > 0]

    def to_px(points: ArrayLike) -> NDArray[np.float64]:
        array = np.asarray(points, dtype=np.float64)
        return np.asarray((array + np.array([width / 2.0, depth / 2.0])) * px_per_mm, np.float64)

    for rect in layout.zones().values():
        outline = np.round(to_px(rect.corners()) * 16).astype(np.int32)
        cv2.polylines(image, [outline], True, (90, 160, 80), 2, cv2.LINE_AA, shift=4)
    for marker in layout.markers:
        cells = marker_cells(marker.id)
        paper = marker.size_mm + 2 * marker_margin_mm(marker.size_mm)
        marker_px = round(paper * px_per_mm * 2)
        tile = np.full((marker_px, marker_px), 255, dtype=np.uint8)
        cell = marker.size_mm / MARKER_CELLS / paper * marker_px
        offset = marker_margin_mm(marker.size_mm) / paper * marker_px
        for row, column in zip(*np.nonzero(cells), strict=True):
            x0, y0 = offset + column * cell, offset + row * cell
            tile[round(y0) : round(y0 + cell), round(x0) : round(x0 + cell)] = 0
        half = paper / 2.0
        rect_corners = to_px(
            [
                _rotate(marker.center, (-half, -half), marker.angle_deg),
                _rotate(marker.center, (half, -half), marker.angle_deg),
                _rotate(marker.center, (half, half), marker.angle_deg),
                _rotate(marker.center, (-half, half), marker.angle_deg),
            ]
        )
        edge = marker_px - 0.5  # the tile's outer edges, with pixel centres at integers
        source = np.array([[-0.5, -0.5], [edge, -0.5], [edge, edge], [-0.5, edge]])
        x0, y0 = np.floor(rect_corners.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(rect_corners.max(axis=0)).astype(int) + 2
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, shape[1]), min(y1, shape[0])
        if x1 <= x0 or y1 <= y0:
            continue
        warp = cv2.getPerspectiveTransform(
            source.astype(np.float32), (rect_corners - (x0, y0)).astype(np.float32)
        )
        size = (int(x1 - x0), int(y1 - y0))
        warped = cv2.warpPerspective(tile, warp, size, flags=cv2.INTER_AREA, borderValue=0)
        cover = cv2.warpPerspective(np.full_like(tile, 255), warp, size, flags=cv2.INTER_LINEAR)
        alpha = (cover.astype(np.float32) / 255.0)[..., None]
        region = image[y0:y1, x0:x1]
        region[:] = (region * (1 - alpha) + warped[..., None] * alpha).astype(np.uint8)
    return image


def _rotate(
    centre: tuple[float, float], offset: tuple[float, float], angle_deg: float
) -> tuple[float, float]:
    theta = math.radians(angle_deg)
    cos, sin = math.cos(theta), math.sin(theta)
    return (
        centre[0] + cos * offset[0] - sin * offset[1],
        centre[1] + sin * offset[0] + cos * offset[1],
    )


def render_table_view(
    layout: TableLayout,
    table_to_image: NDArray[np.float64],
    image_size: tuple[int, int] = (1280, 720),
    *,
    px_per_mm: float = 2.0,
    blur_sigma: float = 0.0,
    noise_sigma: float = 0.0,
    seed: int = 0,
    top_view: NDArray[np.uint8] | None = None,
    distortion: float = 0.0,
) -> NDArray[np.uint8]:
    """The table as the camera with homography ``table_to_image`` sees it.

    The view is rendered at twice the size and shrunk, which anti-aliases it as a lens
    and sensor would. Pass ``top_view`` (from :func:`render_top_view` at the same
    ``px_per_mm``) to reuse one top view for many frames. ``distortion`` is the lens's
    radial distortion ``k`` (:mod:`assistant.vision.lens`).
    """
    if top_view is None:
        top_view = render_top_view(layout, px_per_mm, seed=seed)
    top_px_to_mm = np.linalg.inv(table_to_top_view(layout, px_per_mm))
    # OpenCV puts pixel centres at integer coordinates; the 2x render's pixels 2j and
    # 2j + 1 average into pixel j, so big coordinates are 2 * small + 0.5.
    to_big = np.array([[2.0, 0, 0.5], [0, 2.0, 0.5], [0, 0, 1]])
    matrix = to_big @ table_to_image @ top_px_to_mm
    if distortion == 0.0:
        big = cv2.warpPerspective(
            top_view,
            matrix,
            (image_size[0] * 2, image_size[1] * 2),
            flags=cv2.INTER_LINEAR,
            borderValue=(70, 60, 55),
        )
    else:
        # Each pixel of the 2x render samples the top view where the ideal camera would
        # have seen the point this lens shows there (the model of assistant.vision.lens).
        seen_x, seen_y = np.meshgrid(
            (np.arange(image_size[0] * 2, dtype=np.float32) - 0.5) / 2.0,
            (np.arange(image_size[1] * 2, dtype=np.float32) - 0.5) / 2.0,
        )
        centre_x, centre_y = (image_size[0] - 1) / 2.0, (image_size[1] - 1) / 2.0
        dx, dy = seen_x - centre_x, seen_y - centre_y
        factor = 1.0 + distortion * (dx * dx + dy * dy) / (image_size[0] / 2.0) ** 2
        ideal_x, ideal_y = centre_x + dx * factor, centre_y + dy * factor
        m = np.linalg.inv(table_to_image @ top_px_to_mm).astype(np.float32)
        w = m[2, 0] * ideal_x + m[2, 1] * ideal_y + m[2, 2]
        map_x = (m[0, 0] * ideal_x + m[0, 1] * ideal_y + m[0, 2]) / w
        map_y = (m[1, 0] * ideal_x + m[1, 1] * ideal_y + m[1, 2]) / w
        big = cv2.remap(top_view, map_x, map_y, cv2.INTER_LINEAR, borderValue=(70, 60, 55))
    image = cv2.resize(big, image_size, interpolation=cv2.INTER_AREA)
    if blur_sigma > 0:
        image = cv2.GaussianBlur(image, (0, 0), blur_sigma)
    if noise_sigma > 0:
        rng = np.random.default_rng(seed + 1)
        noisy = image.astype(np.float32) + rng.normal(0, noise_sigma, image.shape)
        image = np.clip(noisy, 0, 255).astype(np.uint8)
    return np.asarray(image, dtype=np.uint8)
