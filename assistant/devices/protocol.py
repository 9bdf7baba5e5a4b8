"""The dealer-assistant serial line protocol (see ``docs/devices-protocol.md``).

Every line is printable ASCII ending in ``\\n``; the last five characters before the
newline are ``*`` and four upper-case hex digits of CRC-16/CCITT-FALSE (poly 0x1021,
init 0xFFFF) over every byte before the ``*``::

    host -> device   12 DEAL 3 U*8C1F
    device -> host   12 OK 7h 44*52E0        reply to command 12
                     12 NAK BUSY*7A10        negative reply to command 12
                     ! NAK CRC*E5A4          a line arrived damaged (its number unknown)
                     ! EVT 5 JAM*4B2C        device event 5, repeated until ``ACK 5``

This module is pure: framing, parsing and the shared vocabulary. No I/O.
"""

from __future__ import annotations

import binascii
import enum
from dataclasses import dataclass

#: Longest line either side may send, newline included. Longer input is discarded.
MAX_LINE = 96
#: Command numbers run 1..SEQ_MAX and wrap back to 1; 0 is never used.
SEQ_MAX = 255
#: The "line" number the device uses for lines that answer no particular command.
UNSOLICITED = "!"
#: Serial speed of the custom firmware. WLED uses 115200.
BAUD = 57600


class FrameError(ValueError):
    """A received line is not a well-formed, intact protocol line."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE, the same as avr-libc's ``_crc_xmodem_update`` from 0xFFFF.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    return binascii.crc_hqx(data, 0xFFFF)


def frame(body: str) -> bytes:
    """Encode one line: ``body`` plus ``*CRC`` and a newline.

    >>> frame("1 HELLO")
    b'1 HELLO*7DF0\\n'
    """
    raw = body.encode("ascii")
    if any(byte < 0x20 or byte > 0x7E or byte == 0x2A for byte in raw):
        raise ValueError(f"line body must be printable ASCII without '*': {body!r}")
    if len(raw) + 6 > MAX_LINE:
        raise ValueError(f"line too long ({len(raw) + 6} > {MAX_LINE} bytes): {body!r}")
    return raw + b"*%04X\n" % crc16(raw)


def unframe(line: bytes) -> str:
    """Check and strip the CRC of one received line (with or without its newline).

    >>> unframe(b"1 HELLO*7DF0\\r\\n")
    '1 HELLO'
    >>> unframe(b"1 HELLO*7DF1")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    FrameError: bad CRC in b'1 HELLO*7DF1'
    """
    raw = line.rstrip(b"\r\n")
    star = raw.rfind(b"*")
    if star < 0 or len(raw) - star != 5:
        raise FrameError(f"no CRC field in {raw!r}")
    body, digits = raw[:star], raw[star + 1 :]
    if any(byte < 0x20 or byte > 0x7E for byte in body):
        raise FrameError(f"non-printable byte in {raw!r}")
    try:
        claimed = int(digits.decode("ascii"), 16)
    except (UnicodeDecodeError, ValueError):
        raise FrameError(f"CRC field is not hex in {raw!r}") from None
    if claimed != crc16(body):
        raise FrameError(f"bad CRC in {raw!r}")
    return body.decode("ascii")


class DeviceKind(enum.Enum):
    """What a device is, as named in its HELLO reply."""

    LED = "LED"
    SHUFFLER = "SHUFFLER"
    WLED = "WLED"  # a stock WLED board driven through its JSON API, not this protocol


class Nak(enum.Enum):
    """Reasons for a negative reply."""

    CRC = "CRC"  # the line was damaged; resend it
    LONG = "LONG"  # the line was longer than MAX_LINE; it was discarded
    UNKNOWN = "UNKNOWN"  # no such command on this device
    ARGS = "ARGS"  # the command's arguments are wrong
    BUSY = "BUSY"  # still working (on this or another command); resend the same line later
    JAM = "JAM"  # the shuffler is jammed; clear it first
    EMPTY = "EMPTY"  # the shoe is empty; shuffle first


class EventKind(enum.Enum):
    """Things a device reports on its own; each repeats until the host acknowledges it."""

    BOOT = "BOOT"  # the device (re)started: the host re-sends its whole state
    JAM = "JAM"
    EMPTY = "EMPTY"
    BUTTON = "BUTTON"  # argument: button number
    SAFE = "SAFE"  # the host went quiet and the device went to its safe state


class SeatLight(enum.Enum):
    """What a seat's light shows. The value is the letter used on the wire."""

    OFF = "-"  # empty seat
    WAITING = "I"  # in the hand, not their decision
    TURN = "T"  # their decision now
    REFUSED = "R"  # refused one card so far (one more refusal freezes them)
    FROZEN = "Z"
    FOLDED = "F"
    WINNER = "W"
    LOST = "L"  # the assistant lost track of the game


