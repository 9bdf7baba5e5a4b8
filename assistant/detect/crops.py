"""Square crops around detected boxes: the same code feeds training and inference.

A corner index (or a chip stack) is cut out as a square centred on its axis-aligned box,
``scale`` times the box's longer side, padded by replicating the border where it leaves
the image, and resized to ``size`` pixels. The readers see the object at whatever angle
it lies; rotation is learned, not rectified, so a box from the detector is all it needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[Any]
Box = Sequence[float] | npt.NDArray[Any]


def square_crop(image: Image, box: Box, size: int, scale: float = 1.15) -> Image:
    """A ``size`` x ``size`` crop centred on ``box`` (x1, y1, x2, y2) in ``image``.

    >>> img = np.zeros((100, 200, 3), np.uint8)
    >>> square_crop(img, (190, 90, 210, 110), 32).shape  # half outside: padded
    (32, 32, 3)
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    n = max(1, round(max(x2 - x1, y2 - y1, 1.0) * scale))
    x0 = round((x1 + x2) / 2 - n / 2)
    y0 = round((y1 + y2) / 2 - n / 2)
    region = _window(image, x0, y0, n, n)  # black when the box misses the image
    interp = cv2.INTER_AREA if n > size else cv2.INTER_LINEAR
    return np.asarray(cv2.resize(region, (size, size), interpolation=interp), dtype=np.uint8)


def batch_crops(image: Image, boxes: Sequence[Box], size: int, scale: float = 1.15) -> Image:
    """Crops of every box as one (N, size, size, 3) array."""
    if not boxes:
        return np.zeros((0, size, size, 3), np.uint8)
    return np.stack([square_crop(image, b, size, scale) for b in boxes])


#: A card's left strip as the strip reader sees it, at 1 mm per pixel: from just left of
#: and above its card box's top-left corner, 40 mm across and 88 mm down (a whole card is
#: 63 x 88): the corner index and the column of pips below it, which stay in view when
#: the next card of a row covers the rest of the card.
STRIP_SIZE = (40, 88)  # width, height
STRIP_MARGIN = (5, 5)  # mm left of and above the card box's top-left corner


def strip_crop(image: Image, box: Box, pad: int = 0, size: tuple[int, int] = STRIP_SIZE) -> Image:
    """The upright left strip of a card whose box is ``box``, ``pad`` px around it;
    ``size`` (width, height) from ``STRIP_MARGIN`` left of and above the box's top-left
    corner (a wider one takes in the card's whole face).

    Made for upright 1 mm/px zone crops. A card lying upside down shows its bottom-right
    corner there, turned upright: its strip reads like any other.

    >>> strip_crop(np.zeros((130, 280, 3), np.uint8), (10, 10, 73, 98)).shape
    (88, 40, 3)
    >>> strip_crop(np.zeros((130, 280, 3), np.uint8), (10, 10, 73, 98), size=(72, 88)).shape
    (88, 72, 3)
    """
    w, h = size
    x0 = round(float(box[0])) - STRIP_MARGIN[0] - pad
    y0 = round(float(box[1])) - STRIP_MARGIN[1] - pad
    return _window(image, x0, y0, w + 2 * pad, h + 2 * pad)


def _overlaps(image: Image, x0: int, y0: int, w: int, h: int) -> bool:
    ih, iw = image.shape[:2]
    return x0 < iw and y0 < ih and x0 + w > 0 and y0 + h > 0


def _window(image: Image, x0: int, y0: int, w: int, h: int) -> Image:
    """The ``w`` x ``h`` pixels from (x0, y0), the image's border replicated where the
    window leaves it; black where it misses the image altogether."""
    ih, iw = image.shape[:2]
    if not _overlaps(image, x0, y0, w, h):
        return np.zeros((h, w, 3), np.uint8)
    region = image[max(y0, 0) : min(y0 + h, ih), max(x0, 0) : min(x0 + w, iw)]
    top, left = max(0, -y0), max(0, -x0)
    bottom, right = max(0, y0 + h - ih), max(0, x0 + w - iw)
    if top or left or bottom or right:
        region = cv2.copyMakeBorder(region, top, bottom, left, right, cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(region, dtype=np.uint8)
