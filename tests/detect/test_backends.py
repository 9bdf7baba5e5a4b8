from __future__ import annotations

import numpy as np
import pytest

from assistant.detect.backends import decode, letterbox


def test_letterbox_keeps_aspect_and_pads_to_the_stride() -> None:
    img = np.zeros((360, 640, 3), np.uint8)
    blob, ratio, pad = letterbox(img, 416)
    assert blob.shape == (1, 3, 256, 416)  # 234 rows padded up to 256
    assert ratio == 416 / 640
    assert pad == (0, 11)
    assert blob.dtype == np.float32 and float(blob.max()) <= 1.0


def _raw(boxes: list[tuple[float, float, float, float, int, float]], nc: int = 3) -> np.ndarray:
    raw = np.zeros((1, 4 + nc, len(boxes)), np.float32)
    for a, (cx, cy, w, h, cls, score) in enumerate(boxes):
        raw[0, :4, a] = (cx, cy, w, h)
        raw[0, 4 + cls, a] = score
    return raw


def test_decode_maps_boxes_back_to_image_pixels() -> None:
    # a box at (100, 50)-(140, 90) in a 640 x 360 image, seen in the 416 letterbox
    r, pad = 416 / 640, (0, 11)
    cx, cy = 120 * r + pad[0], 70 * r + pad[1]
    boxes = decode(_raw([(cx, cy, 40 * r, 40 * r, 1, 0.9)]), r, pad, 0.25, 0.6, (360, 640))
    assert len(boxes) == 1
    np.testing.assert_allclose(boxes.xyxy[0], [100, 50, 140, 90], atol=1e-3)
    assert boxes.cls[0] == 1


def test_decode_suppresses_overlaps_within_a_class_but_not_across_classes() -> None:
    raw = _raw(
        [
            (50, 50, 20, 20, 0, 0.9),
            (51, 50, 20, 20, 0, 0.8),  # same class, same place: suppressed
            (51, 50, 20, 20, 1, 0.7),  # other class, same place: kept
            (200, 200, 20, 20, 0, 0.1),  # under the threshold
        ]
    )
    boxes = decode(raw, 1.0, (0, 0), 0.25, 0.6, (400, 400))
    assert sorted(boxes.cls.tolist()) == [0, 1]
    assert sorted(boxes.conf.tolist()) == pytest.approx([0.7, 0.9])


def test_decode_of_nothing_above_threshold_is_empty() -> None:
    assert len(decode(_raw([(5, 5, 2, 2, 0, 0.01)]), 1.0, (0, 0), 0.25, 0.6, (10, 10))) == 0


def test_zone_crops_with_a_margin_reach_stage_1_at_the_scale_of_a_bare_card_zone() -> None:
    from assistant.detect.pipeline import MODELS_DIR, ZONE_IMGSZ, CardDetector

    stage_1 = CardDetector.for_zones(MODELS_DIR).detector
    seen: list[tuple[int, ...]] = []
    run = stage_1.session.run  # type: ignore[attr-defined]

    def spy(names, feeds):  # type: ignore[no-untyped-def]
        seen.append(next(iter(feeds.values())).shape)
        return run(names, feeds)

    stage_1.session.run = spy  # type: ignore[attr-defined]
    for shape in ((130, 280, 3), (170, 344, 3), (100, 140, 3)):
        stage_1(np.full(shape, 90, np.uint8))
    bare, wide, bet = seen
    assert bare[3] == ZONE_IMGSZ and bet[3] == ZONE_IMGSZ  # a card zone and a bet zone as before
    assert wide[3] >= round(344 * ZONE_IMGSZ / 280)  # a wider crop is not shrunk more
