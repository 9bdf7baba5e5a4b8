"""The zones worth detecting in a frame: rectified, and only where something changed.

Each frame, every zone is rectified cheaply at a coarse scale and put through the
:class:`~assistant.vision.motion.MotionGate`; only the zones that changed are rectified
at the detector's scale and handed out, ready for :func:`~assistant.vision.rectify.batch_crops`.
Zones that did not change keep whatever the detector last said about them.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from assistant.vision.calibration import Calibration
from assistant.vision.geometry import Rect
from assistant.vision.motion import MotionGate
from assistant.vision.rectify import DEFAULT_MM_PER_PX, ZoneCrop, ZoneRectifier

GATE_MM_PER_PX = 4.0


class ZoneFeed:
    def __init__(
        self,
        calibration: Calibration,
        zones: Mapping[str, Rect] | None = None,
        *,
        mm_per_px: float = DEFAULT_MM_PER_PX,
        gate: MotionGate | None = None,
    ) -> None:
        self.rectifier = ZoneRectifier(calibration, zones, mm_per_px=mm_per_px)
        self._coarse = ZoneRectifier(calibration, zones, mm_per_px=GATE_MM_PER_PX)
        self.gate = gate or MotionGate(thumbnail_step=1)

    def changed_zones(self, image: NDArray[np.uint8]) -> list[ZoneCrop]:
        """Crops, at the detector's scale, of the zones whose pixels changed."""
        changed = [
            crop.key for crop in self._coarse.rectify(image) if self.gate.changed(crop.key, crop.image)
        ]
        return self.rectifier.rectify(image, changed) if changed else []

    def reset(self) -> None:
        """Forget the past: every zone passes on the next frame (after a recalibration)."""
        self.gate.reset()
