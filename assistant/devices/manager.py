"""Keeps the table's optional devices connected and says how they are.

The game never waits on this: a device that is missing or unplugged is reported through
``status`` and listeners, and a background thread looks for it again (by its unique id,
on whatever port it comes back) until it returns or the manager is closed.
"""

from __future__ import annotations

import enum
import functools
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from assistant.devices.discovery import (
    Found,
    candidate_ports,
    discover,
    identity_of,
    probe,
)
from assistant.devices.led import LedController
from assistant.devices.link import DeviceError, DeviceIdentity, DeviceLink, LinkTiming
from assistant.devices.protocol import DeviceKind, EventKind, SeatLight
from assistant.devices.shuffler import Shuffler
from assistant.devices.wled import WledLights

Lights = LedController | WledLights


class Role(enum.Enum):
    LIGHTS = "lights"
    SHUFFLER = "shuffler"


class Health(enum.Enum):
    ABSENT = "absent"  # never found
    CONNECTED = "connected"
    LOST = "lost"  # was connected, is not now: looking for it


@dataclass(frozen=True, slots=True)
class DeviceStatus:
    role: Role
    health: Health
    identity: DeviceIdentity | None
    message: str

    def describe(self) -> str:
        who = self.identity.describe() if self.identity else "none"
        return f"{self.role.value}: {self.health.value} ({who}) {self.message}".rstrip()


StatusListener = Callable[[DeviceStatus], None]


def _role_of(found: Found) -> Role:
    return Role.SHUFFLER if identity_of(found).kind is DeviceKind.SHUFFLER else Role.LIGHTS


