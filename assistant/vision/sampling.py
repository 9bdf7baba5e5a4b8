"""How finely a calibrated camera sees the table: millimetres of table per camera pixel.

The detector reads each card by its corner index, about 9 mm tall with a rank glyph of
about 5 mm. Rectifying a zone to 1 mm per pixel cannot add detail the camera never
caught: where one camera pixel spans 2 mm of table, a rank is 2-3 camera pixels tall and
an 8 is hard to tell from a 9. The model card measures card-identity F1 against this
number (``models/README.md``), and calibration reports it per zone so that a dealer
whose camera is too coarse for its table learns it before the game, not from misreads.

The number is taken in the worst direction: a tilted camera foreshortens the table
along its line of sight, and the index must be readable along both axes.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from assistant.vision.calibration import Calibration
from assistant.vision.geometry import Rect

#: Coarser than this (mm of table per camera pixel, at a seat's card zone) and the
#: detector misreads many more cards of unfamiliar decks. On held-out decks card-identity
#: F1 is 0.91 at 1.0 or finer, 0.85 from 1.0 to 1.8 and 0.65 past 1.8 (``models/README.md``,
#: "F1 against camera sampling"). A 1080p camera that just takes in a 1.6 m table sees
#: about 1.0 to 1.3 mm per pixel; a 720p one 1.5 to 2.
READABLE_MM_PER_PX = 1.8

#: The step of the finite differences, in mm (the mapping is smooth at this scale).
_STEP_MM = 1.0


def mm_per_camera_px(calibration: Calibration, point_mm: tuple[float, float]) -> float:
    """Millimetres of table one camera pixel spans at ``point_mm``, in its worst direction.

    The inverse of the smaller singular value of the table-to-image Jacobian (pixels per
    millimetre) there, so lens distortion and perspective both count.
    """
    x, y = float(point_mm[0]), float(point_mm[1])
    h = _STEP_MM
    pts = np.array([[x - h, y], [x + h, y], [x, y - h], [x, y + h]], dtype=np.float64)
    px = calibration.to_image(pts)
    jacobian = np.column_stack([(px[1] - px[0]) / (2 * h), (px[3] - px[2]) / (2 * h)])
    smallest = float(np.linalg.svd(jacobian, compute_uv=False)[-1])
    if not np.isfinite(smallest) or smallest <= 0:
        raise ValueError(f"the camera does not see the table at {point_mm} mm")
    return 1.0 / smallest


def rect_mm_per_camera_px(calibration: Calibration, rect: Rect) -> float:
    """The coarsest sampling over a zone: the worst of its centre and four corners."""
    points = [rect.center, *rect.corners()]
    return max(mm_per_camera_px(calibration, p) for p in points)


def zone_sampling(calibration: Calibration, zones: Mapping[str, Rect] | None = None) -> dict[str, float]:
    """Each zone's coarsest sampling (mm per camera pixel), for the layout's zones by default."""
    areas = calibration.layout.zones() if zones is None else zones
    return {key: rect_mm_per_camera_px(calibration, rect) for key, rect in areas.items()}


def card_zone_sampling(calibration: Calibration) -> dict[str, float]:
    """:func:`zone_sampling` of the seats' card zones only: where cards must be read."""
    return {k: v for k, v in zone_sampling(calibration).items() if k.endswith(".cards")}


def too_coarse(calibration: Calibration, limit: float = READABLE_MM_PER_PX) -> dict[str, float]:
    """The seats' card zones the camera sees more coarsely than ``limit`` mm per pixel."""
    return {k: v for k, v in card_zone_sampling(calibration).items() if v > limit}


def sampling_warning(calibration: Calibration, limit: float = READABLE_MM_PER_PX) -> str | None:
    """One line for the dealer when the camera sees some seat's cards too coarsely, else None."""
    coarse = too_coarse(calibration, limit)
    if not coarse:
        return None
    worst = max(coarse.values())
    seats = ", ".join(key.split(".")[0].replace("seat", "") for key in sorted(coarse))
    return (
        f"the camera sees the cards of seat {seats} at up to {worst:.1f} mm of table per pixel; "
        f"past {limit:.1f} the detector misreads many more cards of unfamiliar decks: expect "
        "more to confirm, or use a higher resolution or bring the camera closer"
    )
