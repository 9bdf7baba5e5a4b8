"""``dealer-assistant devices``: find, simulate and talk to the table's serial devices."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "devices", help="USB serial devices: LED token controller, card shuffler, WLED"
    )
    commands = parser.add_subparsers(dest="devices_command", metavar="ACTION", required=True)

    listing = commands.add_parser("list", help="find devices by asking every port who it is")
    listing.add_argument("--port", action="append", default=[], help="also probe this port")
    listing.add_argument("--no-wled", action="store_true", help="do not probe for WLED boards")
    listing.set_defaults(func=_list)

    simulate = commands.add_parser("simulate", help="run a simulated device on a pseudo-terminal")
    simulate.add_argument("kind", choices=["led", "shuffler", "wled"])
    simulate.add_argument("--uid", help="unique id (8 hex digits); default from the process id")
    simulate.add_argument("--seats", type=int, default=8, help="lights or seats (1-10)")
    simulate.add_argument("--link", help="also make this symlink point at the pty")
    simulate.add_argument("--jam-rate", type=float, default=0.0, help="shuffler: share of jams")
    simulate.add_argument("--seconds", type=float, help="stop after this long (default: Ctrl-C)")
    simulate.set_defaults(func=_simulate)

    send = commands.add_parser("send", help="send one command line (CRC added) and print replies")
    send.add_argument("port")
    send.add_argument("line", nargs="+", help='e.g. DEAL 3 U ("1 HELLO" is sent first)')
    send.set_defaults(func=_send)

    proxy = commands.add_parser("proxy", help="relay a port through a pty that damages bytes")
    proxy.add_argument("port")
    proxy.add_argument("--damage", type=float, default=0.01, help="share of bytes damaged")
    proxy.add_argument("--seconds", type=float, help="stop after this long (default: Ctrl-C)")
    proxy.set_defaults(func=_proxy)


def _list(args: argparse.Namespace) -> int:
    from assistant.devices.discovery import candidate_ports, discover, identity_of

    ports = candidate_ports(args.port)
    found = discover(ports, wled=not args.no_wled)
    for device in found:
        identity = identity_of(device)
        print(f"{identity.port}\t{identity.describe()}")
        device.close()
    if not found:
        print(f"no devices found ({len(ports)} port(s) probed)")
    return 0


def _wait(seconds: float | None, tick: Any) -> None:
    import time

    deadline = None if seconds is None else time.monotonic() + seconds
    while deadline is None or time.monotonic() < deadline:
        tick()
        time.sleep(0.2)


def _simulate(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from assistant.cli import CommandError
    from assistant.devices.sim import LedCore, PtySimulator, ShufflerCore
    from assistant.devices.sim.pty_runner import SimulatedDevice
    from assistant.devices.sim.wled import WledCore

    number = {"led": 1, "shuffler": 2, "wled": 3}[args.kind]
    uid = (args.uid or f"{os.getpid() & 0xFFFFFF:06X}{number:02X}").upper()
    if len(uid) != 8 or any(c not in "0123456789ABCDEF" for c in uid):
        raise CommandError(f"--uid must be 8 hex digits, not {args.uid!r}")
    if not 1 <= args.seats <= 10:
        raise CommandError(f"--seats must be 1..10, not {args.seats}")
    if not 0.0 <= args.jam_rate < 1.0:
        raise CommandError(f"--jam-rate must be in [0, 1), not {args.jam_rate}")
    core: SimulatedDevice
    if args.kind == "led":
        core = LedCore(uid, args.seats)
    elif args.kind == "shuffler":
        core = ShufflerCore(uid, args.seats, jam_rate=args.jam_rate)
    else:
        core = WledCore(uid, args.seats)
    link = Path(args.link) if args.link else None
    if link is not None and not link.parent.is_dir():
        raise CommandError(f"cannot make {link}: {link.parent} is not a folder")
    simulator = PtySimulator(core, link=link)
    simulator.start()
    print(f"{core.kind.value} {uid} on {simulator.path}" + (f" (also {link})" if link else ""))
    print("Ctrl-C to stop", flush=True)
    last: list[str] = [""]

    def tick() -> None:
        if isinstance(core, LedCore):
            now = "".join(light.value for light in core.shown())
        elif isinstance(core, ShufflerCore):
            recent = " ".join(f"{seat}:{card}" for seat, _up, card in core.dealt[-6:])
            now = f"{'JAM' if core.jammed else 'ok'} {len(core.shoe)} left, dealt {recent}"
        else:
            now = " ".join(core.colours) if core.on else "off"
        if now != last[0]:
            print(now, flush=True)
            last[0] = now

    try:
        _wait(args.seconds, tick)
    finally:
        simulator.stop()
        if link is not None and link.is_symlink():
            link.unlink()
    return 0


def _send(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.devices.link import DeviceError, DeviceLink

    try:
        link = DeviceLink.open(args.port)
    except DeviceError as error:
        raise CommandError(str(error)) from None
    try:
        assert link.identity is not None
        print(f"# {link.identity.describe()}")
        verb, *rest = args.line[0].split() + args.line[1:]
        values = link.request(verb.upper(), *rest)
        print("OK", *values)
    except DeviceError as error:
        raise CommandError(str(error)) from None
    finally:
        link.close()
    return 0


def _proxy(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.devices.fault_proxy import FaultProxy

    try:
        proxy = FaultProxy(args.port, args.damage)
    except (OSError, ValueError) as error:
        raise CommandError(f"cannot relay {args.port}: {error}") from None
    print(f"{args.port} relayed on {proxy.path} with {args.damage:.1%} damage", flush=True)
    try:
        _wait(args.seconds, lambda: None)
    finally:
        proxy.close()
        print(f"to device: {proxy.to_device}; to host: {proxy.to_host}")
    return 0
