"""ONNX Runtime sessions on the CPU, set up alike for every model the detector runs.

One detection takes turns between several sessions (stage 1, the index reader, the chip
reader, the stack finder and counter), each with its own pool of worker threads. By
default a pool's threads keep spinning for a while after each run, waiting for more
work; on a machine with few cores they then take the cores from the next session's run.
On this project's 2-core machine that made the index reader of a seat zone take 31 ms
instead of 19 (``models/README.md``, Speed). So the pools here sleep as soon as a run
ends. A run then pays for waking its threads: about 1 ms more per stage-1 pass on a
seat zone there, against 12 ms saved on the reader per zone.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import onnxruntime

#: Session settings that let worker threads sleep between runs (see the module's doc).
NO_SPINNING = {"session.intra_op.allow_spinning": "0", "session.inter_op.allow_spinning": "0"}


def cpu_session(path: Path, threads: int = 0) -> onnxruntime.InferenceSession:
    """An ONNX Runtime session of the model at ``path`` on the CPU, with every graph
    optimisation, ``threads`` worker threads (0: ONNX Runtime's default, one per core)
    and no spinning between runs."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    for key, value in NO_SPINNING.items():
        options.add_session_config_entry(key, value)
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
