"""Readers read together: every crop read by each, each head the mean of their probabilities."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from assistant.detect.reader_model import CHECKED_INDEX_HEADS, INDEX_HEADS
from assistant.detect.readers import CropViews, OnnxReader, ReaderMismatchError

HEADS = CHECKED_INDEX_HEADS


def _reader(
    path: Path,
    seed: int,
    channels: tuple[int, int, int] = (16, 32, 64),
    size: int = 32,
    heads: dict[str, int] | None = None,
) -> Path:
    """An exported reader with random weights (the export the pipeline loads)."""
    import torch

    from assistant.detect.reader_model import CropReader, reader_checkpoint
    from assistant.detect.train_reader import export_reader

    torch.manual_seed(seed)
    torch.save(reader_checkpoint(CropReader(heads or HEADS, size, size, channels)), path.with_suffix(".pt"))
    return export_reader(path.with_suffix(".pt"), path)


def _crops(n: int = 6, size: int = 32) -> npt.NDArray[np.uint8]:
    return np.random.default_rng(53).integers(0, 256, (n, size, size, 3), dtype=np.uint8)


def test_readers_read_together_give_the_mean_of_their_probabilities_head_by_head(tmp_path: Path) -> None:
    first = _reader(tmp_path / "narrow.onnx", 1)
    others = (_reader(tmp_path / "wide.onnx", 2, channels=(32, 64, 128)), _reader(tmp_path / "other.onnx", 3))
    crops = _crops()
    alone = [OnnxReader(p).read_views(crops) for p in (first, *others)]
    together = OnnxReader(first, also=others).read_views(crops)
    assert set(together) == set(HEADS)
    for head in HEADS:
        each = [reading[head] for reading in alone]
        assert not np.allclose(each[0], each[1], atol=1e-3)  # the readers do read differently
        np.testing.assert_allclose(together[head], np.mean(each, axis=0), atol=1e-6)
        np.testing.assert_allclose(together[head].sum(1), 1.0, atol=1e-5)  # still a distribution


def test_readers_read_together_are_read_in_views_as_one_reader_is(tmp_path: Path) -> None:
    first, second = _reader(tmp_path / "a.onnx", 4), _reader(tmp_path / "b.onnx", 5, channels=(32, 64, 128))
    views = CropViews(scales=(1.15, 1.3), shifts=((0.0, 0.0), (0.05, -0.05)))
    image = np.random.default_rng(9).integers(0, 256, (120, 160, 3), dtype=np.uint8)
    boxes = [(20.0, 30.0, 44.0, 60.0), (90.0, 10.0, 120.0, 50.0)]
    together = OnnxReader(first, views=views, also=(second,)).read(image, boxes)
    apart = [OnnxReader(p, views=views).read(image, boxes) for p in (first, second)]
    for head in HEADS:
        np.testing.assert_allclose(together[head], (apart[0][head] + apart[1][head]) / 2, atol=1e-6)


def test_readers_of_other_crops_or_heads_are_not_read_together(tmp_path: Path) -> None:
    ours = _reader(tmp_path / "ours.onnx", 6)
    with pytest.raises(ReaderMismatchError, match=r"bigger\.onnx reads"):
        OnnxReader(ours, also=(_reader(tmp_path / "bigger.onnx", 7, size=40),))
    with pytest.raises(ReaderMismatchError, match=r"no_index\.onnx has other heads"):
        OnnxReader(ours, also=(_reader(tmp_path / "no_index.onnx", 8, heads=INDEX_HEADS),))


def test_a_model_folder_with_a_second_index_reader_reads_every_index_by_both(tmp_path: Path) -> None:
    from assistant.detect.pipeline import INDEX_READER, INDEX_READER_WIDE, index_reader

    first = _reader(tmp_path / INDEX_READER, 12)
    crops = _crops()
    alone = OnnxReader(first).read_views(crops)
    assert len(index_reader(tmp_path).sessions) == 1  # no second reader: the first alone
    for head, p in index_reader(tmp_path).read_views(crops).items():
        np.testing.assert_array_equal(p, alone[head])
    wide = OnnxReader(_reader(tmp_path / INDEX_READER_WIDE, 13, channels=(32, 64, 128))).read_views(crops)
    both = index_reader(tmp_path).read_views(crops)
    for head in HEADS:
        np.testing.assert_allclose(both[head], (alone[head] + wide[head]) / 2, atol=1e-6)
