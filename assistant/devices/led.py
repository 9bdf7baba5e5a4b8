"""Host-side client of the LED token controller (custom firmware or simulator)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from assistant.devices.link import DeviceError, DeviceIdentity, DeviceLink
from assistant.devices.protocol import DeviceKind, Event, EventKind, SeatLight


class LedController:
    """Seat lights over the line protocol. Keeps the wanted lights and re-sends them when
    the device reboots or comes back from its safe state."""

    def __init__(self, link: DeviceLink) -> None:
        if link.identity is None or link.identity.kind is not DeviceKind.LED:
            raise DeviceError(f"{link.transport.name} is not an LED controller")
        self.link = link
        self.identity: DeviceIdentity = link.identity
        self._wanted: str | None = None
        self._lock = threading.Lock()
        self.button_listeners: list[Callable[[int], None]] = []
        link.add_event_listener(self._on_event)

    @property
    def seats(self) -> int:
        return self.identity.seats

    def show(self, lights: Sequence[SeatLight]) -> None:
        """Set every seat's light at once (extra seats beyond the device's are an error)."""
        if len(lights) > self.seats:
            raise ValueError(f"{len(lights)} seats but the controller has {self.seats} lights")
        letters = "".join(light.value for light in lights).ljust(self.seats, SeatLight.OFF.value)
        with self._lock:
            self._wanted = letters
            self.link.request("ALL", letters)

    def set_seat(self, seat: int, light: SeatLight) -> None:
        self.link.request("SET", str(seat), light.value)

    def brightness(self, level: int) -> None:
        if not 0 <= level <= 255:
            raise ValueError(f"brightness must be 0..255, not {level}")
        self.link.request("BRIGHT", str(level))

    def status(self) -> tuple[list[SeatLight], int]:
        letters, level = self.link.request("STATUS")[:2]
        return [SeatLight(letter) for letter in letters], int(level)

    def close(self) -> None:
        self.link.close()

    def _on_event(self, event: Event) -> None:
        if event.kind in (EventKind.BOOT, EventKind.SAFE):
            with self._lock:
                if self._wanted is not None:
                    self.link.request("ALL", self._wanted)
        elif event.kind is EventKind.BUTTON and event.args and event.args[0].isdigit():
            for listener in list(self.button_listeners):
                listener(int(event.args[0]))
