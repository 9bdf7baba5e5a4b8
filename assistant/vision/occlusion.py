"""Something over a zone that is neither a card nor a chip: a hand, a sleeve, a cup.

Each zone's empty look (the felt, with its texture and light) is remembered from the
frames in which the zone read empty. When a large share of a zone's pixels outside
every detected card and chip stack differs from that look, something else lies over
the zone: it is *occluded*, and what the detector found there this frame says nothing
(a dealer's sleeve over a player's cards does not make them vanish, so the pipeline
must not read a fold into it). A zone never seen empty has no look yet and is never
called occluded.

>>> import numpy as np
>>> felt = np.full((130, 280, 3), (40, 90, 30), np.uint8)
>>> check = OcclusionCheck()
>>> check.check("seat1.cards", felt, [], empty=True)
False
>>> sleeve = felt.copy()
>>> sleeve[:, 100:220] = (200, 160, 150)
>>> check.check("seat1.cards", sleeve, [], empty=True)
True
>>> check.check("seat1.cards", sleeve, [(95, 0, 225, 130)], empty=False)  # a card there
False
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from assistant.vision.motion import shrink

Box = Sequence[float]


class OcclusionCheck:
    def __init__(
        self,
        *,
        step: int = 4,
        pixel_threshold: float = 45.0,
        covered_fraction: float = 0.06,
        margin_px: float = 4.0,
        adapt: float = 0.2,
    ) -> None:
        """``step``: zones are compared as thumbnails this many times smaller;
        ``pixel_threshold``: colour distance (BGR, 0-441) at which a pixel no longer looks
        like the empty zone; ``covered_fraction``: share of the zone's area that must look
        different, outside detected objects, for the zone to count as occluded;
        ``margin_px``: detected boxes are widened by this much (crop pixels);
        ``adapt``: how fast the empty look follows slow changes of light."""
        self.step = max(1, step)
        self.pixel_threshold = pixel_threshold
        self.covered_fraction = covered_fraction
        self.margin_px = margin_px
        self.adapt = adapt
        self._empty: dict[str, NDArray[np.float32]] = {}

    def _thumbnail(self, image: NDArray[np.uint8]) -> NDArray[np.float32]:
        return np.asarray(cv2.GaussianBlur(shrink(image, self.step), (3, 3), 0), dtype=np.float32)

    def check(self, key: str, image: NDArray[np.uint8], boxes: Sequence[Box], *, empty: bool) -> bool:
        """Whether zone ``key`` is occluded in ``image`` (its crop), given the ``boxes``
        (x1, y1, x2, y2, crop pixels) of what the detector found there and whether that
        reading is empty. An empty reading of an unoccluded zone refreshes its look."""
        thumb = self._thumbnail(image)
        reference = self._empty.get(key)
        if reference is None or reference.shape != thumb.shape:
            if empty:
                self._empty[key] = thumb
            return False
        different = np.sqrt(((thumb - reference) ** 2).sum(axis=2)) > self.pixel_threshold
        for box in boxes:
            x1, y1, x2, y2 = (float(v) for v in box[:4])
            m = self.margin_px
            c0, r0 = max(0, int((x1 - m) // self.step)), max(0, int((y1 - m) // self.step))
            c1, r1 = int(np.ceil((x2 + m) / self.step)), int(np.ceil((y2 + m) / self.step))
            different[r0:r1, c0:c1] = False
        occluded = bool(different.mean() > self.covered_fraction)
        if empty and not occluded:
            reference += self.adapt * (thumb - reference)
        return occluded

    def forget(self, key: str | None = None) -> None:
        """Drop the empty look of ``key`` (all zones when None): after a camera bump."""
        if key is None:
            self._empty.clear()
        else:
            self._empty.pop(key, None)
