"""Seat lights on a stock WLED board through its JSON API over serial."""

from __future__ import annotations

import pytest

from assistant.devices.link import DeviceGone, DeviceTimeout
from assistant.devices.protocol import DeviceKind, SeatLight
from assistant.devices.sim import LedCore, PtySimulator
from assistant.devices.sim.wled import WledCore
from assistant.devices.wled import COLOURS, WledLights

from .peers import wait_for


def test_wled_handshake_names_version_mac_and_seats_from_led_count() -> None:
    with PtySimulator(WledCore("AABBCCDDEEFF", leds=12), register=False) as simulator:
        lights = WledLights.open(simulator.path, leds_per_seat=2)
        try:
            identity = lights.identity
            assert identity.kind is DeviceKind.WLED
            assert (identity.uid, identity.firmware, identity.seats) == ("AABBCCDDEEFF", "0.14.4", 6)
        finally:
            lights.close()


def test_wled_seat_colours_follow_show() -> None:
    core = WledCore("A1", leds=8)
    with PtySimulator(core, register=False) as simulator:
        lights = WledLights.open(simulator.path, leds_per_seat=2)
        try:
            lights.show([SeatLight.TURN, SeatLight.FOLDED, SeatLight.WINNER])
            expected = [COLOURS[SeatLight.TURN]] * 2 + [COLOURS[SeatLight.FOLDED]] * 2
            expected += [COLOURS[SeatLight.WINNER]] * 2 + [COLOURS[SeatLight.OFF]] * 2
            assert wait_for(lambda: core.colours == expected and core.on, 2.0)
            with pytest.raises(ValueError):
                lights.show([SeatLight.TURN] * 5)
            simulator.unplug()

            def refused() -> bool:  # the kernel hangs the pty up a moment later
                try:
                    lights.show([SeatLight.LOST])
                except DeviceGone:
                    return True
                return False

            assert wait_for(refused, 2.0)
            assert not lights.alive
        finally:
            lights.close()


def test_a_protocol_device_is_not_mistaken_for_wled() -> None:
    with PtySimulator(LedCore("0000AAAA"), register=False) as simulator, pytest.raises(DeviceTimeout):
        WledLights.open(simulator.path, timeout=0.6)
