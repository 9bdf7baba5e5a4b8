"""Replay speed and event delay on the bundled video fixtures (1280x720).

    python benchmarks/bench_replay.py [NAME ...] [--models DIR]

For each fixture: frames per second of the whole pipeline (decode, rectify, motion gate,
detector, hysteresis, referee, engine) on this machine, and the delay from a card coming
into view (at rest, or turned over) to its event, in video time (see
:func:`assistant.pipeline.truth.visible_frame` for when the renderer's changes show).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from assistant.detect.pipeline import MODELS_DIR, CardDetector
from assistant.pipeline.cli import DetectorAdapter
from assistant.pipeline.replay import replay
from assistant.pipeline.sidecar import load_sidecar
from assistant.pipeline.truth import CAMERA_ACTIONS, truth_actions, visible_frame
from assistant.vision.calibration import load_calibration
from assistant.vision.sources import VideoFileSource

VIDEOS = Path(__file__).resolve().parent.parent / "fixtures" / "video"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="fixture names (default: all)")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="model folder (default: models/)")
    args = parser.parse_args()
    names = args.names or sorted(p.name.removesuffix(".truth.json") for p in VIDEOS.glob("*.truth.json"))
    zones = CardDetector.for_zones(args.models)
    for name in names:
        # each video one session, as `replay` reads it
        detector = DetectorAdapter(zones.learning_reader_trust())
        truth = json.loads((VIDEOS / f"{name}.truth.json").read_text())
        with VideoFileSource(VIDEOS / f"{name}.mp4") as source:
            report = replay(
                source,
                load_calibration(VIDEOS / f"{name}.calibration.json"),
                load_sidecar(VIDEOS / f"{name}.dealer.json"),
                detector,
            )
        expected = truth_actions(truth)
        got = [(e["frame"], e["action"]) for e in report.events]
        matches = [a for _, a in got] == [a for _, a in expected]
        agree = 0  # events equal to the truth's before the first difference
        while agree < min(len(got), len(expected)) and got[agree][1] == expected[agree][1]:
            agree += 1
        delays = [
            (frame - visible_frame(truth_frame, action[0])) / truth["fps"] * 1000
            for (frame, action), (truth_frame, truth_action) in zip(got, expected, strict=False)
            if action == truth_action and action[0] in CAMERA_ACTIONS
        ]
        delay = f"{statistics.median(delays):.0f} ms median, {max(delays):.0f} ms worst" if delays else "n/a"
        print(
            f"{name}: {report.frames} frames, {report.fps:.1f} frames/s, "
            f"{report.zones_detected} zone detections, events match truth: {matches} "
            f"({agree} of {len(expected)} agree before the first difference, {len(got)} found), "
            f"{len(report.queries)} queries, card-to-event delay {delay}"
        )


if __name__ == "__main__":
    main()
