"""Weights between two models of one graph: what a lesson writes when it keeps some of the base."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from assistant.detect.model_blend import BlendError, blend_onnx


def _linear(
    path: Path,
    weight: npt.NDArray[np.float32],
    bias: npt.NDArray[np.float32],
    op: str = "Add",
    shape: tuple[int, int] = (1, 3),
) -> Path:
    """An ONNX graph y = reshape(x, shape) @ weight (+ or *) bias, ``shape`` an integer initializer."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["flat"]),
        helper.make_node("MatMul", ["flat", "weight"], ["product"]),
        helper.make_node(op, ["product", "bias"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "linear",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
        [
            numpy_helper.from_array(np.array(shape, dtype=np.int64), "shape"),
            numpy_helper.from_array(weight, "weight"),
            numpy_helper.from_array(bias, "bias"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def _run(path: Path, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"x": x})[0])


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(47)
    weights = [rng.normal(size=(3, 2)).astype(np.float32) for _ in range(2)]
    biases = [rng.normal(size=2).astype(np.float32) for _ in range(2)]
    return _linear(tmp_path / "base.onnx", weights[0], biases[0]), _linear(
        tmp_path / "tuned.onnx", weights[1], biases[1]
    )


def test_a_blend_lies_on_the_straight_line_between_the_two_models_and_ends_on_each(tmp_path: Path) -> None:
    base, tuned = _pair(tmp_path)
    x = np.array([[0.5, -1.0, 2.0]], dtype=np.float32)
    start, end = _run(base, x), _run(tuned, x)
    assert not np.allclose(start, end)
    for share in (0.0, 0.25, 0.75, 1.0):
        out = blend_onnx(base, tuned, share, tmp_path / f"blend{share}.onnx")
        # a linear graph's output moves with its weights: the blend's output is the outputs' blend
        assert np.allclose(_run(out, x), (1 - share) * start + share * end, atol=1e-5)
    assert np.array_equal(_run(tmp_path / "blend0.0.onnx", x), start)
    assert np.array_equal(_run(tmp_path / "blend1.0.onnx", x), end)


def test_only_two_models_of_one_graph_are_blended(tmp_path: Path) -> None:
    base, tuned = _pair(tmp_path)
    ones = np.ones(2, dtype=np.float32)
    other_op = _linear(tmp_path / "mul.onnx", np.ones((3, 2), np.float32), ones, op="Mul")
    other_shape = _linear(tmp_path / "wide.onnx", np.ones((3, 2), np.float32), np.ones(1, np.float32))
    with pytest.raises(BlendError, match="operators differ"):
        blend_onnx(base, other_op, 0.5, tmp_path / "out.onnx")
    with pytest.raises(BlendError, match="initializer bias differs"):
        blend_onnx(base, other_shape, 0.5, tmp_path / "out.onnx")
    other_reshape = _linear(tmp_path / "any.onnx", np.ones((3, 2), np.float32), ones, shape=(-1, 3))
    with pytest.raises(BlendError, match="integer initializer shape"):
        blend_onnx(base, other_reshape, 0.5, tmp_path / "out.onnx")
    for share in (-0.01, 1.01):
        with pytest.raises(BlendError, match=r"in \[0, 1\]"):
            blend_onnx(base, tuned, share, tmp_path / "out.onnx")
    assert not (tmp_path / "out.onnx").exists()
