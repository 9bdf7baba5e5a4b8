"""``dealer-assistant replay``: a recorded session through the camera pipeline."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="run a recorded session (a video) through the camera pipeline",
        description="Replay a video of a hand through calibration, detection, the referee and the "
        "rules engine; write the events (with frame numbers) and the result.",
    )
    parser.add_argument("video", type=Path)
    parser.add_argument(
        "--layout",
        type=Path,
        help="a calibration file (layout + camera mapping), or a layout file to calibrate from "
        "the markers in the video (default: VIDEO.calibration.json next to the video)",
    )
    parser.add_argument("--rules", help="rules preset, overriding the sidecar's")
    parser.add_argument(
        "--sidecar", type=Path, help="dealer inputs (default: VIDEO.dealer.json next to the video)"
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the events and the result here")
    parser.add_argument("--models", type=Path, help="folder of the detector's model files (default: models/)")
    parser.add_argument(
        "--hold", type=float, default=0.1, help="seconds a reading must persist (%(default)s)"
    )
    parser.add_argument(
        "--dashboard", action="store_true", help="then open the dashboard on the replayed game"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=_replay)

    demo = subparsers.add_parser(
        "demo",
        help="replay the bundled recorded hand (a video) with the bundled model and check it",
        description="Replay fixtures/video/seven-twenty-seven-paris.mp4 through the camera pipeline "
        "with the model in models/, print what happened, and compare it with the hand's ground truth.",
    )
    demo.add_argument("--models", type=Path, help="folder of the detector's model files (default: models/)")
    demo.set_defaults(func=_demo)


DEMO_VIDEO = Path(__file__).resolve().parents[2] / "fixtures" / "video" / "seven-twenty-seven-paris.mp4"


def _demo(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.pipeline.truth import truth_actions

    truth_path = DEMO_VIDEO.with_name(DEMO_VIDEO.stem + ".truth.json")
    if not DEMO_VIDEO.is_file() or not truth_path.is_file():
        raise CommandError(f"the bundled recording {DEMO_VIDEO} (or its truth file) is missing")
    args = argparse.Namespace(
        video=DEMO_VIDEO,
        layout=None,
        rules=None,
        sidecar=None,
        json=None,
        models=args.models,
        hold=0.1,
        dashboard=False,
        quiet=False,
    )
    code, data = _run_replay(args)
    truth = json.loads(truth_path.read_text())
    expected = [action for _, action in truth_actions(truth)]
    got = [event["action"] for event in data["events"]]
    for event in data["events"]:
        words = (" ".join(map(str, a)) if isinstance(a, list) else str(a) for a in event["action"])
        print(f"  frame {event['frame']:4d}  {event['source']:6s}  {' '.join(words)}")
    agree = 0
    while agree < min(len(got), len(expected)) and got[agree] == expected[agree]:
        agree += 1
    awards = data["hands"][-1]["awards"] if data["hands"] else None
    if got == expected and awards == truth["result"]["awards"] and not data["queries"]:
        print(f"the replay matches the recorded hand's ground truth: {len(got)} events, same awards")
        return code
    print(
        f"the replay differs from the ground truth after {agree} of {len(expected)} events "
        f"(awards {awards}, truth {truth['result']['awards']})"
    )
    return 1


def _calibration(video: Path, layout: Path | None) -> Any:
    from assistant.cli import CommandError
    from assistant.vision.calibration import CalibrationError, load_calibration
    from assistant.vision.cli import calibrate_from_source
    from assistant.vision.layout import LayoutError, load_layout

    path = layout or video.with_name(video.stem + ".calibration.json")
    if not path.is_file():
        raise CommandError(f"no calibration or layout file at {path} (give one with --layout)")
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CommandError(f"{path} is not readable JSON: {error}") from None
    try:
        if isinstance(data, dict) and "layout" in data:
            return load_calibration(path)
        return calibrate_from_source(str(video), load_layout(path), max_frames=30)
    except (CalibrationError, LayoutError) as error:
        raise CommandError(str(error)) from None


def _sidecar(args: argparse.Namespace, seats: int) -> Any:
    from assistant.cli import CommandError
    from assistant.engine.events import Player, Stakes
    from assistant.engine.rules import RulesError, preset
    from assistant.pipeline.sidecar import Sidecar, SidecarError, load_sidecar, sidecar_path

    path = args.sidecar or sidecar_path(args.video)
    try:
        if path.is_file() or args.sidecar:
            sidecar = load_sidecar(path)
        else:
            players = tuple(Player(f"Seat {i + 1}", 100) for i in range(seats))
            sidecar = Sidecar(preset(args.rules or "seven-twenty-seven"), Stakes(), players, 0, ())
            print(
                f"replay: no dealer inputs at {path}: only what the camera sees is applied", file=sys.stderr
            )
        if args.rules:
            from dataclasses import replace

            options = sidecar.rules.options()
            sidecar = replace(sidecar, rules=preset(args.rules).with_options(**options))
    except (SidecarError, RulesError) as error:
        raise CommandError(str(error)) from None
    return sidecar


def _replay(args: argparse.Namespace) -> int:
    return _run_replay(args)[0]


def _run_replay(args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    from assistant.cli import CommandError
    from assistant.detect.pipeline import MODELS_DIR, CardDetector, ModelMissingError
    from assistant.pipeline.replay import replay
    from assistant.vision.sources import SourceError, VideoFileSource

    try:
        source = VideoFileSource(args.video)
    except SourceError as error:
        raise CommandError(str(error)) from None
    calibration = _calibration(args.video, args.layout)
    from assistant.vision.sampling import sampling_warning

    coarse = sampling_warning(calibration)
    if coarse:
        print(f"replay: {coarse}", file=sys.stderr)
    sidecar = _sidecar(args, len(calibration.layout.seats))
    if len(sidecar.players) != len(calibration.layout.seats):
        raise CommandError(
            f"the sidecar has {len(sidecar.players)} players but the layout has "
            f"{len(calibration.layout.seats)} seats"
        )
    try:
        # one replay is one table session: it learns how far to trust each reader kind, frame by frame
        zones = CardDetector.for_zones(args.models or MODELS_DIR).learning_reader_trust()
        detector = DetectorAdapter(zones)
    except ModelMissingError as error:
        raise CommandError(f"{error}: train one with 'dealer-assistant train' or restore models/") from None
    from assistant.detect.deck_learning import deck_note

    if note := deck_note(args.models or MODELS_DIR):
        print(f"replay: {note}", file=sys.stderr)
    from assistant.detect.stack_counter import load_stack_counter

    try:
        counter = load_stack_counter(args.models or MODELS_DIR, calibration)
    except Exception as error:  # a corrupt model file: onnxruntime raises its own types
        raise CommandError(f"cannot load the stack counter: {error}") from None
    bar = None if args.quiet else ProgressBar(args.video.name, source.frame_count)
    with source:
        report = replay(
            source,
            calibration,
            sidecar,
            detector,
            hold_s=args.hold,
            progress=bar.update if bar is not None else None,
            counter=counter,
        )
    if bar is not None:
        bar.close()
    data = report.to_json()
    data["video"] = str(args.video)
    if zones.trust is not None:  # what the session learnt of its readers, for a misread deck's post-mortem
        data["reader_trust"] = zones.trust.to_json()
    if args.json:
        args.json.write_text(json.dumps(data, indent=1) + "\n")
    print(
        f"{args.video}: {report.frames} frames at {report.fps:.1f} frames/s, "
        f"{len(report.events)} events, {len(report.queries)} questions for the dealer"
    )
    for query in report.queries:
        print(f"  frame {query['frame']}: {query['message']}")
    if report.hands:
        awards = ", ".join(
            f"seat {seat} +{chips}" for seat, chips in report.hands[-1]["awards"].items() if chips
        )
        print(f"  result: {awards}")
    if report.stopped:
        print(f"replay stopped early: {report.stopped}", file=sys.stderr)
        return 1, data
    if args.dashboard:
        return _open_dashboard(sidecar, data), data
    return 0, data


def _open_dashboard(sidecar: Any, data: dict[str, Any]) -> int:
    from assistant.dashboard.qt_env import application
    from assistant.engine.actions import action_to_event
    from assistant.engine.events import Event, SessionStarted
    from assistant.engine.session import Session

    app = application()
    from assistant.dashboard.main_window import DashboardWindow

    events: list[Event] = [SessionStarted(sidecar.rules, sidecar.stakes, sidecar.players, sidecar.dealer)]
    events += [action_to_event(item["action"]) for item in data["events"]]
    window = DashboardWindow(Session(events), title=f"replay of {data['video']}")
    window.show()
    return int(app.exec())


class ProgressBar:
    """A one-line progress bar on standard error: frames done, of how many, how fast."""

    def __init__(self, name: str, total: int | None, width: int = 30) -> None:
        import time

        self.name, self.total, self.width = name, total, width
        self.done = 0
        self._clock = time.perf_counter
        self._start = self._clock()
        self._shown = 0.0

    def update(self, _frame_index: int) -> None:
        self.done += 1
        now = self._clock()
        if now - self._shown >= 0.2 or self.done == self.total:
            self._shown = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        rate = self.done / max(now - self._start, 1e-9)
        if self.total:
            filled = round(self.width * self.done / self.total)
            bar = "#" * filled + "." * (self.width - filled)
            text = f"{self.name} [{bar}] {self.done}/{self.total} frames, {rate:.1f}/s"
        else:
            text = f"{self.name} {self.done} frames, {rate:.1f}/s"
        sys.stderr.write("\r" + text)
        sys.stderr.flush()

    def close(self) -> None:
        self._draw(self._clock())
        sys.stderr.write("\n")


class DetectorAdapter:
    """The detector as the pipeline wants it: zone crops in, ``detect --json`` dicts out."""

    def __init__(self, detector: Any) -> None:
        self.detector = detector

    def detect_batch(self, images: Any) -> list[dict[str, Any]]:
        return [self.detector.detect(image).to_json(with_index=True, with_names=True) for image in images]
