"""The dealer-input sidecar of a recorded session: what a video cannot hold.

A video shows cards and chips; the session's setup (rules, stakes, players, who deals)
and the actions nobody can see (a check, a refusal said aloud, a declaration made with
coins in a closed fist, the dealer starting the next hand) come from a JSON file next
to the video, ``NAME.dealer.json``::

    {"format": "dealer-assistant/dealer-inputs", "version": 1,
     "rules": "seven-twenty-seven", "options": {}, "stakes": {"ante": 1, ...},
     "players": [["Anna", 60], ["Ben", 60]], "dealer": 0,
     "inputs": [{"frame": 0, "action": ["start_hand"]}, {"frame": 88, "action": ["check", 1]}]}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.engine.actions import ActionError, action_to_event, event_to_action
from assistant.engine.events import Event, Player, Stakes
from assistant.engine.rules import Rules, RulesError, preset

FORMAT = "dealer-assistant/dealer-inputs"
VERSION = 1


class SidecarError(ValueError):
    """The sidecar file is missing, unreadable or invalid; the message names the file."""


@dataclass(frozen=True)
class DealerInput:
    frame: int
    event: Event


@dataclass(frozen=True)
class Sidecar:
    rules: Rules
    stakes: Stakes
    players: tuple[Player, ...]
    dealer: int
    inputs: tuple[DealerInput, ...]
    bets_from_camera: bool = True  # False: bets are among the dealer's inputs

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "rules": self.rules.name,
            "options": self.rules.options(),
            "stakes": {
                "ante": self.stakes.ante,
                "min_bet": self.stakes.min_bet,
                "max_bet": self.stakes.max_bet,
                "max_raises": self.stakes.max_raises,
            },
            "players": [[p.name, p.stack] for p in self.players],
            "dealer": self.dealer,
            "bets": "camera" if self.bets_from_camera else "dealer",
            "inputs": [{"frame": i.frame, "action": event_to_action(i.event)} for i in self.inputs],
        }


def sidecar_path(video: str | Path) -> Path:
    path = Path(video)
    return path.with_name(path.stem + ".dealer.json")


def parse_sidecar(data: Any, origin: str = "sidecar") -> Sidecar:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SidecarError(f"{origin} is not a dealer-input sidecar (format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise SidecarError(f"{origin}: version {data.get('version')!r} is not supported (reads {VERSION})")
    try:
        rules = preset(str(data["rules"])).with_options(**(data.get("options") or {}))
        stakes = Stakes(**(data.get("stakes") or {}))
        players = tuple(Player(str(name), int(stack)) for name, stack in data["players"])
        dealer = int(data.get("dealer", 0))
        inputs = []
        for index, item in enumerate(data.get("inputs", [])):
            try:
                inputs.append(DealerInput(int(item["frame"]), action_to_event(item["action"])))
            except (KeyError, TypeError, ActionError) as error:
                raise SidecarError(f"{origin}: inputs[{index}]: {error}") from None
    except (KeyError, TypeError, ValueError, RulesError) as error:
        if isinstance(error, SidecarError):
            raise
        raise SidecarError(f"{origin}: {error}") from None
    frames = [i.frame for i in inputs]
    if frames != sorted(frames):
        raise SidecarError(f"{origin}: inputs must be in frame order")
    bets = data.get("bets", "camera")
    if bets not in ("camera", "dealer"):
        raise SidecarError(f"{origin}: 'bets' is 'camera' or 'dealer', not {bets!r}")
    return Sidecar(rules, stakes, players, dealer, tuple(inputs), bets == "camera")


def load_sidecar(path: str | Path) -> Sidecar:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise SidecarError(f"no dealer-input sidecar at {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SidecarError(f"{path} is not readable JSON: {error}") from None
    return parse_sidecar(data, str(path))
