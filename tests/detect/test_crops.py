from __future__ import annotations

import numpy as np
import pytest

from assistant.detect.crops import batch_crops, square_crop


def test_square_crop_centres_the_box_and_scales_its_longer_side() -> None:
    img = np.zeros((200, 300, 3), np.uint8)
    img[80:120, 140:160] = 255  # a 20 x 40 white box
    crop = square_crop(img, (140, 80, 160, 120), 40, scale=1.0)
    assert crop.shape == (40, 40, 3)
    cols = np.flatnonzero(crop[:, :, 0].mean(0) > 128)
    rows = np.flatnonzero(crop[:, :, 0].mean(1) > 64)
    assert rows[0] <= 1 and rows[-1] >= 38  # the long side fills the crop
    assert abs((cols[0] + cols[-1]) / 2 - 19.5) <= 1  # centred across
    assert 18 <= len(cols) <= 22  # aspect kept: half as wide


@pytest.mark.parametrize("box", [(-30, -30, 10, 10), (290, 190, 330, 230), (0, 0, 300, 200)])
def test_square_crop_pads_by_replication_where_the_box_leaves_the_image(
    box: tuple[float, float, float, float],
) -> None:
    img = np.full((200, 300, 3), 77, np.uint8)
    crop = square_crop(img, box, 32)
    assert crop.shape == (32, 32, 3)
    assert (crop == 77).all()


def test_square_crop_of_a_box_entirely_outside_is_blank_not_an_error() -> None:
    img = np.full((50, 50, 3), 9, np.uint8)
    assert square_crop(img, (500, 500, 520, 520), 16).shape == (16, 16, 3)


def test_batch_crops_of_no_boxes_is_an_empty_batch() -> None:
    assert batch_crops(np.zeros((10, 10, 3), np.uint8), [], 32).shape == (0, 32, 32, 3)
