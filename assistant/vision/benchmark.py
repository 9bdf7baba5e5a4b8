"""Measure the calibration part of the pipeline on a synthetic oblique 720p view.

    python -m assistant.vision.benchmark [--seats 8] [--repeat 50]

Prints the bump-check residuals (undisturbed camera, 3 px shift, 0.5 degree roll) and
the time per 1280x720 frame of marker detection, zone rectification and motion gating.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from assistant.vision.bump import BumpMonitor
from assistant.vision.calibration import calibrate
from assistant.vision.default_layouts import oval_layout
from assistant.vision.markers import MarkerDetector
from assistant.vision.rectify import ZoneRectifier
from assistant.vision.synthetic_view import oblique_camera, render_table_view, render_top_view
from assistant.vision.zone_feed import ZoneFeed


def _moved(matrix: NDArray[np.float64], dx: float, dy: float, roll_deg: float) -> NDArray[np.float64]:
    theta = math.radians(roll_deg)
    centre = np.array([[1.0, 0, 640.0], [0, 1.0, 360.0], [0, 0, 1]])
    rotation = np.array(
        [[math.cos(theta), -math.sin(theta), dx], [math.sin(theta), math.cos(theta), dy], [0, 0, 1]]
    )
    return np.asarray(centre @ rotation @ np.linalg.inv(centre) @ matrix, np.float64)


def _time_ms(action: Callable[[], object], repeat: int) -> float:
    action()
    start = time.perf_counter()
    for _ in range(repeat):
        action()
    return (time.perf_counter() - start) / repeat * 1000.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--distortion", type=float, default=0.0, help="lens k, e.g. 0.03")
    args = parser.parse_args(argv)
    layout = oval_layout(args.seats)
    camera = oblique_camera(layout)
    top = render_top_view(layout, 1.0)

    def view(matrix: NDArray[np.float64], seed: int) -> NDArray[np.uint8]:
        return render_table_view(
            layout,
            matrix,
            px_per_mm=1.0,
            blur_sigma=0.7,
            noise_sigma=3.0,
            seed=seed,
            top_view=top,
            distortion=args.distortion,
        )

    truth = camera.table_to_image
    detector = MarkerDetector()
    frame = view(truth, 0)
    calibration = calibrate(detector.detect(frame), layout, (1280, 720))
    print(
        f"layout {layout.name}, synthetic oblique 1280x720 view, blur 0.7 px, noise 3 grey "
        f"levels, lens distortion k={args.distortion:g}"
    )
    print(
        f"calibration fit RMS: {calibration.rms_mm:.2f} mm over {len(layout.markers)} markers, "
        f"fitted k={calibration.distortion:.4f}"
    )
    monitor = BumpMonitor(calibration)
    cases = [("undisturbed", 0.0, 0.0, 0.0)] * 5 + [
        ("shift 3 px", 3.0, 0.0, 0.0),
        ("shift 3 px down", 0.0, 3.0, 0.0),
        ("roll 0.5 deg", 0.0, 0.0, 0.5),
    ]
    for seed, (name, dx, dy, roll) in enumerate(cases, start=1):
        check = monitor.check(seed, view(_moved(truth, dx, dy, roll), seed))
        print(f"bump check, {name:16s}: residual {check.residual_mm:.2f} mm")
    rectifier = ZoneRectifier(calibration)
    coarse = ZoneRectifier(calibration, mm_per_px=4.0)
    zones = len(rectifier.zones)
    print(f"per-frame cost ({zones} zones, {args.repeat} repeats):")
    timings = {
        "marker detection": _time_ms(lambda: detector.detect(frame), args.repeat),
        "rectify all zones at 1 mm/px": _time_ms(lambda: rectifier.rectify(frame), args.repeat),
        "rectify all zones at 4 mm/px": _time_ms(lambda: coarse.rectify(frame), args.repeat),
    }
    for name, milliseconds in timings.items():
        print(f"  {name:34s} {milliseconds:6.1f} ms")

    feed = ZoneFeed(calibration)
    feed.changed_zones(frame)
    still = _time_ms(lambda: feed.changed_zones(frame), args.repeat)
    print(f"  {'zone feed, nothing changed':34s} {still:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
