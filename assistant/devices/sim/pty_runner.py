"""Serve a simulated device on a pseudo-terminal, like a USB serial adapter would.

The simulator keeps the terminal's slave side open itself, so the host may open and close
the port as often as it likes; ``unplug()`` closes both sides, which the host sees as an
unplugged device, and ``replug()`` brings the device back (rebooted, on a new path).
"""

from __future__ import annotations

import contextlib
import errno
import os
import pty
import select
import threading
import tty
from pathlib import Path
from typing import Protocol

from assistant.devices.protocol import DeviceKind
from assistant.devices.registry import forget_port, register_port

_TICK_S = 0.005


class SimulatedDevice(Protocol):
    """What a simulator core offers the pty runner."""

    uid: str
    kind: DeviceKind

    def boot(self) -> None: ...

    def receive(self, data: bytes) -> None: ...

    def poll(self) -> None: ...

    def take_output(self) -> bytes: ...


class PtySimulator:
    """Runs ``core`` on a background thread behind a pty; ``path`` is the port to open."""

    def __init__(self, core: SimulatedDevice, *, link: Path | None = None, register: bool = True):
        self.core = core
        self._link = link
        self._register = register
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._master = -1
        self._slave = -1
        self._hung = False
        self.path = ""

    def __enter__(self) -> PtySimulator:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._open_pty()
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name=f"sim-{self.core.uid}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        self._close_pty()
        if self._register:
            forget_port(self.core.uid)

    def unplug(self) -> None:
        """Pull the cable: both ends of the pty close; the host's reads and writes fail."""
        with self._lock:
            self._close_pty()

    def replug(self) -> None:
        """Plug back in: the device powers up again (BOOT) on a fresh pty."""
        with self._lock:
            self._close_pty()
            self.core.boot()
            self._open_pty()

    def hang(self, hung: bool = True) -> None:
        """The device locks up (or recovers): input is swallowed, nothing is sent."""
        self._hung = hung

    @property
    def plugged(self) -> bool:
        return self._master >= 0

    def _open_pty(self) -> None:
        master, slave = pty.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.path = os.ttyname(slave)
        if self._link is not None:
            temporary = self._link.with_name(self._link.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
            temporary.symlink_to(self.path)
            temporary.replace(self._link)
        if self._register:
            register_port(self.core.uid, self.core.kind.value, self.path)

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = -1

    def _serve(self) -> None:
        while not self._stop.is_set():
            master = self._master
            if master < 0:
                self._stop.wait(_TICK_S)
                continue
            try:
                ready, _, _ = select.select([master], [], [], _TICK_S)
            except (OSError, ValueError):
                continue  # unplugged under us
            with self._lock:
                if self._master != master:
                    continue
                try:
                    if ready:
                        data = os.read(master, 4096)
                        if not self._hung:
                            self.core.receive(data)
                    if self._hung:
                        continue
                    self.core.poll()
                    output = self.core.take_output()
                    if output:
                        os.write(master, output)
                except BlockingIOError:
                    pass  # nobody reading: like a UART, the bytes are lost
                except OSError as error:
                    if error.errno not in (errno.EIO, errno.EAGAIN):
                        raise
