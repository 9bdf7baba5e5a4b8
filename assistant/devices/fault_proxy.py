"""A man-in-the-middle for serial links that drops and corrupts bytes, for fault tests.

It opens the device's port and offers the host a new pseudo-terminal (``path``); every
byte passing either way is dropped with probability ``damage / 2`` or replaced by a random
other byte with probability ``damage / 2``.
"""

from __future__ import annotations

import contextlib
import os
import pty
import random
import select
import threading
import tty
from dataclasses import dataclass


@dataclass(slots=True)
class DamageCount:
    passed: int = 0
    dropped: int = 0
    corrupted: int = 0


class FaultProxy:
    """Relay between ``device_path`` and a new pty at ``self.path``, damaging bytes."""

    def __init__(self, device_path: str, damage: float, seed: int | None = None) -> None:
        if not 0.0 <= damage < 1.0:
            raise ValueError(f"damage must be in [0, 1), not {damage}")
        self.damage = damage
        self._random = random.Random(seed)
        self._device = os.open(device_path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self._device)
        self._master, self._slave = pty.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self.path = os.ttyname(self._slave)
        self.to_device = DamageCount()
        self.to_host = DamageCount()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._relay, name="fault-proxy", daemon=True)
        self._thread.start()

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        for fd in (self._device, self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _mangle(self, data: bytes, count: DamageCount) -> bytes:
        out = bytearray()
        for byte in data:
            roll = self._random.random()
            if roll < self.damage / 2:
                count.dropped += 1
            elif roll < self.damage:
                count.corrupted += 1
                out.append((byte + self._random.randrange(1, 256)) % 256)
            else:
                count.passed += 1
                out.append(byte)
        return bytes(out)

    def _relay(self) -> None:
        pairs = {
            self._device: (self._master, self.to_host),
            self._master: (self._device, self.to_device),
        }
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select(list(pairs), [], [], 0.01)
            except (OSError, ValueError):
                return
            for source in ready:
                target, count = pairs[source]
                try:
                    data = os.read(source, 4096)
                except BlockingIOError:
                    continue
                except OSError:
                    return  # one side is gone: so is the link
                if data:
                    with contextlib.suppress(BlockingIOError):
                        os.write(target, self._mangle(data, count))
