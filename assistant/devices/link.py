"""The host side of the protocol: handshake, numbered commands with resends, events.

A ``DeviceLink`` owns one transport. A reader thread turns bytes into messages; a service
thread acknowledges events (delivering each once), sends keepalives and notices when the
device is gone. ``request`` sends a command and resends the identical line until it gets
an answer, so a command is never run twice: the device answers a repeat from its cache.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from assistant.devices.protocol import (
    Command,
    DeviceKind,
    Event,
    EventKind,
    FrameError,
    LineSplitter,
    Nak,
    NegativeReply,
    Reply,
    next_seq,
    parse_device_line,
    unframe,
)
from assistant.devices.transport import Transport, TransportGone

_log = logging.getLogger(__name__)


class DeviceError(Exception):
    """A device problem, worded for the dealer."""


class DeviceTimeout(DeviceError):
    """The device did not answer."""


class DeviceGone(DeviceError):
    """The device was unplugged or its port closed."""


class DeviceRefused(DeviceError):
    """The device answered a command with a negative reply."""

    def __init__(self, message: str, reason: Nak) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class LinkTiming:
    """How patient the host is. ``scaled`` stretches it for slower-than-real-time peers."""

    reply_timeout: float = 0.25  # per attempt
    max_attempts: int = 12  # attempts that got no answer (BUSY answers do not count)
    command_deadline: float = 10.0  # overall, BUSY waits included
    busy_retry: float = 0.05
    hello_window: float = 2.5  # an Uno-class board needs ~2 s to boot after the port opens
    hello_interval: float = 0.2
    keepalive: float = 1.0

    def scaled(self, factor: float) -> LinkTiming:
        return replace(
            self,
            reply_timeout=self.reply_timeout * factor,
            command_deadline=self.command_deadline * factor,
            busy_retry=self.busy_retry * factor,
            hello_window=self.hello_window * factor,
            hello_interval=self.hello_interval * factor,
            keepalive=self.keepalive * factor,
        )


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """A device's answer to HELLO."""

    kind: DeviceKind
    firmware: str
    uid: str
    seats: int
    port: str
    extra: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"{self.kind.value} {self.uid} firmware {self.firmware}, {self.seats} seats"


_GONE = object()
_GARBLED = object()
_STOP = object()


@dataclass(slots=True)
class LinkStats:
    sent_lines: int = 0
    resends: int = 0
    garbled_lines: int = 0
    events: int = 0


EventListener = Callable[[Event], None]
GoneListener = Callable[[str], None]


