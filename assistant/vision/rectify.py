"""Zone rectification: each zone of a frame warped to a fixed millimetres-per-pixel crop.

A card then appears at about the same size in its crop whatever the camera's height or
angle, and the crops of all zones can be batched through the detector together. Each
zone's crop is upright for the player of that seat (the zone's own ``+y`` axis points
down the crop). A crop knows how to map its pixels back to the table.

>>> from assistant.vision.geometry import Rect
>>> zone = Rect((0.0, 0.0), (100.0, 60.0), 0.0)
>>> (table_to_crop_matrix(zone, 0.5) @ [-50.0, -30.0, 1.0]).tolist()
[-0.5, -0.5, 1.0]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from assistant.vision.calibration import Calibration, apply_homography
from assistant.vision.geometry import Rect

#: Default crop scale: 1 mm per pixel, so a 63 x 88 mm card is 63 x 88 px. A 720p camera
#: over a whole table sees about 2 mm per pixel, so finer crops only interpolate.
DEFAULT_MM_PER_PX = 1.0
PAD_VALUE = 114  # grey padding, as YOLO letterboxing uses


def table_to_crop_matrix(zone: Rect, mm_per_px: float) -> NDArray[np.float64]:
    """3x3 map from table mm to crop pixels (pixel centres at integers)."""
    (ux, uy), (vx, vy) = zone.axes()
    cx, cy = zone.center
    scale = 1.0 / mm_per_px
    rotate = np.array([[ux, uy, 0.0], [vx, vy, 0.0], [0.0, 0.0, 1.0]])
    to_local = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])
    to_pixels = np.array(
        [
            [scale, 0.0, zone.size[0] / 2.0 * scale - 0.5],
            [0.0, scale, zone.size[1] / 2.0 * scale - 0.5],
            [0.0, 0.0, 1.0],
        ]
    )
    return np.asarray(to_pixels @ rotate @ to_local, dtype=np.float64)


@dataclass(frozen=True)
class ZoneCrop:
    """A zone's pixels at a fixed scale, with the way back to table millimetres."""

    key: str
    image: NDArray[np.uint8]
    mm_per_px: float
    crop_to_table: NDArray[np.float64]
    #: The zone itself within the crop, (x1, y1, x2, y2) in crop pixels: the whole crop,
    #: or less when the crop takes in a margin of the table around its zone.
    inner: tuple[int, int, int, int]

    def to_table(self, points_px: ArrayLike) -> NDArray[np.float64]:
        return apply_homography(self.crop_to_table, points_px)

    def from_table(self, points_mm: ArrayLike) -> NDArray[np.float64]:
        """Table points (mm) in the crop's pixels."""
        return apply_homography(np.asarray(np.linalg.inv(self.crop_to_table), np.float64), points_mm)


class ZoneRectifier:
    """Warps the zones of a calibrated camera's frames into fixed-scale crops.

    Each zone's pixel map is computed once (fixed-point, for ``cv2.remap``); a frame
    then costs one remap per zone, in proportion to the crop's size, not the frame's.
    ``margins`` (millimetres along the zone's own x and y, per zone key) widen a zone's
    crop beyond the zone on every side, so that a card lying across the zone's edge is
    seen whole; the crop's :attr:`ZoneCrop.inner` says where the zone itself lies.
    """

    def __init__(
        self,
        calibration: Calibration,
        zones: Mapping[str, Rect] | None = None,
        *,
        mm_per_px: float = DEFAULT_MM_PER_PX,
        margins: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        if mm_per_px <= 0:
            raise ValueError("mm_per_px must be positive")
        self.mm_per_px = mm_per_px
        self.zones = dict(calibration.layout.zones() if zones is None else zones)
        self.margins = {key: margin for key, margin in (margins or {}).items() if key in self.zones}
        if any(m < 0 for margin in self.margins.values() for m in margin):
            raise ValueError("zone margins must be zero or more millimetres")
        self._maps: dict[str, tuple[NDArray[np.int16], NDArray[np.uint16]]] = {}
        self._crop_to_table: dict[str, NDArray[np.float64]] = {}
        self._inner: dict[str, tuple[int, int, int, int]] = {}
        for key, own in self.zones.items():
            mx, my = self.margins.get(key, (0.0, 0.0))
            zone = Rect(own.center, (own.size[0] + 2 * mx, own.size[1] + 2 * my), own.angle_deg)
            table_to_crop = table_to_crop_matrix(zone, mm_per_px)
            crop_to_table = np.asarray(np.linalg.inv(table_to_crop), dtype=np.float64)
            width = max(1, round(zone.size[0] / mm_per_px))
            height = max(1, round(zone.size[1] / mm_per_px))
            columns, rows = np.meshgrid(np.arange(width), np.arange(height))
            crop_points = np.column_stack([columns.ravel(), rows.ravel()])
            table_points = apply_homography(crop_to_table, crop_points)
            image_points = calibration.to_image(table_points).astype(np.float32)
            map_x = image_points[:, 0].reshape(height, width)
            map_y = image_points[:, 1].reshape(height, width)
            fixed, fraction = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
            self._maps[key] = (np.asarray(fixed, np.int16), np.asarray(fraction, np.uint16))
            self._crop_to_table[key] = crop_to_table
            left, top = round(mx / mm_per_px), round(my / mm_per_px)
            self._inner[key] = (left, top, width - left, height - top)

    def crop_size(self, key: str) -> tuple[int, int]:
        """(width, height) in pixels of a zone's crop."""
        height, width = self._maps[key][0].shape[:2]
        return width, height

    def rectify(self, image: NDArray[np.uint8], keys: Iterable[str] | None = None) -> list[ZoneCrop]:
        """Crops of the given zones (all zones by default), in the order asked."""
        crops = []
        for key in self.zones if keys is None else keys:
            fixed, fraction = self._maps[key]
            pixels = cv2.remap(
                image,
                fixed,
                fraction,
                cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_CONSTANT,
                borderValue=(PAD_VALUE,) * 3,
            )
            crops.append(
                ZoneCrop(
                    key,
                    np.asarray(pixels, np.uint8),
                    self.mm_per_px,
                    self._crop_to_table[key],
                    self._inner[key],
                )
            )
        return crops


def batch_crops(crops: list[ZoneCrop], size: tuple[int, int] | None = None) -> NDArray[np.uint8]:
    """Stack crops into one ``(N, H, W, C)`` array, each at the top-left, padded grey.

    ``size`` is (width, height); by default the largest crop's. Crops are never scaled,
    so every zone keeps the same millimetres per pixel and a detection at ``(x, y)`` in
    slot ``i`` is at ``(x, y)`` in ``crops[i]``.
    """
    if not crops:
        raise ValueError("no crops to batch")
    width = size[0] if size else max(c.image.shape[1] for c in crops)
    height = size[1] if size else max(c.image.shape[0] for c in crops)
    channels = crops[0].image.shape[2] if crops[0].image.ndim == 3 else 1
    out = np.full((len(crops), height, width, channels), PAD_VALUE, dtype=np.uint8)
    for index, crop in enumerate(crops):
        pixels = crop.image if crop.image.ndim == 3 else crop.image[..., None]
        h, w = min(height, pixels.shape[0]), min(width, pixels.shape[1])
        out[index, :h, :w] = pixels[:h, :w]
    return out
