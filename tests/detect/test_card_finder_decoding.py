"""The card finder's outlines: ultralytics' pose output read back into photo pixels."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.card_finder import CORNERS, FINDER_CLASSES, Outlines, decode_outlines
from assistant.detect.photo import upright_map

NC = len(FINDER_CLASSES)
Row = tuple[float, float, float, float, int, float, list[tuple[float, float]]]


def _raw(rows: list[Row]) -> npt.NDArray[np.float32]:
    """A pose output (1, 4 + nc + 3 x corners, A), one anchor per row: box centre and size,
    class, score, corners."""
    out = np.zeros((1, 4 + NC + 3 * CORNERS, len(rows)), np.float32)
    for a, (cx, cy, w, h, cls, score, corners) in enumerate(rows):
        out[0, :4, a] = (cx, cy, w, h)
        out[0, 4 + cls, a] = score
        for k, (x, y) in enumerate(corners):
            out[0, 4 + NC + 3 * k : 4 + NC + 3 * k + 3, a] = (x, y, 0.9)
    return out


def _bounds(quad: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return np.concatenate([quad.min(0), quad.max(0)])


CARD = [(20.0, 10.0), (80.0, 10.0), (80.0, 100.0), (20.0, 100.0)]


def test_boxes_and_corners_come_back_in_photo_pixels() -> None:
    # a letterboxed input: the photo shrunk to half, then shifted by the padding
    raw = _raw([(50.0, 55.0, 60.0, 90.0, 0, 0.9, CARD)])
    found = decode_outlines(raw, ratio=0.5, pad=(10, 20), conf=0.25, iou=0.7)
    assert len(found) == 1 and found.cls[0] == 0
    assert np.allclose(found.boxes[0], [(20 - 10) / 0.5, (10 - 20) / 0.5, (80 - 10) / 0.5, (100 - 20) / 0.5])
    assert np.allclose(found.quads[0], (np.array(CARD) - [10, 20]) / 0.5)


def test_overlapping_boxes_of_one_class_keep_the_surer_and_other_classes_stand() -> None:
    raw = _raw(
        [
            (50.0, 55.0, 60.0, 90.0, 0, 0.6, CARD),
            (51.0, 55.0, 60.0, 90.0, 0, 0.9, CARD),  # the same card, surer
            (50.0, 55.0, 60.0, 90.0, 1, 0.5, CARD),  # a back there: another class
            (300.0, 55.0, 60.0, 90.0, 0, 0.2, CARD),  # under the confidence asked for
        ]
    )
    found = decode_outlines(raw, 1.0, (0, 0), conf=0.25, iou=0.7)
    kept = sorted(zip(found.cls.tolist(), [round(float(c), 2) for c in found.conf], strict=True))
    assert kept == [(0, 0.9), (1, 0.5)]


def test_outlines_found_in_the_photo_turned_a_quarter_land_on_the_photo() -> None:
    photo = np.zeros((120, 200, 3), np.uint8)
    card = np.array([[150.0, 30.0], [170.0, 40.0], [140.0, 100.0], [120.0, 90.0]])
    cv2.fillConvexPoly(photo, card.astype(np.int32), (255, 255, 255))
    turned = cv2.rotate(photo, cv2.ROTATE_90_CLOCKWISE)
    ys, xs = np.nonzero(turned[..., 0])
    # where the card lies in the turned photo, and its corners there (x' = H - y, y' = x)
    in_turned = np.stack([120 - card[:, 1], card[:, 0]], 1)
    assert abs(xs.mean() - in_turned[:, 0].mean()) < 1.5 and abs(ys.mean() - in_turned[:, 1].mean()) < 1.5
    box = np.array(
        [[in_turned[:, 0].min(), in_turned[:, 1].min(), in_turned[:, 0].max(), in_turned[:, 1].max()]]
    )
    found = Outlines(box, in_turned[None], np.array([0.9], np.float32), np.array([0])).turned_back(120)
    assert np.allclose(found.quads[0], card)
    assert np.allclose(
        found.boxes[0], [card[:, 0].min(), card[:, 1].min(), card[:, 0].max(), card[:, 1].max()]
    )


def test_a_card_is_stood_upright_from_its_corners_at_the_photos_scale() -> None:
    # a 60 x 90 px card turned 30 degrees in the photo
    turn = cv2.getRotationMatrix2D((200.0, 150.0), 30.0, 1.0)
    upright = np.array([[170.0, 105.0], [230.0, 105.0], [230.0, 195.0], [170.0, 195.0]])
    corners = np.asarray(upright @ turn[:, :2].T + turn[:, 2], np.float64)
    m, size = upright_map(corners)
    assert m is not None and np.allclose(size, (60.0, 90.0))
    assert np.allclose(corners @ m[:, :2].T + m[:, 2], [[0, 0], [60, 0], [60, 90], [0, 90]], atol=1e-6)
    assert upright_map(np.array([[0.0, 0.0], [0.5, 0.0], [0.5, 90.0], [0.0, 90.0]]))[0] is None