class DeviceLink:
    """One open connection to a protocol device."""

    def __init__(self, transport: Transport, timing: LinkTiming | None = None) -> None:
        self.transport = transport
        self.timing = timing or LinkTiming()
        self.stats = LinkStats()
        self.identity: DeviceIdentity | None = None
        self.fault: str | None = None
        self._seq = 0
        self._lock = threading.Lock()
        self._inbox: queue.Queue[object] = queue.Queue()
        self._events: queue.Queue[object] = queue.Queue()
        self._event_listeners: list[EventListener] = []
        self._backlog: list[Event] = []
        self._listener_lock = threading.Lock()
        self._gone_listeners: list[GoneListener] = []
        self._last_event_id: int | None = None
        self._last_sent = time.monotonic()
        self._closed = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, name="device-reader", daemon=True)
        self._service = threading.Thread(target=self._service_loop, name="device-service", daemon=True)
        self._reader.start()

    @classmethod
    def open(cls, port: str, timing: LinkTiming | None = None) -> DeviceLink:
        """Open ``port`` and shake hands; raises ``DeviceError`` if no device answers."""
        from assistant.devices.transport import SerialTransport

        try:
            transport = SerialTransport(port)
        except TransportGone as error:
            raise DeviceGone(str(error)) from None
        link = cls(transport, timing)
        try:
            link.hello()
        except DeviceError:
            link.close()
            raise
        return link

    # -- public API --------------------------------------------------------------
    @property
    def alive(self) -> bool:
        return self.fault is None and not self._closed.is_set()

    def add_event_listener(self, listener: EventListener) -> None:
        """Call ``listener`` with each new event; the first listener also gets the events
        that arrived before it (such as the BOOT of a device found by discovery)."""
        with self._listener_lock:
            backlog, self._backlog = self._backlog, []
            self._event_listeners.append(listener)
        for event in backlog:
            self._deliver(listener, event)

    def add_gone_listener(self, listener: GoneListener) -> None:
        self._gone_listeners.append(listener)

    def hello(self) -> DeviceIdentity:
        """Say HELLO until the device answers (it may be rebooting after the port opened)."""
        deadline = time.monotonic() + self.timing.hello_window
        with self._lock:
            while True:
                self._check_usable()
                self._seq = next_seq(self._seq)
                line = Command(self._seq, "HELLO").encode()
                self._write(line)
                answer = self._await(
                    self._seq,
                    min(self.timing.hello_interval, max(0.0, deadline - time.monotonic())),
                )
                if isinstance(answer, Reply):
                    self.identity = self._parse_identity(answer.values)
                    break
                if time.monotonic() >= deadline:
                    raise DeviceTimeout(f"no device answered HELLO on {self.transport.name}")
        if not self._service.is_alive():
            self._service.start()
        return self.identity

    def request(self, verb: str, *args: str) -> tuple[str, ...]:
        """Run one command; resend the identical line until answered. Returns the OK values."""
        with self._lock:
            self._check_usable()
            self._seq = next_seq(self._seq)
            seq = self._seq
            line = Command(seq, verb, args).encode()
            deadline = time.monotonic() + self.timing.command_deadline
            silent_attempts = 0
            while True:
                self._write(line)
                answer = self._await(seq, self.timing.reply_timeout)
                if isinstance(answer, Reply):
                    return answer.values
                if isinstance(answer, NegativeReply) and answer.seq == seq:
                    if answer.reason is not Nak.BUSY:
                        raise DeviceRefused(
                            f"{self._who()} refused {verb}: {answer.reason.value}", answer.reason
                        )
                    time.sleep(self.timing.busy_retry)
                else:  # no answer, a garbled answer, or "your line was damaged"
                    silent_attempts += 1
                if silent_attempts >= self.timing.max_attempts or time.monotonic() > deadline:
                    self._fail(f"{self._who()} stopped answering ({verb})")
                    raise DeviceTimeout(f"{self._who()} did not answer {verb}")
                self.stats.resends += 1

    def close(self, wait: bool = True) -> None:
        """Close the port; with ``wait``, also wait for the link's threads to end."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._events.put(_STOP)
        self.transport.close()
        if not wait:
            return
        for thread in (self._reader, self._service):
            if thread.is_alive() and thread is not threading.current_thread():
                thread.join(timeout=2)

    # -- internals ---------------------------------------------------------------
    def _who(self) -> str:
        if self.identity is None:
            return self.transport.name
        return f"{self.identity.kind.value.lower()} {self.identity.uid}"

    def _check_usable(self) -> None:
        if self._closed.is_set():
            raise DeviceGone(f"{self._who()}: link closed")
        if self.fault is not None:
            raise DeviceGone(self.fault)

    def _write(self, line: bytes) -> None:
        try:
            self.transport.write(line)
        except TransportGone as error:
            self._fail(f"{self._who()} unplugged ({error})")
            raise DeviceGone(self.fault or str(error)) from None
        self.stats.sent_lines += 1
        self._last_sent = time.monotonic()

    def _await(self, seq: int, timeout: float) -> Reply | NegativeReply | None:
        """The answer to ``seq``; None after ``timeout`` or as soon as a damaged line shows."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                message = self._inbox.get(timeout=remaining)
            except queue.Empty:
                return None
            if message is _GONE:
                self._inbox.put(_GONE)
                raise DeviceGone(self.fault or f"{self._who()} unplugged")
            if message is _GARBLED:
                return None
            if isinstance(message, NegativeReply) and message.seq is None:
                return None
            if isinstance(message, Reply | NegativeReply) and message.seq == seq:
                return message
            # a stale answer to an earlier attempt: ignore

    def _parse_identity(self, values: tuple[str, ...]) -> DeviceIdentity:
        try:
            kind = DeviceKind(values[0])
            return DeviceIdentity(
                kind, values[1], values[2], int(values[3]), self.transport.name, tuple(values[4:])
            )
        except (IndexError, ValueError):
            raise DeviceError(f"{self.transport.name}: malformed HELLO answer {values}") from None

    def _fail(self, reason: str) -> None:
        if self.fault is not None or self._closed.is_set():
            return
        self.fault = reason
        self._inbox.put(_GONE)
        self._events.put(_STOP)
        for listener in list(self._gone_listeners):
            listener(reason)

    def _read_loop(self) -> None:
        splitter = LineSplitter()
        while not self._closed.is_set():
            try:
                data = self.transport.read(256)
            except TransportGone as error:
                if not self._closed.is_set():
                    self._fail(f"{self._who()} unplugged ({error})")
                return
            for line in splitter.feed(data):
                self._dispatch(line)

    def _dispatch(self, line: bytes | None) -> None:
        if line is None:
            self.stats.garbled_lines += 1
            self._inbox.put(_GARBLED)
            return
        try:
            message = parse_device_line(unframe(line))
        except FrameError:
            if line.strip():
                self.stats.garbled_lines += 1
                self._inbox.put(_GARBLED)
            return
        if isinstance(message, Event):
            self._events.put(message)
        else:
            self._inbox.put(message)

    def _service_loop(self) -> None:
        while not self._closed.is_set() and self.fault is None:
            try:
                item = self._events.get(timeout=self.timing.keepalive / 4)
            except queue.Empty:
                item = None
            if item is _STOP:
                return
            try:
                if isinstance(item, Event):
                    self._handle_event(item)
                elif time.monotonic() - self._last_sent >= self.timing.keepalive:
                    self.request("PING")
            except DeviceError:
                continue  # the fault is recorded and listeners told; the loop ends

    def _handle_event(self, event: Event) -> None:
        self.request("ACK", str(event.event_id))
        fresh = event.kind is EventKind.BOOT or event.event_id != self._last_event_id
        self._last_event_id = event.event_id
        if not fresh:
            return
        self.stats.events += 1
        with self._listener_lock:
            listeners = list(self._event_listeners)
            if not listeners:
                self._backlog.append(event)
        for listener in listeners:
            self._deliver(listener, event)

    @staticmethod
    def _deliver(listener: EventListener, event: Event) -> None:
        try:
            listener(event)
        except Exception:  # a broken listener must not stop acknowledgements
            _log.exception("device event listener failed on %s", event)
