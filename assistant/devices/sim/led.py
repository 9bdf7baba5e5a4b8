"""Simulated LED token controller: one light per seat."""

from __future__ import annotations

from assistant.devices.protocol import Command, DeviceKind, EventKind, Nak, SeatLight
from assistant.devices.sim.core import DeviceCore, Outcome

_LETTERS = {light.value for light in SeatLight}


class LedCore(DeviceCore):
    """Commands: ``SET <seat> <letter>``, ``ALL <letters>``, ``BRIGHT <0-255>``, ``STATUS``."""

    kind = DeviceKind.LED

    def reset_device(self) -> None:
        self.lights = [SeatLight.OFF] * self.seats
        self.brightness = 64

    def shown(self) -> list[SeatLight]:
        """What the strip shows now: the host's lights, or all LOST in the safe state."""
        return [SeatLight.LOST] * self.seats if self.safe else list(self.lights)

    def press(self, button: int = 1) -> None:
        """The dealer pressed a button on the controller."""
        self.raise_event(EventKind.BUTTON, str(button))

    def execute(self, command: Command) -> Outcome:
        verb, args = command.verb, command.args
        if verb == "SET":
            if (
                len(args) != 2
                or not args[0].isdigit()
                or int(args[0]) >= self.seats
                or args[1] not in _LETTERS
            ):
                return Nak.ARGS
            self.lights[int(args[0])] = SeatLight(args[1])
            return ()
        if verb == "ALL":
            if len(args) != 1 or len(args[0]) > self.seats or set(args[0]) - _LETTERS:
                return Nak.ARGS
            letters = args[0].ljust(self.seats, SeatLight.OFF.value)
            self.lights = [SeatLight(letter) for letter in letters]
            return ()
        if verb == "BRIGHT":
            if len(args) != 1 or not args[0].isdigit() or int(args[0]) > 255:
                return Nak.ARGS
            self.brightness = int(args[0])
            return ()
        if verb == "STATUS" and not args:
            letters = "".join(light.value for light in self.lights)
            return (letters, str(self.brightness))
        return Nak.UNKNOWN
