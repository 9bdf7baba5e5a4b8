"""The ``dealer-assistant`` command line.

Each area of the product registers its own sub-commands from a small ``cli`` module
(``register(subparsers)``), so that heavy dependencies (torch, Qt, OpenCV) are imported
only by the command that needs them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: Modules that contribute sub-commands. A module that is absent is skipped, so an
#: area can be developed without touching this file.
COMMAND_MODULES: tuple[str, ...] = (
    "assistant.engine_cli",
    "assistant.synth.cli",
    "assistant.detect.cli",
    "assistant.detect.deck_cli",
    "assistant.vision.cli",
    "assistant.pipeline.cli",
    "assistant.dashboard.cli",
    "assistant.devices.cli",
)


class CommandError(Exception):
    """A command failed for a reason the user can act on; printed as one line."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dealer-assistant",
        description="Dealer's assistant for live Seven Twenty-Seven (7/27) games.",
    )
    from assistant import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name is not None and name.startswith(error.name):
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.print_help()
        return 2
    try:
        result = args.func(args)
    except CommandError as error:
        print(f"dealer-assistant {args.command}: error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into head or a closed pager
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print(f"dealer-assistant {args.command}: interrupted", file=sys.stderr)
        return 130
    return int(result or 0)


if __name__ == "__main__":
    raise SystemExit(main())
