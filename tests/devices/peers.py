"""Real peers the protocol suite runs against: the Python simulators and the firmware."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Protocol

from assistant.devices.link import LinkTiming
from assistant.devices.protocol import DeviceKind
from assistant.devices.sim import LedCore, PtySimulator, ShufflerCore

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"


class Peer(Protocol):
    kind: DeviceKind
    uid: str
    timing: LinkTiming
    #: how many host seconds one device second takes (1 for the Python simulators)
    slowdown: float

    @property
    def path(self) -> str: ...

    def unplug(self) -> None: ...

    def replug(self) -> None: ...

    def trigger(self) -> None:
        """Press the device's input: the LED controller's button, the shuffler's jam sensor."""

    def stop(self) -> None: ...


class PythonPeer:
    slowdown = 1.0

    def __init__(self, kind: DeviceKind, uid: str, *, deal_s: float = 0.05) -> None:
        self.kind = kind
        self.uid = uid
        self.timing = LinkTiming()
        core: LedCore | ShufflerCore
        if kind is DeviceKind.LED:
            core = LedCore(uid)
        else:
            core = ShufflerCore(uid, deal_s=deal_s, shuffle_s=0.1, seed=7)
        self.core = core
        self.sim = PtySimulator(core)
        self.sim.start()

    @property
    def path(self) -> str:
        return self.sim.path

    def unplug(self) -> None:
        self.sim.unplug()

    def replug(self) -> None:
        self.sim.replug()

    def trigger(self) -> None:
        if isinstance(self.core, LedCore):
            self.core.press(1)
        else:
            self.core.jam_next = True

    def stop(self) -> None:
        self.sim.stop()


def firmware_toolchain_missing() -> str | None:
    """Why the firmware cannot be built and run here, or None if it can."""
    for tool in ("avr-gcc", "avr-objcopy", "cc", "make"):
        if shutil.which(tool) is None:
            return f"{tool} not found: install gcc-avr avr-libc simavr libsimavr-dev"
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        return "simavr headers not found: install libsimavr-dev"
    if not Path("/usr/lib/avr/include/avr/io.h").exists():
        return "avr-libc not found: install avr-libc"
    return None


def build_firmware() -> None:
    subprocess.run(["make", "-s", "-C", str(FIRMWARE)], check=True, capture_output=True)


class FirmwarePeer:
    """The ATmega328P firmware running under simavr, its UART bridged to a pty."""

    def __init__(self, kind: DeviceKind, uid: str, slowdown: float, reset_on_open: float = 0.0) -> None:
        self.kind = kind
        self.reset_on_open = reset_on_open
        self.uid = uid
        self.slowdown = slowdown
        self.timing = LinkTiming().scaled(max(1.0, slowdown) * 2)
        name = "led" if kind is DeviceKind.LED else "shuffler"
        self._hex = FIRMWARE / "build" / f"{name}.hex"
        self._process: subprocess.Popen[str] | None = None
        self._path = ""
        self._start()

    @property
    def path(self) -> str:
        return self._path

    def _start(self) -> None:
        harness = FIRMWARE / "build" / "uart_pty_harness"
        process = subprocess.Popen(
            [str(harness), str(self._hex), "--uid", self.uid]
            + (["--reset-on-open", str(self.reset_on_open)] if self.reset_on_open else []),
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        if not line.startswith("PTY "):
            process.kill()
            raise RuntimeError(f"harness did not report its pty: {line!r}")
        self._path = line.split(" ", 1)[1]
        self._process = process

    def unplug(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=5)
            self._process = None

    def replug(self) -> None:
        self.unplug()
        self._start()

    def trigger(self) -> None:
        assert self._process is not None
        os.kill(self._process.pid, signal.SIGUSR1)

    def stop(self) -> None:
        self.unplug()


def wait_for(condition: object, timeout: float, interval: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(interval)
    return bool(callable(condition) and condition())
