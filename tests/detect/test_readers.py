"""The index reader's views: each box is read in several framings, the readings averaged."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from assistant.detect.crops import batch_crops
from assistant.detect.pipeline import INDEX_READER, MODELS_DIR, ZONE_INDEX_VIEWS, CardDetector, read_image
from assistant.detect.reader_data import quad_box
from assistant.detect.readers import INDEX_CROP_SCALE, CropViews, OnnxReader, sureness

RESCAN = Path(__file__).parent / "fixtures" / "rescan" / "00124_0394_seat4.cards.json"

#: A zone crop and its index boxes.
ZoneCrop = tuple[np.ndarray, list[tuple[float, float, float, float]]]


@pytest.fixture(scope="module")
def zone() -> ZoneCrop:
    """A held-out zone crop and its upright top-left index boxes (from the renderer's truth)."""
    truth = json.loads(RESCAN.read_text())
    boxes = [
        quad_box(index["quad"])
        for obj in truth["objects"]
        if obj["kind"] == "card" and obj.get("card")
        for index in obj["indices"]
        if index["corner"] == "tl" and index["visible"] >= 0.9
    ]
    return read_image(RESCAN.with_suffix(".jpg")), boxes


def test_the_default_view_is_the_crop_the_reader_was_trained_on(zone: ZoneCrop) -> None:
    image, boxes = zone
    views = CropViews().crops(image, boxes, 32)
    assert views.shape == (1, len(boxes), 32, 32, 3)
    np.testing.assert_array_equal(views[0], batch_crops(image, boxes, 32, INDEX_CROP_SCALE))


def test_views_shift_the_crop_by_a_share_of_the_boxs_longer_side() -> None:
    image = np.zeros((100, 100, 3), np.uint8)
    image[:, 55:] = 255  # white from x = 55 on
    box = (40.0, 40.0, 60.0, 60.0)  # 20 px: a shift of 0.5 moves the crop 10 px
    left, centre, right = CropViews(scales=(1.0,), shifts=((-0.5, 0.0), (0.0, 0.0), (1.0, 0.0))).crops(
        image, [box], 20
    )[:, 0]
    assert left.mean() == 0
    assert 0 < centre.mean() < right.mean() == 255


def test_a_reading_over_several_views_is_the_mean_of_the_reading_of_each_view(zone: ZoneCrop) -> None:
    image, boxes = zone
    views = CropViews(scales=(1.05, 1.3), shifts=((0.0, 0.0), (0.04, -0.04)))
    averaged = OnnxReader(MODELS_DIR / INDEX_READER, views=views).read_turned(image, boxes, 2)
    path = MODELS_DIR / INDEX_READER
    each = [
        OnnxReader(path, views=CropViews((scale,), (shift,))).read_turned(image, boxes, 2)
        for shift in views.shifts
        for scale in views.scales
    ]
    assert len(each) == len(views) == 4
    for head, probs in averaged.items():
        assert probs.shape == each[0][head].shape
        np.testing.assert_allclose(probs, np.mean([e[head] for e in each], axis=0), atol=1e-5)


def test_a_reading_in_any_turn_averages_the_views_of_each_turn_before_choosing_one(zone: ZoneCrop) -> None:
    image, boxes = zone
    reader = OnnxReader(MODELS_DIR / INDEX_READER, views=ZONE_INDEX_VIEWS)
    any_turn = reader.read_any_turn(image, boxes)
    upright = reader.read_turned(image, boxes, 0)  # these indices stand upright
    np.testing.assert_allclose(any_turn["rank"], upright["rank"], atol=1e-5)
    assert reader.read_any_turn(image, [])["rank"].shape[0] == 0


def test_a_box_read_surely_in_the_trained_view_keeps_that_reading_and_the_others_are_read_in_every_view(
    zone: ZoneCrop,
) -> None:
    image, boxes = zone
    reader = OnnxReader(MODELS_DIR / INDEX_READER)
    every = replace(ZONE_INDEX_VIEWS, enough=None)
    trained = reader.read_turned(image, boxes, 0, CropViews())
    averaged = reader.read_turned(image, boxes, 0, every)
    sure = sureness(trained)
    enough = float(np.median(sure))  # half the boxes sure enough, half not
    mixed = reader.read_turned(image, boxes, 0, replace(every, enough=enough))
    kept = sure >= enough
    assert 0 < kept.sum() < len(boxes)
    for head, probs in mixed.items():
        np.testing.assert_allclose(probs[kept], trained[head][kept], atol=1e-6)
        np.testing.assert_allclose(probs[~kept], averaged[head][~kept], atol=1e-5)


def test_sureness_is_the_product_of_the_heads_top_probabilities() -> None:
    probs = {"rank": np.array([[0.9, 0.1], [0.5, 0.5]]), "suit": np.array([[0.2, 0.8], [1.0, 0.0]])}
    np.testing.assert_allclose(sureness(probs), [0.72, 0.5])


def test_the_zone_views_read_every_view_only_for_indices_under_0_9_sure_in_the_trained_one() -> None:
    assert ZONE_INDEX_VIEWS.enough == 0.9
    with pytest.raises(ValueError, match="probability"):
        CropViews(enough=0.0)
    with pytest.raises(ValueError, match="probability"):
        CropViews(enough=1.5)


def test_no_boxes_read_as_no_rows_in_every_view() -> None:
    reader = OnnxReader(MODELS_DIR / INDEX_READER, views=ZONE_INDEX_VIEWS)
    probs = reader.read_turned(np.zeros((50, 50, 3), np.uint8), [], 0)
    assert all(p.shape[0] == 0 for p in probs.values())


def test_views_need_a_scale_and_a_shift() -> None:
    with pytest.raises(ValueError, match="at least one"):
        CropViews(scales=())
    with pytest.raises(ValueError, match="at least one"):
        CropViews(shifts=())
    with pytest.raises(ValueError, match="positive"):
        CropViews(scales=(0.0,))


def test_zone_crops_are_read_in_the_zone_views_and_photos_in_the_trained_one() -> None:
    assert CardDetector.for_zones(MODELS_DIR).index_reader.views == ZONE_INDEX_VIEWS
    assert len(ZONE_INDEX_VIEWS) == 27
    assert CardDetector.load(MODELS_DIR).index_reader.views == CropViews()
