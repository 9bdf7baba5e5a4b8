"""A chip stack's side as one fixed view, wherever it stands: what the stack counter reads.

A camera that looks at the table from the side sees a stack's chips as a striped band,
and how many pixels one chip spans depends on where the stack stands and how the camera
looks at it. In a zone crop (the table plane at 1 mm/px) the band is smeared away from
the camera's foot and often runs out of the crop. Here the camera's frame is sampled on
the near half of the stack's cylinder, the side that faces the camera, from below the
table to above the tallest stack: in this view every chip is :data:`ROWS_PER_CHIP` rows
tall and the stack stands upright in the middle, so counting its chips is measuring the
band from the stack's foot to its top.

The camera comes from the table's calibration (:func:`assistant.vision.stacks.camera_model`).
Where it sees a stack so steeply from above that one chip more adds under
:data:`READABLE_SIDE_PX` pixels to the stack's image, the count cannot be read and is not
guessed (:func:`side_px`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from assistant.vision.calibration import Calibration, apply_homography
from assistant.vision.lens import distort_points
from assistant.vision.stacks import CHIP_DIAMETER_MM, CameraModel, camera_model

CHIP_THICKNESS_MM = 3.3
#: The view's size in pixels (width, height) and what it spans: across the stack, and
#: in height from well below the table to well above the tallest stack (20 chips stand
#: 66 mm tall). A base placed off the true one towards or away from the camera (a
#: detector's box is a few millimetres off) shifts the stack up or down in the view
#: without changing the height of a chip there, so the view leaves room for the shift
#: and the counter reads the band's length, from the stack's foot to its top.
VIEW_SIZE = (32, 160)
VIEW_WIDTH_MM = 48.0
VIEW_HEIGHTS_MM = (-36.0, 92.0)
ROWS_PER_CHIP = CHIP_THICKNESS_MM * VIEW_SIZE[1] / (VIEW_HEIGHTS_MM[1] - VIEW_HEIGHTS_MM[0])
#: One chip more must add at least this many pixels to a stack's image for its count to
#: be read (:data:`assistant.detect.reader_data.MIN_CHIP_PX`, the chip reader's limit).
READABLE_SIDE_PX = 1.5
PAD_VALUE = 114

Point = tuple[float, float]


def camera_centre(model: CameraModel) -> NDArray[np.float64]:
    """The camera's centre in table millimetres (``z`` down into the table: above is < 0)."""
    p = model.projection
    return np.asarray(-np.linalg.solve(p[:, :3], p[:, 3]), dtype=np.float64)


def side_px(model: CameraModel, base: Point) -> float:
    """Pixels (distortion-free) that one chip's thickness spans in the image of a stack
    standing at ``base`` (table mm)."""
    foot, top = model.project([[base[0], base[1], 0.0], [base[0], base[1], -CHIP_THICKNESS_MM]])
    return float(np.hypot(*(top - foot)))


def toward_camera(model: CameraModel, base: Point) -> NDArray[np.float64] | None:
    """The unit direction on the table from ``base`` towards the camera's foot, or ``None``
    when the camera stands (nearly) straight above it."""
    centre = camera_centre(model)
    away = centre[:2] - np.asarray(base, dtype=np.float64)
    norm = float(np.linalg.norm(away))
    return None if norm < 1e-6 else away / norm


def view_points(model: CameraModel, base: Point) -> NDArray[np.float64] | None:
    """The table points (mm, ``z`` down) each view pixel samples: ``(H, W, 3)``; ``None``
    when the camera stands straight above the stack."""
    toward = toward_camera(model, base)
    if toward is None:
        return None
    across = np.array([-toward[1], toward[0]])
    # the view must not be a mirror image: "across" runs to the right as the camera sees it
    origin, right, up = model.project(
        [[base[0], base[1], 0.0], [base[0] + across[0], base[1] + across[1], 0.0], [base[0], base[1], -10.0]]
    )
    (rx, ry), (ux, uy) = right - origin, up - origin
    if rx * uy - ry * ux > 0:
        across = -across
    width, height = VIEW_SIZE
    radius = CHIP_DIAMETER_MM / 2.0
    u = (np.arange(width) + 0.5) / width * VIEW_WIDTH_MM - VIEW_WIDTH_MM / 2.0
    low, high = VIEW_HEIGHTS_MM
    z = high - (np.arange(height) + 0.5) / height * (high - low)
    depth = np.sqrt(np.clip(radius * radius - u * u, 0.0, None))  # on the near half-cylinder
    xy = np.asarray(base, dtype=np.float64) + depth[:, None] * toward + u[:, None] * across
    points = np.empty((height, width, 3))
    points[:, :, :2] = xy[None, :, :]
    points[:, :, 2] = -z[:, None]
    return points


def stack_view(
    image: NDArray[np.uint8],
    calibration: Calibration,
    base: Point,
    model: CameraModel | None = None,
) -> NDArray[np.uint8] | None:
    """The ``VIEW_SIZE`` view of the stack standing at ``base`` (table mm) in ``image`` (a
    frame as the calibrated camera sees it), or ``None`` when the camera looks straight down."""
    model = model or camera_model(calibration)
    points = view_points(model, base)
    if points is None:
        return None
    height, width = points.shape[:2]
    pixels = model.project(points.reshape(-1, 3))
    seen = distort_points(pixels, calibration.distortion, calibration.image_size).astype(np.float32)
    map_x = seen[:, 0].reshape(height, width)
    map_y = seen[:, 1].reshape(height, width)
    view = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderValue=(PAD_VALUE,) * 3)
    return np.asarray(view, dtype=np.uint8)


def base_from_plane_box(
    box: ArrayLike,
    crop_to_table: NDArray[np.float64],
    model: CameraModel,
    mm_per_px: float = 1.0,
) -> Point:
    """Where a stack found in a zone crop (the table plane, ``box`` in crop pixels) stands.

    On the table plane a stack's base shows as a chip-sized disc and the rest of the stack
    is smeared away from the camera's foot, so the base is the disc that touches the two
    box edges nearest the camera's foot (a stack seen from nearly straight above is its
    own base, and the box's middle is used along an axis the smear does not run along).
    """
    x1, y1, x2, y2 = (float(v) for v in np.asarray(box, dtype=np.float64).ravel()[:4])
    table_to_crop = np.asarray(np.linalg.inv(crop_to_table), dtype=np.float64)
    foot = apply_homography(table_to_crop, [camera_centre(model)[:2]])[0]
    centre = np.array([(x1 + x2) / 2.0, (y1 + y2) / 2.0])
    away = centre - foot
    norm = float(np.linalg.norm(away))
    radius = CHIP_DIAMETER_MM / 2.0 / mm_per_px
    base = centre.copy()
    if norm > 1e-9:
        away /= norm
        for axis, (low, high) in enumerate(((x1, x2), (y1, y2))):
            if high - low <= 2.0 * radius or abs(away[axis]) < 0.1:
                continue
            base[axis] = low + radius if away[axis] > 0 else high - radius
    x, y = apply_homography(crop_to_table, [base])[0]
    return float(x), float(y)


def readable(model: CameraModel, base: Point) -> bool:
    """Whether a stack's count can be read at ``base``: one chip adds enough to its image."""
    side = side_px(model, base)
    return math.isfinite(side) and side >= READABLE_SIDE_PX
