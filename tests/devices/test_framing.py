"""Framing and parsing of protocol lines, without any device."""

from __future__ import annotations

import binascii

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assistant.devices.protocol import (
    MAX_LINE,
    Command,
    Event,
    EventKind,
    FrameError,
    LineSplitter,
    Nak,
    NegativeReply,
    Reply,
    crc16,
    frame,
    next_seq,
    parse_command,
    parse_device_line,
    unframe,
)

BODY_CHARS = st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="*")


def test_crc_is_ccitt_false_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"123456789") == binascii.crc_hqx(b"123456789", 0xFFFF)


@given(st.text(BODY_CHARS, min_size=1, max_size=MAX_LINE - 6))
def test_any_printable_body_survives_frame_and_unframe(body: str) -> None:
    assert unframe(frame(body)) == body


@given(
    st.text(BODY_CHARS, min_size=1, max_size=40),
    st.integers(min_value=0),
    st.integers(min_value=1, max_value=255),
)
def test_any_single_byte_change_is_detected(body: str, where: int, delta: int) -> None:
    line = bytearray(frame(body).rstrip(b"\n"))
    index = where % len(line)
    line[index] = (line[index] + delta) % 256
    changed = bytes(line)
    hex_case_only = (
        index >= len(line) - 4 and changed[index : index + 1].upper() == frame(body)[index : index + 1]
    )
    if not hex_case_only:
        with pytest.raises(FrameError):
            unframe(changed)


@pytest.mark.parametrize(
    "line",
    [b"", b"1 PING", b"1 PING*12", b"1 PING*GGGG", b"1 P\x01NG*0000", b"1 PING*00000"],
)
def test_malformed_lines_are_frame_errors(line: bytes) -> None:
    with pytest.raises(FrameError):
        unframe(line)


def test_frame_refuses_bodies_it_could_not_send() -> None:
    with pytest.raises(ValueError):
        frame("1 A*B")
    with pytest.raises(ValueError):
        frame("1 " + "X" * MAX_LINE)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("3 OK", Reply(3, ())),
        ("3 OK 7h 44", Reply(3, ("7h", "44"))),
        ("255 NAK BUSY", NegativeReply(255, Nak.BUSY)),
        ("! NAK CRC", NegativeReply(None, Nak.CRC)),
        ("! EVT 9 JAM", Event(9, EventKind.JAM, ())),
    ],
)
def test_device_lines_parse(body: str, message: object) -> None:
    assert parse_device_line(body) == message


@pytest.mark.parametrize(
    "body", ["0 OK", "256 OK", "x OK", "3 NAK FROB", "! EVT 0 JAM", "! EVT 1 FROB", "! HUH", "3"]
)
def test_bad_device_lines_are_frame_errors(body: str) -> None:
    with pytest.raises(FrameError):
        parse_device_line(body)


def test_commands_round_trip_and_sequence_wraps_past_255_to_1() -> None:
    command = Command(17, "DEAL", ("3", "U"))
    assert parse_command(unframe(command.encode())) == command
    assert next_seq(254) == 255 and next_seq(255) == 1


def test_splitter_joins_chunks_and_flags_over_long_lines() -> None:
    splitter = LineSplitter(limit=8)
    assert splitter.feed(b"ab") == []
    assert splitter.feed(b"c\nde") == [b"abc"]
    assert splitter.feed(b"f" * 20 + b"\nxy\n") == [None, b"xy"]
