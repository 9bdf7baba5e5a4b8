"""Seat lights on a stock WLED board (ESP8266/ESP32) through WLED's JSON API over serial.

No custom firmware: WLED accepts JSON state objects on its USB serial port at 115200 baud
and answers ``{"v":true}`` with its state and info. Each seat gets ``leds_per_seat``
consecutive LEDs of segment 0, set with the per-LED ``seg.i`` API. WLED cannot blink a
single LED through that API, so states are told apart by colour alone.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from typing import Any

from assistant.devices.link import DeviceError, DeviceGone, DeviceIdentity, DeviceTimeout
from assistant.devices.protocol import DeviceKind, SeatLight
from assistant.devices.transport import SerialTransport, Transport, TransportGone

WLED_BAUD = 115200
MAX_SEATS = 10

#: Colours per state (WLED applies its own brightness on top).
COLOURS: dict[SeatLight, str] = {
    SeatLight.OFF: "000000",
    SeatLight.WAITING: "00003C",
    SeatLight.TURN: "FFFFFF",
    SeatLight.REFUSED: "FF7800",
    SeatLight.FROZEN: "00B4FF",
    SeatLight.FOLDED: "280000",
    SeatLight.WINNER: "00FF00",
    SeatLight.LOST: "FF0000",
}


def read_json_object(transport: Transport, timeout: float) -> dict[str, Any] | None:
    """The first JSON object the board sends within ``timeout`` (other bytes skipped)."""
    decoder = json.JSONDecoder()
    text = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text += transport.read(1024).decode("ascii", errors="replace")
        start = text.find("{")
        if start < 0:
            text = ""
            continue
        try:
            value, _end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
        text = text[start + 1 :]
    return None


class WledLights:
    """The same ``show(lights)`` interface as ``LedController``, for a WLED board."""

    def __init__(self, transport: Transport, timeout: float = 1.5, leds_per_seat: int = 1) -> None:
        if leds_per_seat < 1:
            raise ValueError("leds_per_seat must be at least 1")
        self.transport = transport
        self.leds_per_seat = leds_per_seat
        self._lock = threading.Lock()
        self.fault: str | None = None
        self.identity = self._handshake(timeout)

    @classmethod
    def open(cls, port: str, timeout: float = 1.5, leds_per_seat: int = 1) -> WledLights:
        try:
            transport = SerialTransport(port, WLED_BAUD)
        except TransportGone as error:
            raise DeviceGone(str(error)) from None
        try:
            return cls(transport, timeout, leds_per_seat)
        except DeviceError:
            transport.close()
            raise

    @property
    def seats(self) -> int:
        return self.identity.seats

    @property
    def alive(self) -> bool:
        return self.fault is None

    def _send(self, request: dict[str, Any]) -> None:
        try:
            self.transport.write(json.dumps(request, separators=(",", ":")).encode() + b"\n")
        except TransportGone as error:
            self.fault = f"WLED on {self.transport.name} unplugged ({error})"
            raise DeviceGone(self.fault) from None

    def _handshake(self, timeout: float) -> DeviceIdentity:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._send({"v": True})
            try:
                answer = read_json_object(self.transport, 0.3)
            except TransportGone as error:
                raise DeviceGone(f"{self.transport.name}: {error}") from None
            info = answer.get("info") if answer else None
            if isinstance(info, dict):
                leds = info.get("leds", {}).get("count", 0)
                seats = min(MAX_SEATS, int(leds) // self.leds_per_seat)
                if seats < 1:
                    raise DeviceError(f"WLED on {self.transport.name} reports no LEDs")
                uid = str(info.get("mac") or "wled").upper()
                return DeviceIdentity(
                    DeviceKind.WLED, str(info.get("ver", "?")), uid, seats, self.transport.name
                )
        raise DeviceTimeout(f"no WLED answered on {self.transport.name}")

    def show(self, lights: Sequence[SeatLight]) -> None:
        if len(lights) > self.seats:
            raise ValueError(f"{len(lights)} seats but WLED has room for {self.seats}")
        padded = list(lights) + [SeatLight.OFF] * (self.seats - len(lights))
        items: list[int | str] = []
        for seat, light in enumerate(padded):
            start = seat * self.leds_per_seat
            items += [start, start + self.leds_per_seat, COLOURS[light]]
        with self._lock:
            self._send({"on": True, "seg": {"id": 0, "i": items}})

    def brightness(self, level: int) -> None:
        if not 0 <= level <= 255:
            raise ValueError(f"brightness must be 0..255, not {level}")
        self._send({"bri": level})

    def close(self) -> None:
        self.transport.close()
