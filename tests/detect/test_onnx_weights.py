"""A shipped reader's ONNX file gives back a checkpoint to train on."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import numpy as np
import pytest
import torch

from assistant.detect.onnx_weights import OnnxWeightsError, reader_checkpoint_from_onnx
from assistant.detect.reader_model import CHECKED_INDEX_HEADS, INDEX_HEADS, CropReader, reader_checkpoint
from assistant.detect.train_reader import export_reader


def _trained_looking(heads: dict[str, int], size: int, width: int, seed: int) -> CropReader:
    """A reader whose batch norms hold statistics and scales far from their defaults."""
    torch.manual_seed(seed)
    reader = CropReader(heads, size, width, (8, 16, 16))
    with torch.no_grad():
        for m in reader.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                assert m.running_mean is not None and m.running_var is not None
                m.running_mean.uniform_(-3, 3)
                m.running_var.uniform_(0.5, 9)
                m.weight.uniform_(0.3, 2)
                m.bias.uniform_(-1, 1)
    return reader.eval()


def _crops(n: int, size: int, width: int, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).random((n, size, width, 3)) * 255).astype(np.uint8)


def _export(reader: CropReader, tmp_path: Path) -> Path:
    torch.save(reader_checkpoint(reader), tmp_path / "best.pt")
    return export_reader(tmp_path / "best.pt", tmp_path / "reader.onnx")


def _rebuilt(checkpoint: dict[str, object]) -> CropReader:
    reader = CropReader(
        checkpoint["heads"],  # type: ignore[arg-type]
        checkpoint["size"],  # type: ignore[arg-type]
        checkpoint["width"],  # type: ignore[arg-type]
        checkpoint["channels"],  # type: ignore[arg-type]
    )
    reader.load_state_dict(checkpoint["model"])  # type: ignore[arg-type]
    return reader


@pytest.mark.parametrize(("heads", "size", "width"), [(CHECKED_INDEX_HEADS, 32, 32), (INDEX_HEADS, 88, 40)])
def test_a_reader_rebuilt_from_its_onnx_file_reads_as_the_original(
    tmp_path: Path, heads: dict[str, int], size: int, width: int
) -> None:
    original = _trained_looking(heads, size, width, seed=3)
    checkpoint = reader_checkpoint_from_onnx(_export(original, tmp_path))
    assert checkpoint["heads"] == heads and (checkpoint["size"], checkpoint["width"]) == (size, width)
    x = torch.from_numpy(_crops(16, size, width, 5).transpose(0, 3, 1, 2).copy()).float()
    with torch.no_grad():
        for want, got in zip(original(x), _rebuilt(checkpoint).eval()(x), strict=True):
            assert torch.allclose(want, got, atol=1e-5)


def test_calibrated_batch_norms_train_from_where_the_original_stood(tmp_path: Path) -> None:
    original = _trained_looking(CHECKED_INDEX_HEADS, 32, 32, seed=4)
    crops = _crops(64, 32, 32, 6)
    calibrated = _rebuilt(reader_checkpoint_from_onnx(_export(original, tmp_path), crops))
    plain = _rebuilt(reader_checkpoint_from_onnx(tmp_path / "reader.onnx"))
    x = torch.from_numpy(crops.transpose(0, 3, 1, 2).copy()).float()
    with torch.no_grad():
        want = original(x)
        for reader in (calibrated, plain):  # in evaluation mode both are exact
            for a, b in zip(want, reader.eval()(x), strict=True):
                assert torch.allclose(a, b, atol=1e-5)
        for reader in (calibrated, plain):
            reader.train()
            cast(torch.nn.Dropout, reader.neck[3]).p = 0.0  # no dropout: compare the arithmetic only
        # in training mode a batch norm uses the batch's statistics: on the calibration
        # batch those are what the calibrated norms undo, so it computes the original
        for a, b in zip(want, calibrated(x), strict=True):
            assert torch.allclose(a, b, atol=1e-4)
        assert not all(torch.allclose(a, b, atol=1e-2) for a, b in zip(want, plain(x), strict=True))


def test_a_file_that_is_no_reader_is_refused(tmp_path: Path) -> None:
    (tmp_path / "junk.onnx").write_bytes(b"not a model at all")
    with pytest.raises(OnnxWeightsError, match=r"junk\.onnx"):
        reader_checkpoint_from_onnx(tmp_path / "junk.onnx")
    with pytest.raises(OnnxWeightsError, match="cannot read"):
        reader_checkpoint_from_onnx(tmp_path / "absent.onnx")
    detector = Path(__file__).parents[2] / "models" / "detector.onnx"
    with pytest.raises(OnnxWeightsError, match="three conv blocks"):
        reader_checkpoint_from_onnx(detector)


def test_train_from_onnx_writes_a_checkpoint_that_a_recipe_can_start_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from assistant.cli import main
    from assistant.detect import onnx_weights
    from assistant.detect.train_reader import initialise

    drawn: list[np.ndarray] = []
    full = onnx_weights.strip_calibration_crops

    def few_strips(width: int, n: int) -> np.ndarray:  # 64 drawn strips instead of 2,048: quicker
        assert n == 2048  # what `train from-onnx` asks for
        drawn.append(full(width, n=64))
        return drawn[-1]

    monkeypatch.setattr(onnx_weights, "strip_calibration_crops", few_strips)
    original = _trained_looking(INDEX_HEADS, 88, 40, seed=7)
    onnx_file = _export(original, tmp_path)
    assert main(["train", "from-onnx", str(onnx_file), "--out", str(tmp_path / "run" / "best.pt")]) == 0
    said = capsys.readouterr().out
    assert "reader checkpoint:" in said
    # a strip reader's batch norms are calibrated on drawn strips of its width (before stop
    # 35 they were left the identity, and a fine-tune started from a perturbed reader)
    assert "batch norms calibrated on 2,048 drawn strips 40 mm wide" in said
    assert drawn[0].shape == (64, 88, 40, 3)
    rebuilt = _rebuilt(torch.load(tmp_path / "run" / "best.pt", weights_only=False)).train()
    cast(torch.nn.Dropout, rebuilt.neck[3]).p = 0.0  # no dropout: compare the arithmetic only
    x = torch.from_numpy(drawn[0].transpose(0, 3, 1, 2).copy()).float()
    with torch.no_grad():
        for a, b in zip(original(x), rebuilt(x), strict=True):  # training mode, the batch's statistics
            assert torch.allclose(a, b, atol=1e-4)
    fresh = CropReader(INDEX_HEADS, 88, 40, (8, 16, 16))
    assert (
        initialise(fresh, tmp_path / "run" / "best.pt")
        == f"{len(fresh.state_dict())} of {len(fresh.state_dict())} tensors"
    )
    x = torch.from_numpy(_crops(4, 88, 40, 8).transpose(0, 3, 1, 2).copy()).float()
    with torch.no_grad():
        for a, b in zip(original(x), fresh.eval()(x), strict=True):
            assert torch.allclose(a, b, atol=1e-5)
    assert main(["train", "from-onnx", str(tmp_path / "absent.onnx"), "--out", str(tmp_path / "x.pt")]) != 0
