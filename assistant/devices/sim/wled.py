"""A stand-in for a stock WLED board on a serial port: it speaks WLED's JSON API.

WLED reads JSON state objects from its serial port (115200 baud) and answers
``{"v":true}`` with ``{"state":...,"info":...}``. This simulator implements the part
the seat-light adapter uses: ``on``, ``bri`` and per-LED colours through
``seg.i`` (``[index, "RRGGBB", ...]`` or ``[start, stop, "RRGGBB", ...]``).
"""

from __future__ import annotations

import json
from typing import Any

from assistant.devices.protocol import DeviceKind

WLED_VERSION = "0.14.4"


class WledCore:
    kind = DeviceKind.WLED

    def __init__(self, uid: str, leds: int = 8) -> None:
        self.uid = uid
        self.led_count = leds
        self._out = bytearray()
        self._text = ""
        self.boot()

    def boot(self) -> None:
        self.on = False
        self.brightness = 128
        self.colours = ["000000"] * self.led_count
        self._text = ""

    def receive(self, data: bytes) -> None:
        self._text += data.decode("ascii", errors="replace")
        decoder = json.JSONDecoder()
        while True:
            start = self._text.find("{")
            if start < 0:
                self._text = ""
                return
            try:
                value, end = decoder.raw_decode(self._text, start)
            except json.JSONDecodeError:
                if "\n" in self._text[start:]:  # a broken object: drop up to the newline
                    self._text = self._text[self._text.index("\n", start) + 1 :]
                    continue
                self._text = self._text[start:]
                return
            self._text = self._text[end:]
            if isinstance(value, dict):
                self._apply(value)

    def poll(self) -> None:
        pass

    def take_output(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def _apply(self, request: dict[str, Any]) -> None:
        if isinstance(request.get("on"), bool):
            self.on = request["on"]
        if isinstance(request.get("bri"), int):
            self.brightness = max(0, min(255, request["bri"]))
        segment = request.get("seg")
        if isinstance(segment, dict) and isinstance(segment.get("i"), list):
            self._set_individual(segment["i"])
        if request.get("v") is True:
            answer = {
                "state": {"on": self.on, "bri": self.brightness, "seg": [{"id": 0}]},
                "info": {
                    "ver": WLED_VERSION,
                    "leds": {"count": self.led_count},
                    "name": "WLED",
                    "mac": self.uid.lower(),
                },
            }
            self._out += json.dumps(answer, separators=(",", ":")).encode("ascii") + b"\n"

    def _set_individual(self, items: list[Any]) -> None:
        position = 0
        numbers: list[int] = []
        for item in items:
            if isinstance(item, int):
                numbers.append(item)
                continue
            if not isinstance(item, str):
                return
            if len(numbers) == 2:
                start, stop = numbers
            elif len(numbers) == 1:
                start, stop = numbers[0], numbers[0] + 1
            else:
                start, stop = position, position + 1
            for index in range(max(0, start), min(self.led_count, stop)):
                self.colours[index] = item.upper()
            position = stop
            numbers = []
