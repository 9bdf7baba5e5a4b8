"""A reader checkpoint rebuilt from its exported ONNX file, to train on from shipped weights.

:func:`assistant.detect.train_reader.export_reader` folds each batch norm into the
convolution before it, so the ONNX file holds one weight and one bias per convolution.
:func:`reader_checkpoint_from_onnx` gives each convolution those weights again and sets
its batch norm so that the network computes what the ONNX file computes: exactly in
evaluation mode, and in training mode (where a batch norm uses the batch's own
statistics) on batches like the ``calibration`` crops, whose per-channel statistics
become the batch norms' running statistics. A shipped reader whose training run is gone
can so be fine-tuned (the recipe's ``init``) as if from its own checkpoint.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from assistant.detect.reader_model import CropReader, reader_checkpoint


class OnnxWeightsError(ValueError):
    """The ONNX file is not a reader exported by this project."""


def initializers(model: Any) -> dict[str, npt.NDArray[np.float32]]:
    """An ONNX model's initializers (its weights) by name, as arrays."""
    from onnx import numpy_helper

    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def _input_size(model: Any) -> tuple[int, int]:
    dims = model.graph.input[0].type.tensor_type.shape.dim
    if len(dims) != 4 or not dims[2].dim_value or not dims[3].dim_value:
        raise OnnxWeightsError("the reader's input must be (n, 3, height, width) with a fixed size")
    return int(dims[2].dim_value), int(dims[3].dim_value)


def reader_checkpoint_from_onnx(
    path: Path, calibration: npt.NDArray[np.uint8] | None = None
) -> dict[str, Any]:
    """The checkpoint (as ``best.pt`` holds it) of the reader exported to ``path``.

    ``calibration``: (N, H, W, 3) BGR crops like those it will be trained on; without
    them the batch norms are the identity on their running statistics (exact in
    evaluation mode only).
    """
    reader = reader_from_onnx(path)
    if calibration is not None and len(calibration):
        calibrate_batch_norms(reader, calibration)
    return reader_checkpoint(reader)


def reader_from_onnx(path: Path) -> CropReader:
    """The reader exported to ``path``, its batch norms the identity on their running
    statistics (it reads as the ONNX file does in evaluation mode)."""
    import onnx
    from google.protobuf.message import DecodeError

    try:
        model = onnx.load(str(path))
    except OSError as error:
        raise OnnxWeightsError(f"cannot read {path}: {error.strerror or error}") from error
    except DecodeError as error:
        raise OnnxWeightsError(f"{path} is not an ONNX file: {error}") from error
    weights = initializers(model)
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    gemms = [n for n in model.graph.node if n.op_type == "Gemm"]
    if len(convs) != 6 or len(gemms) < 2 or any(len(n.input) != 3 for n in convs + gemms):
        raise OnnxWeightsError(f"{path} is not a reader of three conv blocks with named heads")
    names = [o.name for o in model.graph.output]
    if len(names) != len(gemms) - 1:
        raise OnnxWeightsError(f"{path}: {len(names)} outputs for {len(gemms) - 1} heads")
    heads = {name: int(weights[g.input[1]].shape[0]) for name, g in zip(names, gemms[1:], strict=True)}
    size, width = _input_size(model)
    c = [int(weights[convs[i].input[1]].shape[0]) for i in (0, 2, 4)]
    reader = CropReader(heads, size, width, (c[0], c[1], c[2]))
    linears = [reader.neck[1], *reader.heads]
    with torch.no_grad():
        for node, conv, norm in zip(convs, *_convs_and_norms(reader), strict=True):
            conv.weight.copy_(torch.from_numpy(weights[node.input[1]].copy()))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(weights[node.input[2]].copy()))
            assert norm.running_mean is not None and norm.running_var is not None  # tracked stats
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        for node, linear in zip(gemms, linears, strict=True):
            linear.weight.copy_(torch.from_numpy(weights[node.input[1]].copy()))
            linear.bias.copy_(torch.from_numpy(weights[node.input[2]].copy()))
    return reader


def _convs_and_norms(reader: CropReader) -> tuple[list[nn.Conv2d], list[nn.BatchNorm2d]]:
    convs = [m for m in reader.features.modules() if isinstance(m, nn.Conv2d)]
    norms = [m for m in reader.features.modules() if isinstance(m, nn.BatchNorm2d)]
    return convs, norms


def calibrate_batch_norms(reader: CropReader, crops: npt.NDArray[np.uint8]) -> None:
    """Give each batch norm of a reader from :func:`reader_from_onnx` the statistics of
    its convolution's output on ``crops`` and the scale and shift that undo them, layer by
    layer (each layer sees the exact output of the ones before it)."""
    x = torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2))).float()
    if x.shape[2:] != (reader.size, reader.width):
        got, wants = tuple(x.shape[2:]), (reader.size, reader.width)
        raise OnnxWeightsError(f"calibration crops are {got}, the reader reads {wants}")
    reader.eval()
    with torch.no_grad():
        for conv, norm in zip(*_convs_and_norms(reader), strict=True):
            _undo_statistics(norm, _output_of(reader, conv, x))


