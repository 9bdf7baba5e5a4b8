"""Chips in a stack, counted from its side as a calibrated camera sees it.

A zone crop shows the table plane, where a stack seen obliquely is smeared away from the
camera and often runs out of the crop: the crop alone cannot count it. Here a stack found
in a bet or pot zone crop (by ``chip_detector.onnx``, stage 1 fine-tuned on such zones, or
by whatever boxes the caller has) is placed on the table
(:func:`~assistant.vision.stack_view.base_from_plane_box`), its side is cut out of the
camera's frame as one fixed upright view (:func:`~assistant.vision.stack_view.stack_view`)
and the counter network (``stack_counter.onnx``, the ``count`` head of
:class:`~assistant.detect.reader_model.CropReader`) reads how many chips stand there.
A stack the camera sees too steeply from above for one chip to show, and a reading less
sure than :data:`MIN_COUNT_CONFIDENCE`, come back as ``None``: the dealer says the count.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from assistant.detect.readers import OnnxReader
from assistant.vision.calibration import Calibration
from assistant.vision.lens import distort_points
from assistant.vision.rectify import ZoneCrop
from assistant.vision.stack_view import CHIP_THICKNESS_MM, Point, base_from_plane_box, readable, stack_view
from assistant.vision.stacks import CHIP_DIAMETER_MM, camera_model

if TYPE_CHECKING:
    from assistant.detect.pipeline import CardDetector, ChipStack

#: Counts read less surely than this are not given (the dealer confirms the bet).
MIN_COUNT_CONFIDENCE = 0.5
#: Zones whose stacks the counter's own stage 1 finds (``"seat3.bet" -> "bet"``).
CHIP_ZONE_KINDS = ("bet", "pot")


def chip_zone(key: str) -> bool:
    """Whether a rectifier's zone key names a zone of chips (a seat's bet, the pot)."""
    return key.rsplit(".", 1)[-1] in CHIP_ZONE_KINDS


def chip_items(stacks: Sequence[ChipStack]) -> list[dict[str, Any]]:
    """Detected stacks in the ``detect --json`` shape (boxes unrounded), with confidence."""
    return [
        {"colour": s.colour, "count": s.count, "box": list(s.box), "confidence": s.confidence} for s in stacks
    ]


class StackCounter:
    """The stack counter of one calibrated camera, with the stage 1 that finds its stacks."""

    def __init__(
        self, reader: OnnxReader, calibration: Calibration, finder: CardDetector | None = None
    ) -> None:
        if "count" not in reader.heads:
            raise ValueError("the stack counter's network has no 'count' output")
        self.reader = reader
        self.calibration = calibration
        self.model = camera_model(calibration)
        self.finder = finder

    @classmethod
    def from_file(
        cls, path: Path, calibration: Calibration, threads: int = 0, finder: CardDetector | None = None
    ) -> StackCounter:
        return cls(OnnxReader(path, threads), calibration, finder)

    def count(self, frame: npt.NDArray[np.uint8], bases: Sequence[Point]) -> list[tuple[int | None, float]]:
        """(count or ``None``, confidence) of the stacks standing at ``bases`` (table mm)."""
        views, where = [], []
        for i, base in enumerate(bases):
            if not readable(self.model, base):
                continue
            view = stack_view(frame, self.calibration, base, self.model)
            if view is not None:
                views.append(view)
                where.append(i)
        out: list[tuple[int | None, float]] = [(None, 0.0)] * len(bases)
        if not views:
            return out
        probs = self.reader.read_views(np.stack(views))["count"]
        for i, p in zip(where, probs, strict=True):
            k = int(p.argmax())
            sure = float(p[k])
            out[i] = (k if k > 0 and sure >= MIN_COUNT_CONFIDENCE else None, sure)
        return out

    def bases_in_crop(self, crop: ZoneCrop, boxes: Sequence[Sequence[float]]) -> list[Point]:
        """Where the stacks found at ``boxes`` in a zone crop stand on the table (mm)."""
        return [base_from_plane_box(b, crop.crop_to_table, self.model, crop.mm_per_px) for b in boxes]

    def count_in_crop(
        self, frame: npt.NDArray[np.uint8], crop: ZoneCrop, boxes: Sequence[Sequence[float]]
    ) -> list[tuple[int | None, float]]:
        """Like :meth:`count`, for stacks found at ``boxes`` in ``crop`` (a zone crop of ``frame``)."""
        return self.count(frame, self.bases_in_crop(crop, boxes))

    def chips_in_crop(
        self, frame: npt.NDArray[np.uint8], crop: ZoneCrop, found: Sequence[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """A zone's chip stacks in the ``detect --json`` shape, each counted from its side
        and with where it stands (``base_mm``, table millimetres).

        In a bet or pot zone the counter's own stage 1 finds the stacks (when it has one);
        elsewhere, and without one, the stacks ``found`` are counted where they lie."""
        if self.finder is not None and chip_zone(crop.key):
            found = chip_items(self.finder.detect(crop.image).chips)
        bases = self.bases_in_crop(crop, [item["box"] for item in found])
        counts = self.count(frame, bases)
        return [
            {**item, "count": count, "base_mm": list(base)}
            for item, base, (count, _) in zip(found, bases, counts, strict=True)
        ]

    def image_box(self, base: Point, count: int) -> tuple[float, float, float, float]:
        """The box in the frame (pixels as seen) of ``count`` chips standing at ``base``."""
        angles = np.linspace(0.0, 2.0 * np.pi, 48, endpoint=False)
        radius = CHIP_DIAMETER_MM / 2.0
        rims = [
            (base[0] + radius * np.cos(a), base[1] + radius * np.sin(a), -z)
            for a in angles
            for z in (0.0, count * CHIP_THICKNESS_MM)
        ]
        pixels = distort_points(
            self.model.project(rims), self.calibration.distortion, self.calibration.image_size
        )
        (x1, y1), (x2, y2) = pixels.min(axis=0), pixels.max(axis=0)
        return float(x1), float(y1), float(x2), float(y2)


def load_stack_counter(models: Path, calibration: Calibration) -> StackCounter | None:
    """The stack counter of ``models`` for this camera (with ``chip_detector.onnx`` to find
    the stacks, where shipped), or ``None`` when no counter is shipped there."""
    from assistant.detect.pipeline import CHIP_DETECTOR_ONNX, STACK_COUNTER, CardDetector

    path = models / STACK_COUNTER
    if not path.is_file():
        return None
    finder = None
    if (models / CHIP_DETECTOR_ONNX).is_file():
        finder = CardDetector.for_zones(models, stage1=CHIP_DETECTOR_ONNX)
    return StackCounter.from_file(path, calibration, finder=finder)
