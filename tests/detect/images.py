"""Images read back in tests, typed as the detector takes them."""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import numpy.typing as npt


def as_bgr(image: npt.NDArray[Any] | None) -> npt.NDArray[np.uint8]:
    """``cv2.imread``'s result for an image the test expects to read: 8-bit BGR."""
    assert image is not None, "the image could not be read"
    return cast(npt.NDArray[np.uint8], image)
