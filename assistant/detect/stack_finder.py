"""Chip stacks found where the camera sees them upright: in the frame around a zone.

The stack finder (``stack_finder.onnx``) is stage 1 (:mod:`assistant.detect.backends`)
fine-tuned on bet and pot zones cut out of the camera's own frame
(:class:`assistant.vision.zone_frames.ZoneFrames`; data from
:mod:`assistant.synth.stack_frames`). There a stack seen from the side is a compact
upright cylinder, not the long smear a table-plane zone crop makes of it, so it is found
whole and apart from its neighbours. Each box is placed on the table
(:func:`assistant.vision.stacks.stack_base_point`: the base circle whose lowest edge
touches the box's lower edge) and kept for the zone it stands in; the stack counter
(:mod:`assistant.detect.stack_counter`) then counts it from its side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from assistant.detect.backends import Backend, OnnxDetector
from assistant.vision.calibration import Calibration
from assistant.vision.stacks import CameraModel, camera_model, stack_base_point
from assistant.vision.zone_frames import FRAME_CROP_PX, ZoneFrames

#: Stage-1 boxes of chips less sure than this are not stacks.
FINDER_CONF = 0.3
FINDER_IOU = 0.6
#: Two stacks cannot stand closer than a chip's width: boxes placed nearer than this are
#: one stack (found twice, as two colours or as its top and its whole), and the surer
#: box stands for it.
SAME_STACK_MM = 30.0

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class FoundStack:
    colour: str
    box: Box  # in the frame, pixels as seen
    confidence: float
    base: tuple[float, float]  # where it stands on the table, mm


class StackFinder:
    """Finds the chip stacks standing in a calibrated camera's zones."""

    def __init__(
        self,
        detector: Backend,
        calibration: Calibration,
        model: CameraModel | None = None,
    ) -> None:
        self.detector = detector
        self.colours = {
            i: name.removeprefix("chips_")
            for i, name in enumerate(detector.names)
            if name.startswith("chips_")
        }
        if not self.colours:
            raise ValueError("the stack finder's network has no chip classes")
        self.calibration = calibration
        self.model = model or camera_model(calibration)
        self.frames = ZoneFrames(calibration, model=self.model)

    @classmethod
    def from_file(
        cls, path: Path, calibration: Calibration, threads: int = 0, model: CameraModel | None = None
    ) -> StackFinder:
        detector = OnnxDetector(path, FRAME_CROP_PX, FINDER_CONF, FINDER_IOU, threads=threads)
        return cls(detector, calibration, model)

    def find(self, frame: npt.NDArray[np.uint8], key: str) -> list[FoundStack]:
        """The stacks standing in zone ``key`` of ``frame`` (none when the camera does not see it)."""
        found = []
        for crop in self.frames.cut(frame, [key]):
            boxes = self.detector(crop.image)
            for xyxy, conf, cls in zip(boxes.xyxy, boxes.conf, boxes.cls, strict=True):
                colour = self.colours.get(int(cls))
                if colour is None:
                    continue
                box = crop.to_frame(xyxy)
                base = stack_base_point(box, self.calibration, camera=self.model)
                if self.frames.holds(key, base):
                    found.append(FoundStack(colour, box, float(conf), base))
        out: list[FoundStack] = []
        for stack in sorted(found, key=lambda s: -s.confidence):
            if all(math.dist(stack.base, kept.base) >= SAME_STACK_MM for kept in out):
                out.append(stack)
        return out
