"""Find devices by asking every candidate port who it is, never by a fixed path.

Candidates are the ports ``serial.tools.list_ports`` reports, the pseudo-terminals of
running simulators (see ``registry``) and any ports named by the user. Each is probed in
parallel: first with the line protocol's HELLO (repeated for ~2.5 s, because opening an
Uno-class port resets the board), then, if nothing answered, with WLED's ``{"v":true}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed

from assistant.devices.link import DeviceError, DeviceIdentity, DeviceLink, LinkTiming
from assistant.devices.registry import registered_ports
from assistant.devices.wled import WledLights

Found = DeviceLink | WledLights


def candidate_ports(extra: Iterable[str] = ()) -> list[str]:
    """Serial ports worth probing, without duplicates, in a stable order."""
    from serial.tools import list_ports

    ports: list[str] = []
    for info in list_ports.comports():
        ports.append(info.device)
    ports += registered_ports()
    ports += list(extra)
    return list(dict.fromkeys(ports))


def probe(port: str, timing: LinkTiming | None = None, wled: bool = True) -> Found | None:
    """An open connection to the device on ``port``, or None if nothing we know answers."""
    try:
        return DeviceLink.open(port, timing)
    except DeviceError:
        pass
    if not wled:
        return None
    try:
        return WledLights.open(port)
    except DeviceError:
        return None


def discover_each(
    ports: Iterable[str] | None = None, timing: LinkTiming | None = None, wled: bool = True
) -> Iterator[Found]:
    """Open connections to devices as they answer (a silent port does not hold up the
    others); the caller closes those it does not keep and should consume the iterator."""
    candidates = list(ports) if ports is not None else candidate_ports()
    if not candidates:
        return
    pool = ThreadPoolExecutor(max_workers=min(8, len(candidates)))
    try:
        futures = [pool.submit(probe, port, timing, wled) for port in candidates]
        for future in as_completed(futures):
            found = future.result()
            if found is not None:
                yield found
    finally:
        pool.shutdown(wait=True)


def discover(
    ports: Iterable[str] | None = None, timing: LinkTiming | None = None, wled: bool = True
) -> list[Found]:
    """Open connections to every device found; the caller closes those it does not keep."""
    return list(discover_each(ports, timing, wled))


def identity_of(found: Found) -> DeviceIdentity:
    identity = found.identity
    assert identity is not None  # a link is only returned after its handshake
    return identity
