"""A zone as the camera sees it: the frame's own pixels around a zone, stacks standing upright.

A zone crop (:mod:`assistant.vision.rectify`) shows the table plane, which suits cards
lying on it but smears a chip stack seen from the side away from the camera's foot, so
long that it often runs out of the crop and looks like no chip at all. In the camera's
own frame the same stack is a compact upright cylinder. A :class:`ZoneFrames` cuts, for
each zone of a calibrated camera, the frame's rectangle that holds everything standing
in the zone up to :data:`STACK_ROOM_MM` above the table (a tall stack whose base lies in
the zone is seen whole), scaled so that its longer side is :data:`FRAME_CROP_PX`: the
input the stack finder (``stack_finder.onnx``) is trained on and run on.

A crop may also show objects standing in a neighbouring zone behind; which zone a
stack belongs to is decided by where its base stands (:meth:`ZoneFrames.holds`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from assistant.vision.calibration import Calibration
from assistant.vision.geometry import Rect
from assistant.vision.lens import distort_points
from assistant.vision.stacks import CHIP_DIAMETER_MM, CameraModel, camera_model

#: How high above the table a zone's frame crop reaches: a 20-chip stack (66 mm) and more.
STACK_ROOM_MM = 80.0
#: How far beyond the zone's edges the crop reaches on the table: a stack whose base lies
#: just inside the zone is seen whole.
ZONE_MARGIN_MM = CHIP_DIAMETER_MM / 2.0 + 5.0
#: The longer side of a zone's frame crop in pixels.
FRAME_CROP_PX = 320
MIN_REGION_PX = 8  # a zone whose frame rectangle is thinner than this is not cut

Box = tuple[float, float, float, float]
Region = tuple[int, int, int, int]


@dataclass(frozen=True)
class FrameCrop:
    """One zone's rectangle of a frame, scaled: ``crop = (frame - origin) * scale``."""

    key: str
    image: NDArray[np.uint8]
    origin: tuple[int, int]  # the frame pixel at the crop's top-left corner
    scale: float  # crop pixels per frame pixel

    def to_frame(self, box: Iterable[float]) -> Box:
        """A box in crop pixels as a box in frame pixels."""
        x1, y1, x2, y2 = (float(v) for v in box)
        ox, oy = self.origin
        s = self.scale
        return ox + x1 / s, oy + y1 / s, ox + x2 / s, oy + y2 / s

    def from_frame(self, box: Iterable[float]) -> Box:
        """A box in frame pixels as a box in crop pixels (not cut to the crop)."""
        x1, y1, x2, y2 = (float(v) for v in box)
        ox, oy = self.origin
        s = self.scale
        return (x1 - ox) * s, (y1 - oy) * s, (x2 - ox) * s, (y2 - oy) * s

    def points_from_frame(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        """Points (N, 2) in frame pixels as crop pixels."""
        return np.asarray((np.asarray(points, np.float64) - self.origin) * self.scale, np.float64)


class ZoneFrames:
    """The frame rectangles of a calibrated camera's zones (computed once), and their crops."""

    def __init__(
        self,
        calibration: Calibration,
        zones: Mapping[str, Rect] | None = None,
        *,
        model: CameraModel | None = None,
        room_mm: float = STACK_ROOM_MM,
        margin_mm: float = ZONE_MARGIN_MM,
        size: int = FRAME_CROP_PX,
    ) -> None:
        if room_mm < 0 or margin_mm < 0 or size < MIN_REGION_PX:
            raise ValueError("room and margin must be zero or more millimetres, the crop at least 8 px")
        self.calibration = calibration
        self.model = model or camera_model(calibration)
        self.zones = dict(calibration.layout.zones() if zones is None else zones)
        self.size = size
        self.regions: dict[str, Region] = {}
        width, height = calibration.image_size
        for key, zone in self.zones.items():
            corners = zone.grown(margin_mm).corners()
            points = [(x, y, z) for x, y in corners for z in (0.0, -room_mm)]  # z < 0: above
            pixels = self.model.project(points)
            if not np.all(np.isfinite(pixels)):
                continue
            seen = distort_points(pixels, calibration.distortion, calibration.image_size)
            (x1, y1), (x2, y2) = seen.min(axis=0), seen.max(axis=0)
            left, top = max(0, int(np.floor(x1))), max(0, int(np.floor(y1)))
            right, bottom = min(width, int(np.ceil(x2))), min(height, int(np.ceil(y2)))
            if right - left >= MIN_REGION_PX and bottom - top >= MIN_REGION_PX:
                self.regions[key] = (left, top, right, bottom)

    def holds(self, key: str, base: tuple[float, float]) -> bool:
        """Whether a stack standing at ``base`` (table mm) stands in zone ``key``."""
        return self.zones[key].contains(base)

    def cut(self, frame: NDArray[np.uint8], keys: Iterable[str] | None = None) -> list[FrameCrop]:
        """The crops of the given zones (every zone in view by default), in the order
        asked; a zone out of the camera's view gives none."""
        height, width = frame.shape[:2]
        if (width, height) != tuple(self.calibration.image_size):
            raise ValueError(
                f"the frame is {width}x{height} px but the calibration is for "
                f"{self.calibration.image_size[0]}x{self.calibration.image_size[1]}"
            )
        crops = []
        for key in self.regions if keys is None else keys:
            region = self.regions.get(key)
            if region is None:
                continue
            left, top, right, bottom = region
            scale = self.size / max(right - left, bottom - top)
            out = (max(1, round((right - left) * scale)), max(1, round((bottom - top) * scale)))
            interpolation = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
            image = cv2.resize(frame[top:bottom, left:right], out, interpolation=interpolation)
            crops.append(FrameCrop(key, np.asarray(image, np.uint8), (left, top), scale))
        return crops
