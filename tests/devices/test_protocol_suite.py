"""The protocol suite: every test runs against the Python simulators and the firmware."""

from __future__ import annotations

import time

import pytest

from assistant.devices.led import LedController
from assistant.devices.link import DeviceLink, DeviceRefused
from assistant.devices.protocol import (
    Event,
    EventKind,
    Nak,
    NegativeReply,
    Reply,
    SeatLight,
    crc16,
)
from assistant.devices.shuffler import Shuffler

from .conftest import LED_PEERS, PEERS, SHUFFLER_PEERS, RawPort
from .peers import Peer, wait_for


@pytest.mark.parametrize("peer", PEERS, indirect=True)
def test_hello_names_kind_firmware_uid_and_seats(peer: Peer) -> None:
    link = DeviceLink.open(peer.path, peer.timing)
    try:
        identity = link.identity
        assert identity is not None
        assert identity.kind is peer.kind
        assert identity.uid == peer.uid
        assert identity.firmware == "1.0"
        assert identity.seats == 8
    finally:
        link.close()


@pytest.mark.parametrize("peer", PEERS, indirect=True)
def test_damaged_line_gets_crc_nak_and_nothing_runs(raw: RawPort) -> None:
    raw.send_raw(b"2 PING*0000\n")
    assert raw.answer(2) == NegativeReply(None, Nak.CRC)
    assert raw.ask("3 PING") == Reply(3, ())


@pytest.mark.parametrize("peer", PEERS, indirect=True)
def test_lowercase_crc_digits_are_accepted(raw: RawPort) -> None:
    raw.send_raw(b"4 PING*%04x\n" % crc16(b"4 PING"))
    assert raw.answer(4) == Reply(4, ())


@pytest.mark.parametrize("peer", PEERS, indirect=True)
def test_unknown_command_gets_unknown_nak(raw: RawPort) -> None:
    assert raw.ask("5 FROB 1") == NegativeReply(5, Nak.UNKNOWN)


@pytest.mark.parametrize("peer", PEERS, indirect=True)
def test_over_long_line_is_discarded_with_long_nak(raw: RawPort) -> None:
    raw.send_raw(b"6 " + b"X" * 200 + b"\n")
    assert raw.answer(6) == NegativeReply(None, Nak.LONG)
    assert raw.ask("7 PING") == Reply(7, ())


@pytest.mark.parametrize("peer", PEERS, indirect=True)
def test_boot_event_repeats_until_acknowledged(raw: RawPort) -> None:
    boots = [m for m in raw.lines(1.3) if isinstance(m, Event) and m.kind is EventKind.BOOT]
    assert len(boots) >= 2, "an unacknowledged event must repeat about every 0.5 s"
    assert raw.ask(f"8 ACK {boots[0].event_id}") == Reply(8, ())
    raw.lines(0.1)
    after = [m for m in raw.lines(1.2) if isinstance(m, Event)]
    assert after == []


@pytest.mark.parametrize("peer", PEERS, indirect=True)
def test_quiet_host_puts_device_in_safe_state_with_an_event(raw: RawPort) -> None:
    for message in raw.lines(0.6):
        if isinstance(message, Event):
            raw.ask(f"9 ACK {message.event_id}")
            break
    events = [m for m in raw.lines(4.0) if isinstance(m, Event)]
    assert any(event.kind is EventKind.SAFE for event in events)


@pytest.mark.parametrize("peer", LED_PEERS, indirect=True)
def test_led_lights_round_trip_and_bad_arguments_are_refused(raw: RawPort) -> None:
    assert raw.ask("10 ALL TIRZFWL-") == Reply(10, ())
    assert raw.ask("11 SET 2 T") == Reply(11, ())
    assert raw.ask("12 STATUS") == Reply(12, ("TITZFWL-", "64"))
    assert raw.ask("13 SET 8 T") == NegativeReply(13, Nak.ARGS)
    assert raw.ask("14 SET 1 Q") == NegativeReply(14, Nak.ARGS)
    assert raw.ask("15 ALL TTTTTTTTT") == NegativeReply(15, Nak.ARGS)
    assert raw.ask("16 ALL TW") == Reply(16, ())
    assert raw.ask("17 STATUS") == Reply(17, ("TW------", "64"))


