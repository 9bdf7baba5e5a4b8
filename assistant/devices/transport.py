"""The one byte-pipe interface devices are spoken to through, and its pyserial version."""

from __future__ import annotations

import contextlib
from typing import Protocol

from assistant.devices.protocol import BAUD


class TransportGone(OSError):
    """The port went away (unplugged, pty closed)."""


class Transport(Protocol):
    """A bidirectional byte stream to one device."""

    name: str

    def write(self, data: bytes) -> None:
        """Send bytes; raise ``TransportGone`` if the port is gone."""

    def read(self, limit: int) -> bytes:
        """Wait briefly for up to ``limit`` bytes; ``b""`` if none; ``TransportGone`` if gone."""
        ...

    def close(self) -> None: ...


class SerialTransport:
    """A pyserial port (a USB serial adapter or a pseudo-terminal).

    Opening an Uno-class board resets it, and pyserial drops whatever was buffered, so
    callers must not expect a banner: they say HELLO until the device answers.
    """

    def __init__(self, port: str, baud: int = BAUD, read_timeout: float = 0.02) -> None:
        import serial

        self.name = port
        self._serial_error: type[Exception] = serial.SerialException
        try:
            self._port = serial.Serial(port, baud, timeout=read_timeout, write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError) as error:
            raise TransportGone(f"cannot open {port}: {error}") from None

    def write(self, data: bytes) -> None:
        try:
            self._port.write(data)
        except (self._serial_error, OSError, TypeError) as error:
            raise TransportGone(f"{self.name}: write failed: {error}") from None

    def read(self, limit: int) -> bytes:
        try:
            waiting = self._port.in_waiting
            data: bytes = self._port.read(max(1, min(limit, waiting)))
        except (self._serial_error, OSError, TypeError) as error:
            # pyserial raises TypeError when the port is closed under a blocked read
            raise TransportGone(f"{self.name}: read failed: {error}") from None
        return data

    def close(self) -> None:
        with contextlib.suppress(self._serial_error, OSError):
            self._port.close()
