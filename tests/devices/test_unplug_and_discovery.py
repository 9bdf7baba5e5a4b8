"""Unplugging mid-command, recovery when the device returns, and discovery by HELLO."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from assistant.devices.discovery import candidate_ports, discover, identity_of
from assistant.devices.led import LedController
from assistant.devices.link import DeviceGone, DeviceLink, LinkTiming
from assistant.devices.manager import DeviceManager, Health, Role
from assistant.devices.protocol import DeviceKind, EventKind, SeatLight
from assistant.devices.shuffler import Shuffler
from assistant.devices.sim import LedCore, PtySimulator, ShufflerCore
from assistant.devices.sim.wled import WledCore

from .conftest import SHUFFLER_PEERS, firmware_ready
from .peers import FirmwarePeer, Peer, wait_for


@pytest.mark.parametrize("peer", SHUFFLER_PEERS, indirect=True)
def test_unplug_mid_deal_is_reported_and_recovered_when_device_returns(peer: Peer) -> None:
    manager = DeviceManager(timing=peer.timing, retry_s=0.2)
    try:
        manager.connect([peer.path])
        assert manager.status(Role.SHUFFLER).health is Health.CONNECTED
        shuffler = manager.shuffler
        assert shuffler is not None
        shuffler.shuffle()
        errors: list[BaseException] = []

        def deal() -> None:
            try:
                shuffler.deal(0, face_up=True)
            except BaseException as error:
                errors.append(error)

        worker = threading.Thread(target=deal)
        worker.start()
        time.sleep(0.03 * peer.slowdown)  # the feed motor is running
        peer.unplug()
        worker.join(timeout=10 * peer.slowdown)
        assert errors and isinstance(errors[0], DeviceGone)
        assert wait_for(lambda: manager.status(Role.SHUFFLER).health is Health.LOST, 3.0)
        assert "unplugged" in manager.status(Role.SHUFFLER).message
        peer.replug()
        manager.extra_ports = [peer.path]
        assert wait_for(
            lambda: manager.status(Role.SHUFFLER).health is Health.CONNECTED,
            6.0 * peer.slowdown,
        )
        again = manager.shuffler
        assert again is not None and again is not shuffler
        assert identity_of(again.link).uid == peer.uid
        assert wait_for(lambda: again.rebooted, 3.0 * peer.slowdown)  # it must be reloaded
        assert again.shuffle() == 52
        assert again.deal(1, face_up=False).left == 51
    finally:
        manager.close()


def test_lights_follow_the_manager_across_a_reboot_and_replug() -> None:
    core = LedCore("1EDC0DE1")
    with PtySimulator(core) as simulator:
        manager = DeviceManager(retry_s=0.2)
        try:
            manager.connect([simulator.path])
            wanted = [SeatLight.TURN, SeatLight.FROZEN, SeatLight.FOLDED]
            assert manager.show_lights(wanted)
            assert core.shown()[:3] == wanted
            simulator.unplug()
            assert not manager.show_lights(wanted) or wait_for(
                lambda: manager.status(Role.LIGHTS).health is Health.LOST, 3.0
            )
            assert wait_for(lambda: manager.status(Role.LIGHTS).health is Health.LOST, 3.0)
            simulator.replug()  # the registry tells discovery where it is now
            assert wait_for(lambda: manager.status(Role.LIGHTS).health is Health.CONNECTED, 6.0)
            assert wait_for(lambda: core.shown()[:3] == wanted, 3.0)
        finally:
            manager.close()


def test_discovery_finds_simulators_by_hello_and_ignores_silent_ports() -> None:
    led = PtySimulator(LedCore("D15C0001"))
    shuffler = PtySimulator(ShufflerCore("D15C0002"))
    wled = PtySimulator(WledCore("D15C0003"), register=False)
    silent = PtySimulator(LedCore("D15C0004"), register=False)
    for simulator in (led, shuffler, wled, silent):
        simulator.start()
    silent.unplug()
    try:
        ports = candidate_ports([wled.path])
        assert led.path in ports and shuffler.path in ports
        found = discover([*ports, "/dev/does-not-exist"])
        kinds = {identity_of(device).uid: identity_of(device).kind for device in found}
        for device in found:
            device.close()
        assert kinds["D15C0001"] is DeviceKind.LED
        assert kinds["D15C0002"] is DeviceKind.SHUFFLER
        assert kinds["D15C0003"] is DeviceKind.WLED
        assert "D15C0004" not in kinds
    finally:
        for simulator in (led, shuffler, wled, silent):
            simulator.stop()


def test_cli_devices_list_names_a_running_simulator(private_registry: object) -> None:
    with PtySimulator(ShufflerCore("C11C11C1")) as simulator:
        result = subprocess.run(
            [sys.executable, "-m", "assistant", "devices", "list", "--no-wled"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert result.returncode == 0, result.stderr
    assert f"{simulator.path}\tSHUFFLER C11C11C1 firmware 1.0, 8 seats" in result.stdout


def test_cli_send_to_a_missing_port_is_one_clear_error_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "assistant", "devices", "send", "/dev/no-such-port", "PING"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert "cannot open /dev/no-such-port" in result.stderr


def test_link_to_a_closed_port_raises_device_gone_at_once() -> None:
    with PtySimulator(ShufflerCore("60E60E01")) as simulator:
        link = DeviceLink.open(simulator.path)
        shuffler = Shuffler(link)
        simulator.unplug()
        started = time.monotonic()
        with pytest.raises(DeviceGone):
            shuffler.status()
        assert time.monotonic() - started < 1.0
        link.close()


def test_device_that_stops_answering_is_reported_lost_and_refound_when_it_recovers() -> None:
    timing = LinkTiming(reply_timeout=0.1, max_attempts=3)
    with PtySimulator(LedCore("4A4A4A4A")) as simulator:
        manager = DeviceManager(timing=timing, retry_s=0.2)
        try:
            manager.connect([simulator.path])
            simulator.hang()
            started = time.monotonic()
            assert not manager.show_lights([SeatLight.TURN])
            assert time.monotonic() - started < 2.0
            status = manager.status(Role.LIGHTS)
            assert status.health is Health.LOST and "stopped answering" in status.message
            simulator.hang(False)
            assert wait_for(lambda: manager.status(Role.LIGHTS).health is Health.CONNECTED, 6.0)
        finally:
            manager.close()


def test_keepalive_holds_the_device_out_of_its_safe_state() -> None:
    core = LedCore("4EE9A11E")
    with PtySimulator(core) as simulator:
        link = DeviceLink.open(simulator.path)
        try:
            time.sleep(3.6)  # longer than the device's 3 s watchdog; the host says PING
            assert not core.safe
            assert all(kind is not EventKind.SAFE for _id, kind, _args in core.pending_events())
        finally:
            link.close()


def test_hello_keeps_asking_while_the_board_reboots_after_the_port_opens() -> None:
    core = ShufflerCore("B0075105")
    with PtySimulator(core) as simulator:
        simulator.hang()  # opening the port reset the board: its bootloader is running

        def boot_later() -> None:
            time.sleep(1.5)
            core.boot()
            simulator.hang(False)

        threading.Thread(target=boot_later, daemon=True).start()
        started = time.monotonic()
        link = DeviceLink.open(simulator.path)
        try:
            assert 1.4 < time.monotonic() - started < 2.6
            assert link.identity is not None and link.identity.uid == "B0075105"
            shuffler = Shuffler(link)
            assert wait_for(lambda: shuffler.rebooted, 2.0)
        finally:
            link.close()


def test_silent_port_is_not_a_device() -> None:
    with PtySimulator(LedCore("5113E770"), register=False) as simulator:
        simulator.hang()
        started = time.monotonic()
        assert discover([simulator.path], wled=True) == []
        assert time.monotonic() - started < 5.0


@pytest.mark.simavr
def test_opening_an_uno_port_resets_the_firmware_and_hello_waits_for_it() -> None:
    firmware_ready()
    peer = FirmwarePeer(DeviceKind.LED, "0DE5E701", slowdown=1.0, reset_on_open=1.5)

    def open_once() -> None:
        started = time.monotonic()
        link = DeviceLink.open(peer.path, peer.timing)
        try:
            assert 1.4 < time.monotonic() - started < 2.6
            assert link.identity is not None and link.identity.uid == "0DE5E701"
            booted: list[EventKind] = []
            link.add_event_listener(lambda event: booted.append(event.kind))
            LedController(link).show([SeatLight.WINNER])
            assert wait_for(lambda: EventKind.BOOT in booted, 2.0)
        finally:
            link.close()

    try:
        open_once()
        open_once()  # every opening resets the board again
    finally:
        peer.stop()


def test_a_shuffler_that_restarted_before_it_was_attached_still_asks_to_be_shuffled() -> None:
    """Its BOOT can reach the link before the manager attaches it (a slow machine, a
    busy search); the manager must still tell the dealer that the shoe needs a shuffle."""
    with PtySimulator(ShufflerCore("B0075106", deal_s=0.005, shuffle_s=0.01)) as simulator:
        link = DeviceLink.open(simulator.path)
        manager = DeviceManager(retry_s=0.2)
        try:
            assert wait_for(lambda: link.stats.events >= 1, 3.0)  # the BOOT waits in the link
            assert manager.attach(link)
            status = manager.status(Role.SHUFFLER)
            assert status.health is Health.CONNECTED
            assert status.message == "restarted: shuffle before dealing"
            shuffler = manager.shuffler
            assert shuffler is not None and shuffler.shuffle() == 52
        finally:
            manager.close()
