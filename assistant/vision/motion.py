"""Motion gating: send a zone to the detector only when its pixels have changed.

The gate keeps, per zone, a small grey thumbnail of the last crop it let through. A new
crop passes when enough of its thumbnail's pixels differ from that reference by more
than the noise level; the reference then becomes the new crop. So while a hand moves
over a zone every frame passes, and the first still frame after the motion is compared
with the last moving one: the detector always sees the zone's resting state. Slow
drift (light changing) accumulates against the reference until it passes too, and
``refresh_every`` forces a pass now and then regardless.

>>> import numpy as np
>>> gate = MotionGate()
>>> still = np.zeros((64, 64), np.uint8)
>>> gate.changed("pot", still), gate.changed("pot", still)
(True, False)
>>> moved = still.copy(); moved[20:40, 20:40] = 200
>>> gate.changed("pot", moved)
True
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray


def shrink(image: NDArray[np.uint8], step: int) -> NDArray[np.uint8]:
    """``image`` made ``step`` times smaller each way (pixel areas averaged), at least 1 x 1.

    >>> shrink(np.zeros((130, 280, 3), np.uint8), 4).shape
    (32, 70, 3)
    """
    height, width = image.shape[:2]
    size = (max(1, width // step), max(1, height // step))
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)


class MotionGate:
    def __init__(
        self,
        *,
        pixel_threshold: int = 20,
        changed_fraction: float = 0.003,
        thumbnail_step: int = 4,
        refresh_every: int | None = None,
    ) -> None:
        """``pixel_threshold``: grey levels a pixel must move by to count as changed;
        ``changed_fraction``: share of the thumbnail's pixels that must change;
        ``thumbnail_step``: the thumbnail is the crop shrunk this many times;
        ``refresh_every``: let a zone through after this many skipped frames anyway."""
        self.pixel_threshold = pixel_threshold
        self.changed_fraction = changed_fraction
        self.thumbnail_step = max(1, thumbnail_step)
        self.refresh_every = refresh_every
        self._references: dict[str, NDArray[np.uint8]] = {}
        self._skipped: dict[str, int] = {}

    def _thumbnail(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        gray = image if image.ndim == 2 else np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
        return shrink(gray, self.thumbnail_step)

    def changed(self, key: str, image: NDArray[np.uint8]) -> bool:
        """Whether the zone's crop differs from the last one let through (and if so, pass it)."""
        thumbnail = self._thumbnail(image)
        reference = self._references.get(key)
        skipped = self._skipped.get(key, 0)
        passed = (
            reference is None
            or reference.shape != thumbnail.shape
            or self._differs(reference, thumbnail)
            or (self.refresh_every is not None and skipped >= self.refresh_every)
        )
        if passed:
            self._references[key] = thumbnail
            self._skipped[key] = 0
        else:
            self._skipped[key] = skipped + 1
        return passed

    def _differs(self, reference: NDArray[np.uint8], thumbnail: NDArray[np.uint8]) -> bool:
        difference = cv2.absdiff(reference, thumbnail)
        count = int(np.count_nonzero(difference > self.pixel_threshold))
        return count > self.changed_fraction * difference.size

    def reset(self, key: str | None = None) -> None:
        """Forget the reference of one zone (or all): its next crop passes."""
        if key is None:
            self._references.clear()
            self._skipped.clear()
        else:
            self._references.pop(key, None)
            self._skipped.pop(key, None)
