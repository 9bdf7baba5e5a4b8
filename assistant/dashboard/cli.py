"""``dealer-assistant dashboard``: the dealer's screen. Qt is imported only when it runs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "dashboard",
        help="open the dealer's dashboard (table, turn, pot, advice, showdown, camera)",
        description=(
            "Open the dealer's dashboard. The session is saved event by event in --session; "
            "reopening offers to resume it. Press F1 in the window for the keys."
        ),
    )
    parser.add_argument(
        "--session",
        type=Path,
        metavar="FILE.db",
        help="saved-session file (default ~/.local/share/dealer-assistant/sessions.db)",
    )
    start = parser.add_mutually_exclusive_group()
    start.add_argument("--new", action="store_true", help="start a new session (do not offer to resume)")
    start.add_argument("--resume", action="store_true", help="resume the latest saved session without asking")
    parser.add_argument(
        "--players",
        metavar="'Anna:50,Ben:50'",
        help="players in seat order with stacks (with --new: no setup dialog)",
    )
    parser.add_argument(
        "--rules", default="seven-twenty-seven", metavar="PRESET", help="rules preset or alias"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="house-rule switch, VALUE in JSON (e.g. freeze_after=2, bust=true); repeatable",
    )
    parser.add_argument("--ante", type=int, default=1)
    parser.add_argument("--min-bet", type=int, default=1)
    parser.add_argument("--max-bet", type=int, default=5)
    parser.add_argument("--max-raises", type=int, default=3)
    parser.add_argument("--dealer", type=int, default=0, help="seat that deals the first hand")
    parser.add_argument("--name", default="session", help="name of a new session in the file")
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--video",
        type=Path,
        metavar="FILE",
        help="a recorded video in the camera view, read into the game with --calibration",
    )
    source.add_argument(
        "--camera",
        metavar="INDEX|PATH",
        help="a live camera (index 0, 1, ... or a device such as /dev/video0), read into the game "
        "with --calibration",
    )
    parser.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE",
        help="the camera's calibration (dealer-assistant calibrate): zones drawn, cards read into the game",
    )
    parser.add_argument(
        "--models", type=Path, metavar="DIR", help="folder of the detector's model files (default: models/)"
    )
    parser.add_argument(
        "--hold", type=float, default=0.1, help="seconds a camera reading must persist (%(default)s)"
    )
    parser.add_argument(
        "--devices", action="store_true", help="look on every serial port for seat lights and a shuffler"
    )
    parser.add_argument("--lights", metavar="PORT", help="the seat-light controller's serial port")
    parser.add_argument("--shuffler", metavar="PORT", help="the card shuffler's serial port")
    parser.add_argument("--quit-after", type=int, metavar="MS", help="close the window after MS milliseconds")
    parser.add_argument(
        "--screenshot", type=Path, metavar="PNG", help="with --quit-after: save the window first"
    )
    parser.add_argument(
        "--export-history",
        type=Path,
        metavar="TXT",
        help="write the saved session's hand history as text and exit (no window)",
    )
    parser.set_defaults(func=run)


def _options(values: list[str]) -> dict[str, Any]:
    from assistant.cli import CommandError

    options: dict[str, Any] = {}
    for item in values:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise CommandError(f"--option {item!r}: expected KEY=VALUE")
        try:
            options[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            options[key.strip()] = raw
    return options


def run(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.dashboard.app import DashboardError, DashboardOptions, default_session_path, run_dashboard
    from assistant.dashboard.dialogs import SetupError, build_setup

    path: Path = args.session or default_session_path()
    if args.export_history is not None:
        return export_history(path, args.export_history)
    setup = None
    if args.players:
        try:
            setup = build_setup(
                args.rules,
                _options(args.option),
                {
                    "ante": args.ante,
                    "min_bet": args.min_bet,
                    "max_bet": args.max_bet,
                    "max_raises": args.max_raises,
                },
                args.players,
                args.dealer,
            )
        except SetupError as error:
            raise CommandError(str(error)) from None
    if args.screenshot is not None and args.quit_after is None:
        raise CommandError("--screenshot needs --quit-after MS (when to take it)")
    options = DashboardOptions(
        session_path=path,
        new=args.new,
        resume=args.resume,
        setup=setup,
        name=args.name,
        video=args.video,
        camera=args.camera,
        calibration=args.calibration,
        models=args.models,
        hold_s=args.hold,
        devices=args.devices,
        lights=args.lights,
        shuffler=args.shuffler,
        quit_after_ms=args.quit_after,
        screenshot=args.screenshot,
    )
    try:
        return run_dashboard(options)
    except DashboardError as error:
        raise CommandError(str(error)) from None


def export_history(path: Path, target: Path) -> int:
    from assistant.cli import CommandError
    from assistant.dashboard.history_text import hand_history
    from assistant.store import SessionStore, StoreError

    if not path.is_file():
        raise CommandError(f"no session file {path}")
    try:
        store = SessionStore(path)
        try:
            session = store.resume()
        finally:
            store.close()
        target.write_text(hand_history(session.events), encoding="utf-8")
    except StoreError as error:
        raise CommandError(str(error)) from None
    except OSError as error:
        raise CommandError(f"cannot write {target}: {error.strerror}") from None
    print(f"hand history of {len(session.events)} events written to {target}")
    return 0