class DeviceManager:
    """Holds at most one seat-light device and one shuffler."""

    def __init__(
        self,
        timing: LinkTiming | None = None,
        extra_ports: Iterable[str] = (),
        retry_s: float = 1.0,
    ) -> None:
        self.timing = timing or LinkTiming()
        self.extra_ports = list(extra_ports)
        self.retry_s = retry_s
        self.lights: Lights | None = None
        self.shuffler: Shuffler | None = None
        self._status = {role: DeviceStatus(role, Health.ABSENT, None, "") for role in Role}
        self._wanted_lights: list[SeatLight] | None = None
        self._listeners: list[StatusListener] = []
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="device-probe")
        self._probing: set[str] = set()
        self._watcher = threading.Thread(target=self._watch, name="device-manager", daemon=True)
        self._watcher.start()

    # -- public ------------------------------------------------------------------
    def add_listener(self, listener: StatusListener) -> None:
        self._listeners.append(listener)

    def status(self, role: Role) -> DeviceStatus:
        return self._status[role]

    def statuses(self) -> list[DeviceStatus]:
        return [self._status[role] for role in Role]

    def connect(self, ports: Sequence[str] | None = None) -> list[DeviceStatus]:
        """Look for devices now (all candidate ports, or just ``ports``) and attach them."""
        for found in discover(self._ports() if ports is None else ports, self.timing):
            if not self.attach(found):
                found.close()
        return self.statuses()

    def attach(self, found: Found) -> bool:
        """Use an opened device; False if a device of that role is already connected."""
        role = _role_of(found)
        with self._lock:
            if self._status[role].health is Health.CONNECTED:
                return False
            if role is Role.SHUFFLER:
                assert isinstance(found, DeviceLink)
                shuffler = Shuffler(found)
                shuffler.fault_listeners.append(self._on_shuffler_fault)
                self.shuffler = shuffler
            elif isinstance(found, DeviceLink):
                self.lights = LedController(found)
            else:
                self.lights = found
            if isinstance(found, DeviceLink):
                found.add_gone_listener(self._gone_listener(role))
            self._set(role, Health.CONNECTED, identity_of(found), "")
            if role is Role.SHUFFLER and self.shuffler is not None and self.shuffler.rebooted:
                # its BOOT came before it was attached (the link kept it for the first
                # listener), so no fault listener could say so yet
                self._on_shuffler_fault(EventKind.BOOT)
        if role is Role.LIGHTS and self._wanted_lights is not None:
            self.show_lights(self._wanted_lights)
        return True

    def reconnect(self) -> None:
        """Ask the watcher to look for missing devices right away (the dashboard's button)."""
        self._wake.set()

    def show_lights(self, lights: Sequence[SeatLight]) -> bool:
        """Show seat lights if a light device is connected; False (reported) otherwise."""
        self._wanted_lights = list(lights)
        device = self.lights
        if device is None or self._status[Role.LIGHTS].health is not Health.CONNECTED:
            return False
        try:
            device.show(lights[: device.seats])
        except DeviceError as error:
            self._lost(Role.LIGHTS, str(error))
            return False
        return True

    def close(self) -> None:
        self._closed.set()
        self._wake.set()
        self._watcher.join(timeout=5)
        self._pool.shutdown(wait=False, cancel_futures=True)
        for device in (self.lights, self.shuffler):
            if device is not None:
                device.close()

    # -- internals ---------------------------------------------------------------
    def _ports(self) -> list[str]:
        """Candidate ports, less those our connected devices hold open."""
        busy = {
            status.identity.port
            for status in self._status.values()
            if status.health is Health.CONNECTED and status.identity is not None
        }
        return [port for port in candidate_ports(self.extra_ports) if port not in busy]

    def _set(self, role: Role, health: Health, identity: DeviceIdentity | None, message: str) -> None:
        status = DeviceStatus(role, health, identity, message)
        self._status[role] = status
        for listener in list(self._listeners):
            listener(status)

    def _gone_listener(self, role: Role) -> Callable[[str], None]:
        def gone(reason: str) -> None:
            self._lost(role, reason)

        return gone

    def _lost(self, role: Role, reason: str) -> None:
        with self._lock:
            status = self._status[role]
            if status.health is not Health.CONNECTED:
                return
            self._set(role, Health.LOST, status.identity, reason)
            device = self.shuffler if role is Role.SHUFFLER else self.lights
            # Release the port now, so that no probe finds it still held; do not wait for
            # the link's threads (one of them may be the caller).
            if isinstance(device, LedController | Shuffler):
                device.link.close(wait=False)
            elif device is not None:
                device.close()
        self._wake.set()

    def _on_shuffler_fault(self, kind: EventKind) -> None:
        messages = {
            EventKind.JAM: "jammed: clear the card path, then press Clear",
            EventKind.EMPTY: "shoe empty: load and shuffle",
            EventKind.BOOT: "restarted: shuffle before dealing",
        }
        with self._lock:  # an event on the link's thread waits for an attach in progress
            status = self._status[Role.SHUFFLER]
            if status.health is Health.CONNECTED:
                self._set(Role.SHUFFLER, Health.CONNECTED, status.identity, messages.get(kind, ""))

    def _watch(self) -> None:
        """While a device is lost, probe every candidate port not already being probed;
        a silent port (its probe takes seconds) never holds up the others."""
        while not self._closed.is_set():
            self._wake.wait(self.retry_s)
            self._wake.clear()
            if self._closed.is_set():
                return
            lights = self.lights
            if isinstance(lights, WledLights) and not lights.alive:
                self._lost(Role.LIGHTS, lights.fault or "WLED unplugged")
            if not any(self._status[role].health is Health.LOST for role in Role):
                continue
            for port in self._ports():
                with self._lock:
                    if port in self._probing:
                        continue
                    self._probing.add(port)
                future = self._pool.submit(probe, port, self.timing)
                future.add_done_callback(functools.partial(self._probed, port))

    def _probed(self, port: str, future: Future[Found | None]) -> None:
        with self._lock:
            self._probing.discard(port)
        if future.cancelled():
            return
        device = future.result()
        if device is None:
            return
        role = _role_of(device)
        status = self._status[role]
        same = status.identity is None or status.identity.uid == identity_of(device).uid
        wanted = status.health is Health.LOST and same and not self._closed.is_set()
        if not (wanted and self.attach(device)):
            device.close()
