"""The detector on a calibrated table frame: zone by zone, as the camera pipeline runs it.

A frame from a calibrated table camera is warped zone by zone into upright 1 mm/px crops
(:class:`~assistant.vision.rectify.ZoneRectifier`), the crops go through the detector as
the pipeline sends them (:meth:`CardDetector.for_zones`), and every box found comes back
into the frame's pixels: the crop box's corners to table millimetres, to the image, and
the box around them. Cards lying outside every zone are not looked for.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from assistant.detect.pipeline import Card, CardDetector, ChipStack, Detection
from assistant.vision.calibration import Calibration
from assistant.vision.rectify import ZoneCrop, ZoneRectifier

Box = tuple[float, float, float, float]


class TableFrameDetector:
    def __init__(self, detector: CardDetector, calibration: Calibration) -> None:
        self.detector = detector
        self.calibration = calibration
        self.rectifier = ZoneRectifier(calibration)

    def detect(self, image: npt.NDArray[np.uint8], name: str = "") -> Detection:
        h, w = image.shape[:2]
        out = Detection(name)
        for crop in self.rectifier.rectify(image):
            found = self.detector.detect(crop.image)

            def back(box: Box, crop: ZoneCrop = crop) -> Box:
                return self._to_image(crop, box, (w, h))

            out.cards += [Card(c.card, back(c.box), c.confidence) for c in found.cards]
            out.face_down += [back(b) for b in found.face_down]
            out.chips += [ChipStack(s.colour, s.count, back(s.box), s.confidence) for s in found.chips]
        return out

    def _to_image(self, crop: ZoneCrop, box: Box, size: tuple[int, int]) -> Box:
        x1, y1, x2, y2 = box
        corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
        points = self.calibration.to_image(crop.to_table(corners))
        w, h = size
        return (
            float(np.clip(points[:, 0].min(), 0, w)),
            float(np.clip(points[:, 1].min(), 0, h)),
            float(np.clip(points[:, 0].max(), 0, w)),
            float(np.clip(points[:, 1].max(), 0, h)),
        )
