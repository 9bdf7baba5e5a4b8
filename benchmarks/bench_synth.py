"""Throughput of the synthetic dataset writer (images of 640 px per second).

    nice python benchmarks/bench_synth.py [--images 100] [--workers 1 2]

The face cache is filled first (QtSvg renders each deck once; that is not part of the
steady state). Each run writes images, labels, truth and index crops to a temporary
directory, as ``dealer-assistant synth dataset`` does.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.synth.dataset import write_dataset
from assistant.synth.decks import installed_decks
from assistant.synth.facecache import ensure_cached


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished worker processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=100)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    t = time.perf_counter()
    for record in installed_decks():
        ensure_cached(record)
    print(f"face cache ready in {time.perf_counter() - t:.1f} s")
    for workers in args.workers:
        with tempfile.TemporaryDirectory() as tmp:
            before = _cpu_seconds()
            start = time.perf_counter()
            summary = write_dataset(Path(tmp), args.images, args.seed, workers=workers)
            elapsed = time.perf_counter() - start
            cpu = _cpu_seconds() - before
        rate = args.images / elapsed
        load = os.getloadavg()[0]
        print(
            f"workers={workers}: CPU {cpu / args.images * 1000:.0f} ms per image "
            f"(= {args.images / cpu:.1f} images/s per free core); load average {load:.1f}"
        )
        print(
            f"workers={workers}: {args.images} images in {elapsed:.1f} s = {rate:.1f} images/s "
            f"({summary['labels']} labels)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
