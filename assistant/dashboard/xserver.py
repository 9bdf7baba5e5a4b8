"""A private Xvfb X server, for screenshots and for testing the app on a real X display."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import IO


class XServerError(RuntimeError):
    """Xvfb is missing or did not start."""


class Xvfb:
    """``with Xvfb() as display:`` runs Xvfb on a free display number (``":N"``)."""

    def __init__(
        self, width: int = 1600, height: int = 960, depth: int = 24, timeout_s: float = 15.0
    ) -> None:
        self.size = f"{width}x{height}x{depth}"
        self.timeout_s = timeout_s
        self.process: subprocess.Popen[bytes] | None = None
        self.display = ""
        self.log: IO[bytes] | None = None

    def start(self) -> str:
        binary = shutil.which("Xvfb")
        if binary is None:
            raise XServerError("Xvfb is not installed (apt-get install xvfb)")
        read_end, write_end = os.pipe()
        log = tempfile.TemporaryFile()  # noqa: SIM115 (kept open while Xvfb runs, closed in stop())
        self.log = log
        self.process = subprocess.Popen(
            [binary, "-displayfd", str(write_end), "-screen", "0", self.size, "-nolisten", "tcp"],
            pass_fds=(write_end,),
            stdout=log,
            stderr=log,
        )
        os.close(write_end)
        deadline = time.monotonic() + self.timeout_s
        number = b""
        with os.fdopen(read_end, "rb") as pipe:
            while time.monotonic() < deadline and not number.endswith(b"\n"):
                chunk = pipe.read(1)
                if not chunk:
                    break
                number += chunk
        if not number.strip().isdigit():
            self.stop()
            log.seek(0)
            raise XServerError(f"Xvfb did not start: {log.read().decode(errors='replace')[-400:]}")
        self.display = f":{number.strip().decode()}"
        return self.display

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self.log is not None:
            self.log.close()
            self.log = None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()


def display_environment(display: str, base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment that sends Qt to ``display`` through the xcb platform plugin."""
    env = dict(os.environ if base is None else base)
    env["DISPLAY"] = display
    env["QT_QPA_PLATFORM"] = "xcb"
    env.pop("WAYLAND_DISPLAY", None)
    env.setdefault("XDG_RUNTIME_DIR", str(Path(tempfile.gettempdir())))
    return env
