"""Opening the dashboard: the saved-session file, resume or new, the window, a frame source
(read into the game when calibrated), the table's USB devices."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.dashboard.dialogs import SessionSetup
from assistant.engine import Session
from assistant.store import SessionStore, StoreError


class DashboardError(Exception):
    """The dashboard cannot open; the message says why and nothing was changed."""


@dataclass(frozen=True)
class DashboardOptions:
    session_path: Path
    new: bool = False
    resume: bool = False
    setup: SessionSetup | None = None
    name: str = "session"
    video: Path | None = None
    camera: str | None = None  # an index ("0") or a device path
    calibration: Path | None = None
    models: Path | None = None
    hold_s: float = 0.1
    devices: bool = False  # search every port for the table's devices
    lights: str | None = None
    shuffler: str | None = None
    quit_after_ms: int | None = None
    screenshot: Path | None = None


def default_session_path() -> Path:
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "dealer-assistant" / "sessions.db"


def check_display(environ: dict[str, str] | None = None) -> None:
    """Refuse clearly, instead of letting Qt abort, when there is no display to open."""
    env = dict(os.environ) if environ is None else environ
    platform = env.get("QT_QPA_PLATFORM", "")
    if (
        sys.platform.startswith("linux")
        and not platform
        and not env.get("DISPLAY")
        and not env.get("WAYLAND_DISPLAY")
    ):
        raise DashboardError(
            "no display: set DISPLAY (or run under xvfb-run), "
            "or QT_QPA_PLATFORM=offscreen for a window nobody sees"
        )


def open_store(path: Path) -> SessionStore:
    if path.is_dir():
        raise DashboardError(f"{path} is a folder, not a session file")
    if not path.parent.exists():
        if path == default_session_path():
            path.parent.mkdir(parents=True, exist_ok=True)
        else:
            raise DashboardError(f"cannot create {path}: folder {path.parent} does not exist")
    try:
        return SessionStore(path)
    except StoreError as error:
        raise DashboardError(str(error)) from None


def _no_wait(_seconds: float) -> None:
    """A lost camera is retried on the window's timer, never by sleeping in it."""


def open_source(options: DashboardOptions) -> Any:
    """The frame source asked for on the command line, or None."""
    if options.video is None and options.camera is None:
        if options.calibration is not None:
            raise DashboardError("--calibration needs a source: --camera INDEX|PATH or --video FILE")
        return None
    from assistant.vision.sources import SourceError, VideoFileSource
    from assistant.vision.sources import open_source as open_frames

    try:
        if options.video is not None:
            return VideoFileSource(options.video)
        assert options.camera is not None
        return open_frames(options.camera, sleep=_no_wait)
    except SourceError as error:
        raise DashboardError(str(error)) from None


def open_calibration(options: DashboardOptions) -> Any:
    """The calibration file asked for, or None; a bad one is refused before any window."""
    if options.calibration is None:
        return None
    from assistant.vision.calibration import CalibrationError, load_calibration
    from assistant.vision.layout import LayoutError

    try:
        return load_calibration(options.calibration)
    except (LayoutError, CalibrationError) as error:
        raise DashboardError(str(error)) from None


def device_manager(options: DashboardOptions) -> tuple[Any, list[str] | None] | None:
    """A device manager and the ports to look on (None: every port), when asked for."""
    named = [port for port in (options.lights, options.shuffler) if port]
    if not (options.devices or named):
        return None
    from assistant.devices.manager import DeviceManager

    return DeviceManager(extra_ports=named), None if options.devices else named


def _describe(store: SessionStore, session_id: int) -> str:
    for sid, name, created, events in store.sessions():
        if sid == session_id:
            return f"session {sid} '{name}', started {created}, {events} events saved"
    return f"session {session_id}"


def choose_session(store: SessionStore, options: DashboardOptions) -> tuple[Session, int] | None:
    """Resume the saved session or start a new one (asking when the options do not say)."""
    latest = store.latest()
    if latest is not None and not options.new:
        resume = options.resume
        if not resume:
            from assistant.dashboard.dialogs import ask_resume

            resume = ask_resume(None, _describe(store, latest))
        if resume:
            try:
                return store.resume(latest), latest
            except StoreError as error:
                raise DashboardError(str(error)) from None
    elif options.resume:
        raise DashboardError(f"{store.path} holds no session to resume")
    setup = options.setup
    if setup is None:
        from assistant.dashboard.dialogs import SetupDialog

        dialog = SetupDialog()
        if not dialog.exec() or dialog.setup is None:
            return None
        setup = dialog.setup
    session = Session.new(setup.rules, setup.stakes, setup.players, setup.dealer)
    return session, store.create(session, options.name)


def run_dashboard(options: DashboardOptions) -> int:
    """Open the window and run until it is closed (or ``quit_after_ms`` passes)."""
    check_display()
    store = open_store(options.session_path)
    try:
        source = open_source(options)
        calibration = open_calibration(options)
        from assistant.dashboard.qt_env import application, drops_none_references

        app = application()
        if drops_none_references():
            print(
                "dealer-assistant dashboard: warning: this PySide6 release loses references to None "
                "under this Python and will crash after a while; install another (pyside6<6.12)",
                file=sys.stderr,
            )
        chosen = choose_session(store, options)
        if chosen is None:
            return 0
        session, session_id = chosen
        store.attach(session, session_id)
        from PySide6.QtCore import QTimer

        from assistant.dashboard.main_window import DashboardWindow

        window = DashboardWindow(
            session, title=f"dealer-assistant · {store.path.name} · session {session_id}"
        )
        window.show()
        if source is not None:
            detector, counter, note = None, None, ""
            if calibration is not None:
                from assistant.dashboard.live_table import load_counter, load_detector

                detector, note = load_detector(options.models)
                if detector is not None:
                    counter, note = load_counter(options.models, calibration)
            window.attach_camera(
                source, calibration, detector, note=note, hold_s=options.hold_s, counter=counter
            )
        devices = device_manager(options)
        if devices is not None:
            manager, ports = devices
            window.attach_devices(manager, ports)
        if options.quit_after_ms is not None:

            def finish() -> None:
                if options.screenshot is not None:
                    window.grab().save(str(options.screenshot))
                window.close()
                app.quit()

            QTimer.singleShot(options.quit_after_ms, finish)
        app.exec()
        if source is not None and hasattr(source, "close"):
            source.close()
        return 0
    finally:
        store.close()
