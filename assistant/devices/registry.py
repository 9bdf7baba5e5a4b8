"""Where simulated devices announce their pseudo-terminals, so discovery can find them.

Real USB devices are found through ``serial.tools.list_ports``; a pty is not listed there,
so each running simulator writes ``<uid>.port`` (kind, path, pid) into a runtime folder:
``$DEALER_ASSISTANT_DEVICES``, else ``$XDG_RUNTIME_DIR/dealer-assistant-devices``, else
``/tmp/dealer-assistant-devices-<uid>``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def registry_dir() -> Path:
    explicit = os.environ.get("DEALER_ASSISTANT_DEVICES")
    if explicit:
        return Path(explicit)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "dealer-assistant-devices"
    return Path("/tmp") / f"dealer-assistant-devices-{os.getuid()}"


def register_port(uid: str, kind: str, path: str) -> None:
    folder = registry_dir()
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{uid}.tmp"
    temporary.write_text(f"{kind} {path} {os.getpid()}\n", encoding="ascii")
    temporary.replace(folder / f"{uid}.port")


def forget_port(uid: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        (registry_dir() / f"{uid}.port").unlink()


def registered_ports() -> list[str]:
    """Paths of simulated devices whose simulator process is still running."""
    folder = registry_dir()
    paths: list[str] = []
    if not folder.is_dir():
        return paths
    for entry in sorted(folder.glob("*.port")):
        try:
            _kind, path, pid = entry.read_text(encoding="ascii").split()
            os.kill(int(pid), 0)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                entry.unlink()  # stale: its simulator is gone
            continue
        if os.path.exists(path):
            paths.append(path)
    return paths
