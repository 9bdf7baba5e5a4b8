"""ONNX Runtime against OpenVINO on this machine, for the shipped models.

    nice python benchmarks/bench_backends.py [--models models] [--repeat 60] [--threads 2]
        [--zones ZONE_IMAGES_DIR] [--zone-repeat 20]

Issue 4 asks for the runtime that measures faster here. Each shipped ONNX model runs in
both at the input sizes the detector gives it (a seat zone at 320 px and with its margin
at 393 px, a whole image at 640 px, a seat zone's batch of index crops, ...), on the same
random input, alternating run by run; one JSON line per model and size gives both medians
and 90th percentiles and the largest difference between their outputs. With ``--zones``
the whole zone detector (stage 1, readers, clean-up) is also timed on those seat zones
with every session in ONNX Runtime, then in OpenVINO, then again in each: the models run
in turns there, and a runtime's threads that keep waiting for work after a run take the
cores from the next model's run (``assistant/detect/cpu_sessions.py``).

OpenVINO is not a dependency of the program: ``pip install openvino`` to run this.
ONNX Runtime sessions are set up as the detector sets them up
(:func:`~assistant.detect.cpu_sessions.cpu_session`); OpenVINO compiles each model for
the CPU with the latency hint and ``--threads`` inference threads.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import assistant.detect.backends as backends_module
import assistant.detect.readers as readers_module
from assistant.detect.cpu_sessions import cpu_session
from assistant.detect.pipeline import MODELS_DIR, CardDetector

#: (model file stem, input shape) as the detector runs them: stage 1 on a seat zone at 320
#: px, the zone with its margin at 393 px and a whole image at 640 px (letterboxed to a
#: multiple of 32); a seat zone's index crops (55 on average since stop 19) and a few;
#: a zone's strips in three cuts; faces; three stacks' side views; a bet zone's frame crop.
CASES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("detector", (1, 3, 160, 320)),
    ("detector", (1, 3, 224, 416)),
    ("detector", (1, 3, 640, 640)),
    ("index_reader", (55, 3, 32, 32)),
    ("index_reader", (8, 3, 32, 32)),
    ("strip_reader", (12, 3, 88, 40)),
    ("face_reader", (6, 3, 88, 72)),
    ("stack_counter", (3, 3, 160, 32)),
    ("stack_finder", (1, 3, 320, 320)),
)


#: The detector's modules that open ONNX Runtime sessions (by their own name ``cpu_session``).
SESSION_USERS: tuple[Any, ...] = (backends_module, readers_module)


class OpenVinoSession:
    """What the detector uses of an ONNX Runtime session (``run``, inputs, outputs, the
    model's metadata), computed by OpenVINO; the ONNX Runtime session is kept for its
    names and metadata only."""

    def __init__(self, path: Path, threads: int = 0) -> None:
        import openvino as ov

        self._names = cpu_session(path, threads)
        config: dict[str, Any] = {"PERFORMANCE_HINT": "LATENCY"}
        if threads:
            config["INFERENCE_NUM_THREADS"] = threads
        core = ov.Core()
        self._request = core.compile_model(core.read_model(str(path)), "CPU", config).create_infer_request()
        self._outputs = [o.name for o in self._names.get_outputs()]

    def get_inputs(self) -> Any:
        return self._names.get_inputs()

    def get_outputs(self) -> Any:
        return self._names.get_outputs()

    def get_modelmeta(self) -> Any:
        return self._names.get_modelmeta()

    def run(self, names: list[str] | None, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        result = self._request.infer({0: next(iter(feed.values()))})
        by_name = {port.get_any_name(): value for port, value in result.items()}
        return [np.array(by_name[n]) for n in (names or self._outputs)]


def _ms(run: Callable[..., object], *args: Any) -> float:
    start = time.perf_counter()
    run(*args)
    return (time.perf_counter() - start) * 1000


def _summary(times: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(times), 2), "p90": round(float(np.percentile(times, 90)), 2)}


def per_model(models: Path, repeat: int, threads: int) -> Iterator[dict[str, Any]]:
    rng = np.random.default_rng(0)
    for name, shape in CASES:
        x = rng.random(shape, dtype=np.float32)
        ort = cpu_session(models / f"{name}.onnx", threads)
        ov = OpenVinoSession(models / f"{name}.onnx", threads)
        feed = {ort.get_inputs()[0].name: x}
        a, b = ort.run(None, feed), ov.run(None, feed)
        for _ in range(5):
            ort.run(None, feed), ov.run(None, feed)
        ort_ms: list[float] = []
        ov_ms: list[float] = []
        for _ in range(repeat):  # alternating, so both see the machine as it is
            ort_ms.append(_ms(ort.run, None, feed))
            ov_ms.append(_ms(ov.run, None, feed))
        yield {
            "model": name,
            "shape": list(shape),
            "onnxruntime_ms": _summary(ort_ms),
            "openvino_ms": _summary(ov_ms),
            "max_abs_difference": float(max(np.abs(p - q).max() for p, q in zip(a, b, strict=True))),
        }


@contextmanager
def sessions(kind: str) -> Iterator[None]:
    """Every session the detector opens in this block is ``kind``'s."""
    make = OpenVinoSession if kind == "openvino" else cpu_session
    saved = [module.cpu_session for module in SESSION_USERS]
    for module in SESSION_USERS:
        module.cpu_session = make
    try:
        yield
    finally:
        for module, original in zip(SESSION_USERS, saved, strict=True):
            module.cpu_session = original


def zone_detector(models: Path, zones: Path, repeat: int, threads: int) -> Iterator[dict[str, Any]]:
    read = (cv2.imread(str(p)) for p in sorted(zones.glob("*seat*.jpg"))[::25][:40])
    crops: list[np.ndarray] = [np.asarray(c, np.uint8) for c in read if c is not None]
    if not crops:
        raise SystemExit(f"no seat zone crops (*seat*.jpg) in {zones}")
    for round_ in (1, 2):
        for kind in ("onnxruntime", "openvino"):
            with sessions(kind):
                detector = CardDetector.for_zones(models, threads=threads)
            for crop in crops:  # a pass to warm up: OpenVINO compiles each new batch size once
                detector.detect(crop)
            times = [_ms(detector.detect, crop) for _ in range(repeat) for crop in crops]
            yield {"runtime": kind, "round": round_, "zones": len(crops), "zone_detector_ms": _summary(times)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--repeat", type=int, default=60, help="runs per model and size, each runtime")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--zones", type=Path, help="a folder of seat zone crops (renderer zone split)")
    parser.add_argument(
        "--zone-repeat", type=int, default=5, help="passes over the zones, each runtime and round"
    )
    args = parser.parse_args()
    try:
        import openvino  # noqa: F401
    except ImportError:
        raise SystemExit("OpenVINO is not installed (pip install openvino): nothing to compare") from None
    for line in per_model(args.models, args.repeat, args.threads):
        print(json.dumps(line), flush=True)
    if args.zones is not None:
        for line in zone_detector(args.models, args.zones, args.zone_repeat, args.threads):
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
