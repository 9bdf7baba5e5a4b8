"""Milliseconds per image of the shipped detector on this machine.

    nice python benchmarks/bench_detect.py [--models models] [--backend onnx ultralytics]
        [--threads 0] [--repeat 30] [--images DIR] [--zones ZONE_IMAGES_DIR]

Measures stage 1 alone and the whole pipeline (stage 1 + reading every index and chip
stack found) for a 320 px seat-zone crop and a 640 px full image, each run at its own
size as detector input. Images come from ``--images`` (a renderer split: its 640 px
frames, and a 320 px crop of their centres) or, without it, from the test fixtures.
With ``--zones`` it also times seat card zones as the camera pipeline cuts them from
the bundled videos, with the margin of table around each zone. The 640 px row is
``detect --quick`` (one pass over the whole image); ``--photos N`` also times what
``detect`` runs on a photo, on N images: the card finder alone (its two runs), the photo
read from the finder's corners (the default where the model folder holds the finder),
and the search at every scale and angle (``detect --search``; seconds each).
Prints one JSON line per (backend, size) with the median and 90th percentile.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.detect.backends import input_size
from assistant.detect.pipeline import MODELS_DIR, ZONE_IMGSZ, ZONE_MIN_SCALE, CardDetector

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "detect" / "fixtures"
VIDEOS = Path(__file__).resolve().parents[1] / "fixtures" / "video"


def _frames(folder: Path, n: int) -> list[np.ndarray]:
    frames = []
    for path in sorted(folder.glob("*.jpg"))[:n]:
        image = cv2.imread(str(path))
        if image is not None:
            frames.append(image)
    if not frames:
        raise SystemExit(f"no .jpg images in {folder}")
    return frames


def _seat_crop(image: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    s = min(320, h, w)
    y, x = (h - s) // 2, (w - s) // 2
    return np.ascontiguousarray(image[y : y + s, x : x + s])


def _pipeline_zones(every: int = 20) -> list[np.ndarray]:
    """Seat card zone crops, margin included, as the pipeline cuts them from the videos."""
    from assistant.pipeline.zones import CARD_ZONE_MARGIN_MM
    from assistant.vision.calibration import load_calibration
    from assistant.vision.rectify import ZoneRectifier
    from assistant.vision.sources import VideoFileSource

    crops: list[np.ndarray] = []
    for video in sorted(VIDEOS.glob("*.mp4")):
        calibration = load_calibration(video.with_suffix(".calibration.json"))
        zones = {k: z for k, z in calibration.layout.zones().items() if k.endswith(".cards")}
        rectifier = ZoneRectifier(calibration, zones, margins=dict.fromkeys(zones, CARD_ZONE_MARGIN_MM))
        with VideoFileSource(video) as source:
            for frame in source:
                if frame.index % every == 0:
                    crops.extend(crop.image for crop in rectifier.rectify(frame.image))
    return crops


def _time(fn: object, frames: list[np.ndarray], repeat: int) -> list[float]:
    call = fn  # a callable taking one image
    call(frames[0])  # type: ignore[operator]  # warm-up
    ms = []
    for k in range(repeat):
        image = frames[k % len(frames)]
        t = time.perf_counter()
        call(image)  # type: ignore[operator]
        ms.append((time.perf_counter() - t) * 1000)
    return ms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--backend", nargs="+", default=["onnx"], choices=["onnx", "ultralytics"])
    parser.add_argument("--threads", type=int, default=0, help="0: ONNX Runtime's default")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--images", type=Path, default=FIXTURES)
    parser.add_argument(
        "--zones",
        type=Path,
        help="a zone dataset's image folder (synth zones): time its seat card zones the way the "
        "camera pipeline runs them (upright, 320 px) instead of 320 px centre crops",
    )
    parser.add_argument("--photos", type=int, default=0, help="time the photo search on this many images")
    args = parser.parse_args(argv)
    full = [cv2.resize(f, (640, round(640 * f.shape[0] / f.shape[1]))) for f in _frames(args.images, 10)]
    seats = [_seat_crop(f) for f in full]
    if args.zones:
        paths = sorted(args.zones.glob("*cards.jpg"))[:200:10]
        seats = [image for p in paths if (image := cv2.imread(str(p))) is not None]
    inputs = [("seat_crop_320", 320, seats), ("full_image_640", 640, full)]
    if args.zones:
        wide = _pipeline_zones()
        inputs.insert(
            1, ("seat_zone_with_margin", input_size(wide[0].shape, ZONE_IMGSZ, ZONE_MIN_SCALE), wide)
        )
    for backend in args.backend:
        for label, size, frames in inputs:
            if label == "seat_zone_with_margin":
                det = CardDetector.for_zones(args.models, backend=backend, threads=args.threads)
            elif args.zones and size == 320:
                label = "seat_zone_320"
                det = CardDetector.for_zones(args.models, backend=backend, threads=args.threads)
            else:
                det = CardDetector.load(args.models, backend=backend, imgsz=size, threads=args.threads)
            stage1 = _time(det.detector, frames, args.repeat)
            whole = _time(det.detect, frames, args.repeat)
            print(
                json.dumps(
                    {
                        "backend": backend,
                        "input": label,
                        "imgsz": size,
                        "stage1_ms_median": round(statistics.median(stage1), 1),
                        "stage1_ms_p90": round(float(np.percentile(stage1, 90)), 1),
                        "pipeline_ms_median": round(statistics.median(whole), 1),
                        "pipeline_ms_p90": round(float(np.percentile(whole, 90)), 1),
                        "repeat": args.repeat,
                    }
                ),
                flush=True,
            )
        if args.photos > 0:
            from assistant.detect.card_finder import load_card_finder
            from assistant.detect.photo import PhotoDetector

            zones = CardDetector.for_zones(args.models, backend=backend, threads=args.threads)
            finder = load_card_finder(args.models, args.threads) if backend == "onnx" else None
            ways: list[tuple[str, Any]] = [("photo_search_640", PhotoDetector(zones).detect)]
            if finder is not None:
                ways = [
                    ("card_finder_alone_640", finder.find),
                    ("photo_card_finder_640", PhotoDetector(zones, finder=finder).detect),
                    *ways,
                ]
            for label, run in ways:
                ms = _time(run, full, args.photos)
                row = {"backend": backend, "input": label, "repeat": args.photos}
                row |= {
                    "ms_median": round(statistics.median(ms)),
                    "ms_p90": round(float(np.percentile(ms, 90))),
                }
                print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
