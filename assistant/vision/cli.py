"""``dealer-assistant calibrate``: marker sheets, default layouts and table calibration.

    dealer-assistant calibrate marker-sheet --out markers.pdf [--layout FILE|oval-N]
    dealer-assistant calibrate layout --seats 8 --out my-table.json
    dealer-assistant calibrate --source 0 [--layout FILE|oval-N] --out calibration.json

Heavy modules (OpenCV, numpy) are imported inside the command functions.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant.cli import CommandError

if TYPE_CHECKING:
    from assistant.vision.calibration import Calibration
    from assistant.vision.layout import TableLayout

DEFAULT_LAYOUT = "oval-8"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="calibrate the camera to the table (and print markers, write layouts)",
        description=(
            "Find the table's ArUco markers in a camera, video, image or folder of images, "
            "compute the image-to-table mapping in millimetres and save it with the layout. "
            "Sub-commands print the marker sheet or write a default layout."
        ),
    )
    parser.add_argument("--source", help="camera index (0), device (/dev/video0), video, image or folder")
    _layout_argument(parser)
    parser.add_argument("--out", type=Path, help="calibration file to write (JSON)")
    parser.add_argument("--frames", type=int, default=30, help="frames to try before giving up (default 30)")
    parser.set_defaults(func=_run_calibrate, calibrate_parser=parser)
    actions = parser.add_subparsers(dest="calibrate_action", metavar="[ACTION]")
    sheet = actions.add_parser(
        "marker-sheet",
        help="write the printable marker sheet (PDF or PNG, by the file's extension)",
        description="Write every marker of the layout at true size on A4 pages, labelled "
        "with where it goes on the table.",
    )
    _layout_argument(sheet)
    sheet.add_argument("--out", type=Path, required=True, help="sheet to write: .pdf or .png")
    sheet.set_defaults(func=_run_marker_sheet)
    layout = actions.add_parser(
        "layout",
        help="write a default oval-table layout to edit",
        description="Write the default layout for 4 to 10 seats around an oval table.",
    )
    layout.add_argument("--seats", type=int, required=True, help="number of seats, 4 to 10")
    layout.add_argument("--out", type=Path, required=True, help="layout file to write (JSON)")
    layout.set_defaults(func=_run_layout)


def _layout_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--layout",
        default=DEFAULT_LAYOUT,
        help=(
            f"layout or calibration file, or a default layout: oval-4 .. oval-10 (default {DEFAULT_LAYOUT})"
        ),
    )


def resolve_layout(spec: str) -> TableLayout:
    """A layout from a file, or the default named ``oval-N``."""
    from assistant.vision.default_layouts import oval_layout
    from assistant.vision.layout import LayoutError, load_layout

    match = re.fullmatch(r"oval-(\d+)", spec)
    if match and not Path(spec).exists():
        try:
            return oval_layout(int(match.group(1)))
        except ValueError as error:
            raise CommandError(str(error)) from None
    try:
        return load_layout(spec)
    except LayoutError as error:
        raise CommandError(str(error)) from None


def _run_marker_sheet(args: argparse.Namespace) -> int:
    from assistant.vision.marker_sheet import MarkerSheetError, write_marker_sheet

    layout = resolve_layout(args.layout)
    try:
        written = write_marker_sheet(layout, args.out)
    except MarkerSheetError as error:
        raise CommandError(str(error)) from None
    except OSError as error:
        raise CommandError(f"cannot write {args.out}: {error.strerror or error}") from None
    sizes = sorted({m.size_mm for m in layout.markers})
    print(
        f"wrote {', '.join(str(p) for p in written)}: {len(layout.markers)} markers of layout "
        f"{layout.name} ({', '.join(f'{s:g}' for s in sizes)} mm); print at 100% scale"
    )
    return 0


def _run_layout(args: argparse.Namespace) -> int:
    from assistant.vision.default_layouts import oval_layout
    from assistant.vision.layout import save_layout

    try:
        layout = oval_layout(args.seats)
    except ValueError as error:
        raise CommandError(str(error)) from None
    try:
        save_layout(layout, args.out)
    except OSError as error:
        raise CommandError(f"cannot write {args.out}: {error.strerror or error}") from None
    print(f"wrote {args.out}: layout {layout.name}, {len(layout.markers)} markers")
    return 0


def _run_calibrate(args: argparse.Namespace) -> int:
    if args.source is None or args.out is None:
        args.calibrate_parser.error("calibrate needs --source and --out (or an ACTION)")
    if args.frames < 1:
        raise CommandError("--frames must be at least 1")
    layout = resolve_layout(args.layout)
    calibration = calibrate_from_source(args.source, layout, max_frames=args.frames)
    from assistant.vision.calibration import save_calibration

    try:
        save_calibration(calibration, args.out)
    except OSError as error:
        raise CommandError(f"cannot write {args.out}: {error.strerror or error}") from None
    seen = len(calibration.marker_corners_mm)
    print(
        f"calibrated from frame {calibration.frame_index} of {args.source}: {seen} of "
        f"{len(layout.markers)} markers of layout {layout.name}, fit RMS "
        f"{calibration.rms_mm:.2f} mm; wrote {args.out}"
    )
    print(f"  lens distortion k = {calibration.distortion:.4f}")
    if calibration.rms_mm > 3.0:
        print(
            f"  warning: the markers lie about {calibration.rms_mm:.0f} mm off their places in the "
            "layout; zones will be off by as much or more: measure and move them"
        )
    from assistant.vision.sampling import card_zone_sampling, sampling_warning

    sampling = card_zone_sampling(calibration)
    if sampling:
        print(
            "  camera sampling at the seats' cards (mm of table per camera pixel): "
            + ", ".join(f"{key.split('.')[0]} {value:.2f}" for key, value in sorted(sampling.items()))
        )
    warning = sampling_warning(calibration)
    if warning:
        print(f"  warning: {warning}")
    for marker_id, residual in sorted(calibration.marker_residuals_mm.items()):
        print(f"  marker {marker_id}: {residual:.2f} mm from its place in the layout")
    for marker_id in calibration.ignored_markers:
        print(f"  marker {marker_id} left out: it lies far from its place in the layout; move it")
    return 0


def calibrate_from_source(source_spec: str, layout: TableLayout, *, max_frames: int) -> Calibration:
    """Calibrate from the best of the first ``max_frames`` frames of a source."""
    from assistant.vision.calibration import CalibrationError, calibrate
    from assistant.vision.markers import MarkerDetector
    from assistant.vision.sources import SourceError, SourceState, open_source

    detector = MarkerDetector()
    wanted = {m.id for m in layout.markers}
    best: Calibration | None = None
    last_error: CalibrationError | None = None
    try:
        source = open_source(source_spec)
    except SourceError as error:
        raise CommandError(str(error)) from None
    with source:
        attempts = 0
        while attempts < max_frames:
            attempts += 1
            try:
                frame = source.read()
            except SourceError as error:
                if best is not None:
                    break  # keep what the frames read so far gave
                raise CommandError(str(error)) from None
            if frame is None:
                if source.state in (SourceState.ENDED, SourceState.CLOSED):
                    break
                continue
            detections = [d for d in detector.detect(frame.image) if d.id in wanted]
            if best is not None and len(detections) < len(best.marker_corners_mm):
                continue
            height, width = frame.image.shape[:2]
            try:
                candidate = calibrate(
                    detections,
                    layout,
                    (width, height),
                    source=str(source_spec),
                    frame_index=frame.index,
                )
            except CalibrationError as error:
                last_error = error
                continue
            if best is None or _better(candidate, best):
                best = candidate
            if len(best.marker_corners_mm) == len(wanted):
                break
    if best is None:
        reason = str(last_error) if last_error else "no markers found"
        raise CommandError(f"no frame of {source_spec} could be calibrated: {reason}")
    return best


def _better(candidate: Calibration, best: Calibration) -> bool:
    seen, best_seen = len(candidate.marker_corners_mm), len(best.marker_corners_mm)
    return seen > best_seen or (seen == best_seen and candidate.rms_mm < best.rms_mm)