@dataclass(frozen=True, slots=True)
class Command:
    """A host-to-device line: ``<seq> <VERB> [args]``."""

    seq: int
    verb: str
    args: tuple[str, ...] = ()

    def body(self) -> str:
        return " ".join((str(self.seq), self.verb, *self.args))

    def encode(self) -> bytes:
        return frame(self.body())


@dataclass(frozen=True, slots=True)
class Reply:
    """``<seq> OK [values]``: the command ran; values are command specific."""

    seq: int
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NegativeReply:
    """``<seq> NAK <reason>`` or, with seq None, ``! NAK <reason>`` for a damaged line."""

    seq: int | None
    reason: Nak


@dataclass(frozen=True, slots=True)
class Event:
    """``! EVT <id> <KIND> [args]``: acknowledge with ``ACK <id>``."""

    event_id: int
    kind: EventKind
    args: tuple[str, ...] = ()


DeviceMessage = Reply | NegativeReply | Event


def parse_seq(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= SEQ_MAX:
        raise FrameError(f"bad sequence number {text!r}")
    return int(text)


def parse_command(body: str) -> Command:
    """Parse the body of a host line (CRC already checked).

    >>> parse_command("7 SET 2 T")
    Command(seq=7, verb='SET', args=('2', 'T'))
    """
    words = body.split(" ")
    if len(words) < 2 or not words[1]:
        raise FrameError(f"not a command: {body!r}")
    return Command(parse_seq(words[0]), words[1], tuple(words[2:]))


def parse_device_line(body: str) -> DeviceMessage:
    """Parse the body of a device line (CRC already checked).

    >>> parse_device_line("3 OK LED 1.0 A1B2C3D4 8")
    Reply(seq=3, values=('LED', '1.0', 'A1B2C3D4', '8'))
    >>> parse_device_line("! EVT 2 BUTTON 1")
    Event(event_id=2, kind=<EventKind.BUTTON: 'BUTTON'>, args=('1',))
    """
    words = body.split(" ")
    if len(words) < 2:
        raise FrameError(f"not a device line: {body!r}")
    try:
        if words[0] == UNSOLICITED:
            if words[1] == "NAK" and len(words) == 3:
                return NegativeReply(None, Nak(words[2]))
            if words[1] == "EVT" and len(words) >= 4:
                return Event(parse_seq(words[2]), EventKind(words[3]), tuple(words[4:]))
            raise FrameError(f"unknown unsolicited line {body!r}")
        seq = parse_seq(words[0])
        if words[1] == "OK":
            return Reply(seq, tuple(words[2:]))
        if words[1] == "NAK" and len(words) == 3:
            return NegativeReply(seq, Nak(words[2]))
    except ValueError as error:  # unknown enum value
        raise FrameError(f"unknown word in {body!r}: {error}") from None
    raise FrameError(f"not a device line: {body!r}")


def next_seq(seq: int) -> int:
    """The number after ``seq``: 1..255 then 1 again."""
    return seq % SEQ_MAX + 1


class LineSplitter:
    """Collects received bytes into lines; drops over-long lines (reported as ``None``)."""

    def __init__(self, limit: int = MAX_LINE) -> None:
        self._limit = limit
        self._buffer = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[bytes | None]:
        """Return the complete lines in ``data``; ``None`` stands for a discarded long line."""
        lines: list[bytes | None] = []
        for byte in data:
            if byte == 0x0A:
                lines.append(None if self._overflow else bytes(self._buffer))
                self._buffer.clear()
                self._overflow = False
            elif not self._overflow:
                self._buffer.append(byte)
                if len(self._buffer) >= self._limit:
                    self._overflow = True
                    self._buffer.clear()
        return lines
