"""The detector on a calibrated table frame: zone by zone, as the camera pipeline runs it.

A frame from a calibrated table camera is warped zone by zone into upright 1 mm/px crops
(:class:`~assistant.vision.rectify.ZoneRectifier`), the crops go through the detector as
the pipeline sends them (:meth:`CardDetector.for_zones`), and every box found comes back
into the frame's pixels: the crop box's corners to table millimetres, to the image, and
the box around them. No two zones keep one card's name (:func:`named_apart`). Cards lying
outside every zone are not looked for. Given a stack counter, each chip stack is counted
from its side in the frame (:mod:`assistant.detect.stack_counter`), which the zone crop
alone cannot do.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from assistant.detect.pipeline import Card, CardDetector, ChipStack, Detection, named_apart
from assistant.detect.stack_counter import StackCounter, chip_items
from assistant.vision.calibration import Calibration
from assistant.vision.rectify import ZoneCrop, ZoneRectifier

Box = tuple[float, float, float, float]


class TableFrameDetector:
    def __init__(
        self, detector: CardDetector, calibration: Calibration, counter: StackCounter | None = None
    ) -> None:
        self.detector = detector
        self.calibration = calibration
        self.rectifier = ZoneRectifier(calibration)
        self.counter = counter

    def detect(self, image: npt.NDArray[np.uint8], name: str = "") -> Detection:
        h, w = image.shape[:2]
        out = Detection(name)
        crops = self.rectifier.rectify(image)
        # no two zones of the table keep one card's name (as the camera pipeline names them)
        zones = named_apart([self.detector.detect(crop.image) for crop in crops])
        for crop, found in zip(crops, zones, strict=True):

            def back(box: Box, crop: ZoneCrop = crop) -> Box:
                return self._to_image(crop, box, (w, h))

            out.cards += [Card(c.card, back(c.box), c.confidence) for c in found.cards]
            out.face_down += [back(b) for b in found.face_down]
            if self.counter is None:
                out.chips += [ChipStack(s.colour, s.count, back(s.box), s.confidence) for s in found.chips]
                continue
            # found (in bet and pot zones by the stack finder in the frame, or else the counter's
            # stage 1 in the crop) and counted from the side; a stack's box is the stack itself
            # in the frame: as the finder saw it, or else as its base and count project
            for item in self.counter.chips_in_crop(image, crop, chip_items(found.chips)):
                count, base = item["count"], tuple(item["base_mm"])
                if "frame_box" in item:  # found in the frame itself (the stack finder)
                    box = self._clip(tuple(item["frame_box"]), (w, h))
                elif count:
                    box = self._clip(self.counter.image_box(base, count), (w, h))
                else:
                    box = back(tuple(item["box"]))
                out.chips.append(ChipStack(item["colour"], count, box, float(item["confidence"])))
        return out

    @staticmethod
    def _clip(box: Box, size: tuple[int, int]) -> Box:
        w, h = size
        return (
            float(np.clip(box[0], 0, w)),
            float(np.clip(box[1], 0, h)),
            float(np.clip(box[2], 0, w)),
            float(np.clip(box[3], 0, h)),
        )

    def _to_image(self, crop: ZoneCrop, box: Box, size: tuple[int, int]) -> Box:
        x1, y1, x2, y2 = box
        corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
        points = self.calibration.to_image(crop.to_table(corners))
        (left, top), (right, bottom) = points.min(axis=0), points.max(axis=0)
        return self._clip((float(left), float(top), float(right), float(bottom)), size)
