"""Weights between two models of one graph: ``(1 - share) * base + share * tuned``.

A network fine-tuned towards new data, taken at a point on the straight line between its
weights and the weights it started from, keeps more of what the start knew (robust
fine-tuning, "WiSE-FT"). A deck lesson (:mod:`assistant.detect.deck_learning`) can write
its readers so (``DeckLesson.reader_share``; measured in models/README.md, stop 47).

The readers are blended as their ONNX files, initializer by initializer: the export folded
each batch norm into the convolution before it, so a blend is a straight line between the
two folded networks. ``share`` 0 gives the base's weights and 1 the tuned ones, exactly.
"""

from __future__ import annotations

from pathlib import Path


class BlendError(ValueError):
    """The two models are not one network, or a share is out of range."""


def _check_share(share: float) -> None:
    if not 0.0 <= share <= 1.0:
        raise BlendError(f"a blend's share of the tuned weights must lie in [0, 1], not {share}")


def blend_onnx(base: Path, tuned: Path, share: float, out: Path) -> Path:
    """Write to ``out`` the ONNX graph of ``tuned`` with each floating-point initializer
    ``(1 - share) * base + share * tuned``; the two files must hold one graph."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    from assistant.detect.onnx_weights import initializers

    _check_share(share)
    first, second = onnx.load(str(base)), onnx.load(str(tuned))
    if [n.op_type for n in first.graph.node] != [n.op_type for n in second.graph.node]:
        raise BlendError(f"{base} and {tuned} are not one graph: their operators differ")
    weights = initializers(first)
    blended = []
    for tensor in second.graph.initializer:
        theirs = numpy_helper.to_array(tensor)
        ours = weights.get(tensor.name)
        if ours is None or ours.shape != theirs.shape or ours.dtype != theirs.dtype:
            raise BlendError(f"{base} and {tuned} are not one graph: initializer {tensor.name} differs")
        if theirs.dtype.kind == "f":
            mixed = ((1.0 - share) * ours.astype(np.float64) + share * theirs.astype(np.float64)).astype(
                theirs.dtype
            )
        elif np.array_equal(ours, theirs):
            mixed = theirs
        else:
            raise BlendError(f"{base} and {tuned} differ in the integer initializer {tensor.name}")
        blended.append(numpy_helper.from_array(mixed, tensor.name))
    if len(blended) != len(weights):
        raise BlendError(f"{base} and {tuned} are not one graph: they hold different initializers")
    del second.graph.initializer[:]
    second.graph.initializer.extend(blended)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(second, str(out))
    return out
