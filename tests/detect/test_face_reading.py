"""Zone crops: a card's whole face (its strip cut 72 mm wide) is read beside its strip by
the face reader, weighed by ``FACE_WEIGHT``, where the model folder holds one and no other
card box covers the card's by more than ``FACE_MOST_COVERED``."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from assistant.detect.photo import PhotoDetector
from assistant.detect.pipeline import (
    FACE_MOST_COVERED,
    FACE_READER,
    FACE_WEIGHT,
    GEOMETRY_SURE_READING,
    MODELS_DIR,
    CardDetector,
    _tempered,
    read_image,
)
from tests.detect.upright_zone import TUX_BACK, TWO_OF_CLUBS, UPRIGHT


@pytest.fixture(scope="module")
def zones() -> CardDetector:
    return CardDetector.for_zones(MODELS_DIR)


def test_the_zone_detector_reads_faces_72_mm_wide_beside_the_strip(zones: CardDetector) -> None:
    assert zones.face_reader is not None and zones.strip_reader is not None
    assert (zones.face_reader.width, zones.face_reader.size) == (72, 88)
    assert (zones.strip_reader.width, zones.strip_reader.size) == (40, 88)
    assert CardDetector.load(MODELS_DIR).face_reader is None  # cards lying any way round


def test_a_face_reading_multiplies_into_the_strip_reading_at_its_weight(zones: CardDetector) -> None:
    """The strip's reading at ``STRIP_WEIGHT`` times the face's at ``FACE_WEIGHT``, summed
    to one again: one reading of the card's strip and face together."""
    image = read_image(UPRIGHT)
    boxes = np.array([TWO_OF_CLUBS, TUX_BACK], np.float32)
    both = zones._strip_readings(image, boxes)
    assert zones.strip_reader is not None and zones.face_reader is not None
    strip = zones.strip_reader.read_strips(image, list(boxes), zones.strip_views)
    face = zones.face_reader.read_strips(image, list(boxes), zones.strip_views)
    for k in range(len(boxes)):
        for head, i, w_strip, w_face in (
            ("rank", 0, zones.strip_weight.rank, FACE_WEIGHT.rank),
            ("suit", 1, zones.strip_weight.suit, FACE_WEIGHT.suit),
        ):
            product = _tempered(strip[head][k], w_strip) * _tempered(face[head][k], w_face)
            np.testing.assert_allclose(both[k][i], product / product.sum(), rtol=1e-4, atol=1e-6)
    alone = zones.reading_faces_at(None)._strip_readings(image, boxes)
    np.testing.assert_allclose(alone[0][1], _tempered(strip["suit"][0], zones.strip_weight.suit), rtol=1e-5)


def test_a_face_half_under_another_card_box_is_read_from_its_strip_alone(zones: CardDetector) -> None:
    """Where another card box covers a box by more than ``FACE_MOST_COVERED`` of its area,
    its face shows the other card's pips too: both keep their strip reading alone, and a
    box clear of them still has its face read."""
    image = read_image(UPRIGHT)
    over = (30.0, 22.0, 77.0, 110.0)  # covers 18 of the two of clubs' 47 px across
    boxes = np.array([TWO_OF_CLUBS, over, TUX_BACK], np.float32)
    assert FACE_MOST_COVERED < 18 / 47
    read = zones._strip_readings(image, boxes)
    strips_alone = zones.reading_faces_at(None)._strip_readings(image, boxes)
    for k in (0, 1):
        np.testing.assert_allclose(read[k][0], strips_alone[k][0], rtol=1e-6)
        np.testing.assert_allclose(read[k][1], strips_alone[k][1], rtol=1e-6)
    assert not np.allclose(read[2][0], strips_alone[2][0], rtol=1e-3)


def test_a_model_folder_without_a_face_reader_reads_strips_alone(tmp_path: Path) -> None:
    for model in MODELS_DIR.glob("*.onnx"):
        if model.name != FACE_READER:
            shutil.copy(model, tmp_path / model.name)
    plain = CardDetector.for_zones(tmp_path)
    assert plain.face_reader is None and plain.strip_reader is not None
    image = read_image(UPRIGHT)
    assert [c.card for c in plain.detect(image).cards] == ["2c"]


def test_the_photo_search_does_not_read_faces_in_its_patches() -> None:
    """Not measured on photos: its patches read strips alone, at ``PHOTO_STRIP_WEIGHT``,
    and a card read by geometry there yields to a surer card it overlaps by a third, however
    sure it is (zone crops: from ``GEOMETRY_SURE_READING`` on, as a card read from its
    indices)."""
    photos = PhotoDetector()
    assert photos.zones.face_reader is not None and photos.zones.face_weight is None
    assert photos.zones.sure_geometry is None
    assert CardDetector.for_zones(MODELS_DIR).sure_geometry == GEOMETRY_SURE_READING