def _undo_statistics(norm: nn.BatchNorm2d, z: torch.Tensor) -> None:
    mean = z.mean(dim=(0, 2, 3))
    var = z.var(dim=(0, 2, 3), unbiased=False)
    shift = norm.bias.detach().clone()
    assert norm.running_mean is not None and norm.running_var is not None  # tracked stats
    norm.running_mean.copy_(mean)
    norm.running_var.copy_(var)
    norm.weight.copy_(torch.sqrt(var + norm.eps))
    norm.bias.copy_(mean + shift)


def _output_of(reader: CropReader, layer: nn.Module, x: torch.Tensor) -> torch.Tensor:
    seen: list[torch.Tensor] = []
    hook = layer.register_forward_hook(lambda _m, _i, out: seen.append(out.detach()))
    try:
        reader(x)
    finally:
        hook.remove()
    return seen[0]


def index_calibration_crops(n: int = 2048, seed: int = 11) -> npt.NDArray[np.uint8]:
    """``n`` corner indices drawn in the machine's fonts,
    cut as the index reader's training shows them: batches like its training batches."""
    from assistant.detect.reader_data import CONTEXT, INFERENCE_SCALE
    from assistant.detect.train_reader import PATCH_FACTOR
    from assistant.synth.font_indices import font_index_patches

    patch = math.ceil(32 * PATCH_FACTOR / 2) * 2
    patches, _, _ = font_index_patches(seed, n, patch, INFERENCE_SCALE * CONTEXT)
    return _cut_as_trained(patches, 32, seed)


def strip_calibration_crops(width: int, n: int = 2048, seed: int = 11) -> npt.NDArray[np.uint8]:
    """``n`` strips ``width`` mm wide drawn in the machine's fonts, cut as the strip (or
    face) reader's training shows them: batches like its training batches."""
    from assistant.detect.crops import STRIP_SIZE
    from assistant.detect.reader_data import STRIP_PAD
    from assistant.synth.font_strips import font_strip_patches

    height = STRIP_SIZE[1]
    patches, _, _ = font_strip_patches(seed, n, STRIP_PAD, size=(width, height))
    return _cut_as_trained(patches, (height, width), seed)


def _cut_as_trained(
    patches: npt.NDArray[np.uint8], size: int | tuple[int, int], seed: int
) -> npt.NDArray[np.uint8]:
    """Drawn patches (N, H, W, 3) cut to ``size`` by the training's gentle augmentation,
    as uint8 crops (N, h, w, 3)."""
    from assistant.detect.train_reader import augment

    x = torch.from_numpy(patches.transpose(0, 3, 1, 2).copy()).float()
    crops = augment(x, size, torch.Generator().manual_seed(seed), strong=False)
    return crops.permute(0, 2, 3, 1).round().clamp(0, 255).to(torch.uint8).numpy()


def save_reader_checkpoint(checkpoint: dict[str, Any], out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(checkpoint, out)
    return out


def checkpoint_from_onnx(onnx_path: Path, out: Path, calibration: int = 2048) -> str:
    """Write the checkpoint of the reader exported to ``onnx_path`` to ``out``, its batch
    norms calibrated on ``calibration`` drawn corner indices (an index reader) or drawn
    strips at its width (a strip or face reader), so that it trains on from where it stood;
    says what it did."""
    from assistant.detect.crops import STRIP_SIZE

    reader = reader_from_onnx(onnx_path)
    reads_cards = {"rank", "suit"} <= set(reader.head_names)
    if reader.size == reader.width == 32 and reads_cards:
        calibrate_batch_norms(reader, index_calibration_crops(calibration))
        how = f"batch norms calibrated on {calibration:,} drawn corner indices"
    elif reader.size == STRIP_SIZE[1] and reads_cards:  # a strip reader, or a face reader (72 wide)
        calibrate_batch_norms(reader, strip_calibration_crops(reader.width, calibration))
        how = f"batch norms calibrated on {calibration:,} drawn strips {reader.width} mm wide"
    else:
        how = "batch norms not calibrated: exact in evaluation mode, approximate in training"
    return f"{how}\nreader checkpoint: {save_reader_checkpoint(reader_checkpoint(reader), out)}"


__all__ = [
    "OnnxWeightsError",
    "calibrate_batch_norms",
    "checkpoint_from_onnx",
    "index_calibration_crops",
    "reader_checkpoint_from_onnx",
    "reader_from_onnx",
    "save_reader_checkpoint",
    "strip_calibration_crops",
]
