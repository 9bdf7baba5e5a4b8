"""Opening the dashboard: the saved-session file, resume or new, the window, a frame source."""

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
    camera: int | None = None
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


def open_source(options: DashboardOptions) -> Any:
    """The frame source asked for on the command line, or None."""
    if options.video is None and options.camera is None:
        return None
    from assistant.vision.sources import CameraSource, SourceError, VideoFileSource

    try:
        if options.video is not None:
            return VideoFileSource(options.video)
        assert options.camera is not None
        return CameraSource(options.camera)
    except SourceError as error:
        raise DashboardError(str(error)) from None


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
            from assistant.dashboard.camera_view import FrameFeed

            fps = float(getattr(source, "fps", 30.0) or 30.0)
            description = str(getattr(source, "description", "camera"))
            window.attach_feed(
                FrameFeed(window.camera, source, interval_ms=max(1, int(1000 / fps)), description=description)
            )
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
