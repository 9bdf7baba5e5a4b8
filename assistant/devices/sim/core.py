"""The device side of the protocol, shared by the simulated LED controller and shuffler.

It is the reference the firmware in ``firmware/`` follows: one command at a time, the
last reply cached so that a resent identical line is answered without running twice,
events repeated until acknowledged, and a safe state when the host goes quiet. Time
comes from an injected clock so tests can drive it.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from assistant.devices.protocol import (
    SEQ_MAX,
    Command,
    DeviceKind,
    EventKind,
    FrameError,
    LineSplitter,
    Nak,
    frame,
    next_seq,
    parse_command,
    unframe,
)

#: A queued event is sent again this often until the host acknowledges it.
EVENT_REPEAT_S = 0.5
#: With no intact line from the host for this long, the device goes to its safe state.
SAFE_AFTER_S = 3.0
#: Events waiting beyond this many are dropped (the firmware has the same small queue).
EVENT_QUEUE = 8
FIRMWARE_VERSION = "1.0"


@dataclass(frozen=True, slots=True)
class Busy:
    """An outcome that takes motor time: ``finish`` runs when ``seconds`` have passed."""

    seconds: float
    finish: Callable[[], tuple[str, ...] | Nak]


Outcome = tuple[str, ...] | Nak | Busy


@dataclass(slots=True)
class _Pending:
    key: tuple[int, str]
    done_at: float
    finish: Callable[[], tuple[str, ...] | Nak]


class DeviceCore:
    """Protocol engine of one device; subclasses add their commands in ``execute``."""

    kind: DeviceKind

    def __init__(self, uid: str, seats: int = 8, clock: Callable[[], float] = time.monotonic):
        if not 1 <= seats <= 10:
            raise ValueError(f"seats must be 1..10, not {seats}")
        self.uid = uid
        self.seats = seats
        self._clock = clock
        self._splitter = LineSplitter()
        self._out = bytearray()
        self.boot()

    # -- lifecycle ---------------------------------------------------------------
    def boot(self) -> None:
        """Power-on state: empty caches, safe state, a BOOT event queued."""
        self._splitter = LineSplitter()
        self._cache: tuple[tuple[int, str], bytes] | None = None
        self._pending: _Pending | None = None
        self._events: deque[tuple[int, EventKind, tuple[str, ...]]] = deque()
        self._event_id = 0
        self._event_sent_at: float | None = None
        self._last_host = self._clock()
        self.safe = True
        self.executed: list[Command] = []  # every command actually run, for tests
        self.reset_device()
        self.raise_event(EventKind.BOOT)

    def reset_device(self) -> None:
        """Reset the device-specific state (subclasses)."""

    def enter_safe(self) -> None:
        """The host went quiet (subclasses)."""

    def leave_safe(self) -> None:
        """The host is back (subclasses)."""

    def execute(self, command: Command) -> Outcome:
        """Run a device-specific command (subclasses)."""
        return Nak.UNKNOWN

    def capabilities(self) -> tuple[str, ...]:
        return (str(self.seats),)

    # -- I/O ---------------------------------------------------------------------
    def raise_event(self, kind: EventKind, *args: str) -> None:
        if len(self._events) >= EVENT_QUEUE:
            return
        self._event_id = next_seq(self._event_id)
        self._events.append((self._event_id, kind, args))
        if len(self._events) == 1:
            self._event_sent_at = None

    def receive(self, data: bytes) -> None:
        """Bytes arrived from the host."""
        for line in self._splitter.feed(data):
            self._handle_line(line)
        self.poll()

    def poll(self) -> None:
        """Let time pass: finish motor work, repeat events, watch for a quiet host."""
        now = self._clock()
        if self._pending is not None and now >= self._pending.done_at:
            pending, self._pending = self._pending, None
            self._reply(pending.key, pending.finish())
        if not self.safe and now - self._last_host > SAFE_AFTER_S:
            self.safe = True
            self.enter_safe()
            self.raise_event(EventKind.SAFE)
        if self._events and (self._event_sent_at is None or now - self._event_sent_at >= EVENT_REPEAT_S):
            event_id, kind, args = self._events[0]
            self._send(" ".join(("!", "EVT", str(event_id), kind.value, *args)))
            self._event_sent_at = now

    def take_output(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    # -- protocol ----------------------------------------------------------------
    def _send(self, body: str) -> None:
        self._out += frame(body)

    def _handle_line(self, line: bytes | None) -> None:
        if line is None:
            self._send("! NAK LONG")
            return
        try:
            body = unframe(line)
            command = parse_command(body)
        except FrameError:
            self._send("! NAK CRC")
            return
        self._last_host = self._clock()
        if self.safe:
            self.safe = False
            self.leave_safe()
        key = (command.seq, body)
        if self._pending is not None:
            self._send(f"{command.seq} NAK {Nak.BUSY.value}")
            return
        if self._cache is not None and self._cache[0] == key:
            self._out += self._cache[1]
            return
        outcome = self._run(command)
        if isinstance(outcome, Busy):
            self._pending = _Pending(key, self._clock() + outcome.seconds, outcome.finish)
        else:
            self._reply(key, outcome)

    def _reply(self, key: tuple[int, str], outcome: tuple[str, ...] | Nak) -> None:
        seq = key[0]
        if isinstance(outcome, Nak):
            line = frame(f"{seq} NAK {outcome.value}")
        else:
            line = frame(" ".join((str(seq), "OK", *outcome)))
        self._cache = (key, line)
        self._out += line

    def _run(self, command: Command) -> Outcome:
        self.executed.append(command)
        verb, args = command.verb, command.args
        if verb == "HELLO" and not args:
            self._cache = None
            return (self.kind.value, FIRMWARE_VERSION, self.uid, *self.capabilities())
        if verb == "PING" and not args:
            return ()
        if verb == "ACK":
            if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= SEQ_MAX:
                return Nak.ARGS
            if self._events and self._events[0][0] == int(args[0]):
                self._events.popleft()
                self._event_sent_at = None
            return ()
        return self.execute(command)

    def pending_events(self) -> list[tuple[int, EventKind, tuple[str, ...]]]:
        return list(self._events)
