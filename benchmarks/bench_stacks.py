"""Chip counting speed with a calibrated camera, on held-out chip stills (1280x720).

    python benchmarks/bench_stacks.py [--stills N] [--repeat N] [--models DIR]

Renders ``--stills`` stills of held-out chip hands (:func:`assistant.synth.chip_zones.chip_shots`,
seed 202, the test split) and times, per still, with one ONNX Runtime session each:

* ``count one stack``: :meth:`StackCounter.count` of one stack (its side view cut out
  of the frame and counted);
* ``bet zone``: :meth:`StackCounter.chips_in_crop` of a seat's bet zone holding stacks,
  as the pipeline calls it: the stack finder on the zone's frame crop (or the chip
  detector on its zone crop where no finder is shipped), every stack placed and counted.

Prints the median and 90th percentile in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from assistant.detect.pipeline import MODELS_DIR
from assistant.detect.stack_counter import load_stack_counter
from assistant.synth.chip_zones import chip_shots
from assistant.synth.stack_views import stack_base_mm
from assistant.vision.rectify import ZoneRectifier


def timed(call: Callable[[], object], repeat: int) -> list[float]:
    call()  # warm up
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000.0)
    return out


def main() -> None:
    from pathlib import Path

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stills", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=25)
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    args = parser.parse_args()
    one, zone = [], []
    finder = "?"
    for shot in chip_shots(202, 0, "test", args.stills):
        counter = load_stack_counter(args.models, shot.calibration)
        if counter is None:
            raise SystemExit(f"no stack counter in {args.models}")
        finder = "stack finder" if counter.stack_finder is not None else "chip detector"
        rectifier = ZoneRectifier(shot.calibration)
        bets = [s for s in shot.stacks if s.seat is not None]
        if not bets:
            continue
        base = stack_base_mm(bets[0])
        one += timed(partial(counter.count, shot.image, [base]), args.repeat)
        number = shot.calibration.layout.seats[bets[0].seat].number
        crop = rectifier.rectify(shot.image, [f"seat{number}.bet"])[0]
        zone += timed(partial(counter.chips_in_crop, shot.image, crop, []), args.repeat)
    for name, times in (("count one stack", one), (f"bet zone ({finder})", zone)):
        p90 = float(np.percentile(times, 90))
        print(f"{name}: {statistics.median(times):.1f} ms median, {p90:.1f} ms p90 ({len(times)} runs)")


if __name__ == "__main__":
    main()
