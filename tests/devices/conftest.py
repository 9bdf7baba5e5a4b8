from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

from assistant.devices.protocol import (
    DeviceKind,
    DeviceMessage,
    Event,
    FrameError,
    LineSplitter,
    frame,
    parse_device_line,
    unframe,
)

from .peers import FirmwarePeer, Peer, PythonPeer, build_firmware, firmware_toolchain_missing

_firmware_state: dict[str, object] = {}


@pytest.fixture(autouse=True)
def private_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Simulators announce themselves in a folder of this test's own."""
    folder = tmp_path / "registry"
    monkeypatch.setenv("DEALER_ASSISTANT_DEVICES", str(folder))
    return folder


def firmware_ready() -> None:
    """Build the firmware once; skip loudly without the toolchain, fail if it breaks."""
    if "error" not in _firmware_state:
        missing = firmware_toolchain_missing()
        if missing is None:
            try:
                build_firmware()
            except Exception as exc:  # a build failure is a test failure, not a skip
                _firmware_state["error"] = f"BUILD FAILED: {exc}"
            else:
                _firmware_state["error"] = None
        else:
            _firmware_state["error"] = f"SKIPPED LOUDLY: AVR toolchain absent ({missing})"
    error = _firmware_state["error"]
    if isinstance(error, str) and error.startswith("BUILD FAILED"):
        pytest.fail(error)
    if isinstance(error, str):
        pytest.skip(error)


PEERS = [
    pytest.param(("python", DeviceKind.LED), id="python-led"),
    pytest.param(("python", DeviceKind.SHUFFLER), id="python-shuffler"),
    pytest.param(("firmware", DeviceKind.LED), id="firmware-led", marks=pytest.mark.simavr),
    pytest.param(("firmware", DeviceKind.SHUFFLER), id="firmware-shuffler", marks=pytest.mark.simavr),
]

LED_PEERS = [p for p in PEERS if p.values[0][1] is DeviceKind.LED]  # type: ignore[index]
SHUFFLER_PEERS = [p for p in PEERS if p.values[0][1] is DeviceKind.SHUFFLER]  # type: ignore[index]


def make_peer(backend: str, kind: DeviceKind) -> Peer:
    uid = "C0FFEE01" if kind is DeviceKind.LED else "C0FFEE02"
    if backend == "python":
        return PythonPeer(kind, uid)
    firmware_ready()
    return FirmwarePeer(kind, uid, slowdown=1.0)


@pytest.fixture
def peer(request: pytest.FixtureRequest) -> Iterator[Peer]:
    backend, kind = request.param
    device = make_peer(backend, kind)
    try:
        yield device
    finally:
        device.stop()


class RawPort:
    """Speak raw protocol lines to a peer, as someone at a serial terminal would."""

    def __init__(self, path: str, slowdown: float) -> None:
        self.port = serial.Serial(path, 57600, timeout=0.02)
        self.slowdown = slowdown
        self._splitter = LineSplitter()
        self.events: list[Event] = []

    def close(self) -> None:
        self.port.close()

    def send_body(self, body: str) -> None:
        self.port.write(frame(body))

    def send_raw(self, data: bytes) -> None:
        self.port.write(data)

    def lines(self, seconds: float) -> list[DeviceMessage]:
        """Every intact device line in the next ``seconds`` of device time."""
        found: list[DeviceMessage] = []
        deadline = time.monotonic() + seconds * self.slowdown
        while time.monotonic() < deadline:
            for line in self._splitter.feed(self.port.read(256)):
                if line is None:
                    continue
                try:
                    found.append(parse_device_line(unframe(line)))
                except FrameError:
                    continue
        return found

    def answer(self, seq: int, seconds: float = 1.0) -> DeviceMessage:
        """The first reply or NAK carrying ``seq``, or a damaged-line NAK."""
        deadline = time.monotonic() + seconds * self.slowdown
        while time.monotonic() < deadline:
            for line in self._splitter.feed(self.port.read(256)):
                if line is None:
                    continue
                try:
                    message = parse_device_line(unframe(line))
                except FrameError:
                    continue  # the tail of a line cut short when the port was opened
                if isinstance(message, Event):
                    self.events.append(message)
                    continue
                if message.seq in (seq, None):
                    return message
        raise AssertionError(f"no answer to line {seq} within {seconds} s")

    def hello(self) -> DeviceMessage:
        """Say HELLO until answered: the device may still be booting."""
        for _attempt in range(10):
            self.send_body("1 HELLO")
            try:
                return self.answer(1, 0.3)
            except AssertionError:
                continue
        raise AssertionError("the device never answered HELLO")

    def ask(self, body: str, seconds: float = 1.0) -> DeviceMessage:
        self.send_body(body)
        return self.answer(int(body.split(" ")[0]), seconds)


@pytest.fixture
def raw(peer: Peer) -> Iterator[RawPort]:
    port = RawPort(peer.path, peer.slowdown)
    try:
        port.hello()
        yield port
    finally:
        port.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    error = _firmware_state.get("error")
    if isinstance(error, str):
        terminalreporter.write_sep("!", "FIRMWARE TESTS DID NOT RUN", red=True, bold=True)
        terminalreporter.write_line(error, red=True, bold=True)
        terminalreporter.write_line(
            "CI must install: apt-get install gcc-avr avr-libc simavr libsimavr-dev", red=True
        )