@pytest.mark.parametrize("peer", SHUFFLER_PEERS, indirect=True)
def test_resent_deal_line_is_answered_from_cache_not_dealt_twice(raw: RawPort) -> None:
    assert raw.ask("20 SHUFFLE", 3.0) == Reply(20, ("52",))
    first = raw.ask("21 DEAL 3 U", 2.0)
    assert isinstance(first, Reply) and first.values[1] == "51"
    again = raw.ask("21 DEAL 3 U", 2.0)
    assert again == first
    assert raw.ask("22 STATUS") == Reply(22, ("READY", "51", "1"))


@pytest.mark.parametrize("peer", SHUFFLER_PEERS, indirect=True)
def test_commands_during_a_deal_get_busy_nak(raw: RawPort) -> None:
    assert raw.ask("23 SHUFFLE", 3.0) == Reply(23, ("52",))
    raw.send_body("24 DEAL 1 D")
    assert raw.ask("25 STATUS") == NegativeReply(25, Nak.BUSY)
    assert raw.ask("24 DEAL 1 D") == NegativeReply(24, Nak.BUSY)
    deal = raw.answer(24, 2.0)
    assert isinstance(deal, Reply) and deal.values[1] == "51"


@pytest.mark.parametrize("peer", SHUFFLER_PEERS, indirect=True)
def test_deal_from_an_unshuffled_shoe_is_refused_empty(raw: RawPort) -> None:
    assert raw.ask("26 DEAL 0 U") == NegativeReply(26, Nak.EMPTY)
    assert raw.ask("27 DEAL 9 U") == NegativeReply(27, Nak.ARGS)


@pytest.mark.parametrize("peer", SHUFFLER_PEERS, indirect=True)
def test_shuffler_client_deals_a_whole_shoe_of_distinct_cards(peer: Peer) -> None:
    link = DeviceLink.open(peer.path, peer.timing)
    try:
        shuffler = Shuffler(link)
        assert shuffler.shuffle() == 52
        cards = [shuffler.deal(seat % 4, face_up=seat % 2 == 0) for seat in range(12)]
        assert len({card.card for card in cards}) == 12
        assert [card.left for card in cards] == list(range(51, 39, -1))
        assert shuffler.status().dealt == 12
    finally:
        link.close()


@pytest.mark.parametrize("peer", SHUFFLER_PEERS, indirect=True)
def test_jam_refuses_the_deal_raises_an_event_and_clears(peer: Peer) -> None:
    link = DeviceLink.open(peer.path, peer.timing)
    try:
        shuffler = Shuffler(link)
        faults: list[EventKind] = []
        shuffler.fault_listeners.append(faults.append)
        shuffler.shuffle()
        peer.trigger()
        time.sleep(0.1 * peer.slowdown)
        with pytest.raises(DeviceRefused) as refused:
            shuffler.deal(2, face_up=True)
        assert refused.value.reason is Nak.JAM
        assert shuffler.status().state == "JAM"
        assert wait_for(lambda: EventKind.JAM in faults, 2.0 * peer.slowdown)
        shuffler.clear()
        assert shuffler.deal(2, face_up=True).left == 51  # the jammed card was not dealt
    finally:
        link.close()


@pytest.mark.parametrize("peer", LED_PEERS, indirect=True)
def test_led_button_is_delivered_once_and_lights_survive_reboot(peer: Peer) -> None:
    link = DeviceLink.open(peer.path, peer.timing)
    try:
        lights = LedController(link)
        presses: list[int] = []
        lights.button_listeners.append(presses.append)
        wanted = [SeatLight.TURN, SeatLight.FOLDED, SeatLight.WAITING]
        lights.show(wanted)
        peer.trigger()
        assert wait_for(lambda: presses == [1], 3.0 * peer.slowdown)
        time.sleep(1.2 * peer.slowdown)  # repeats of an acknowledged event would show here
        assert presses == [1]
        assert lights.status()[0][:3] == wanted
    finally:
        link.close()
