"""Game scripts: the hand a video shows, action by action, with every card's identity.

A script is JSON::

    {"name": "seven-twenty-seven-train", "rules": "seven-twenty-seven", "options": {},
     "stakes": {"ante": 1, "min_bet": 1, "max_bet": 5, "max_raises": 3},
     "players": [["Anna", 60], ["Ben", 60], ...], "dealer": 0,
     "deck": "kde-penguins", "surface_split": "train", "seed": 3, "fps": 10, "size": [1280, 720],
     "actions": [["deal", 1, "Ah"], ["check", 1], ["bet", 2, 3], ["call", 3], ["raise", 0, 1],
                 ["fold", 2], ["take", 1, "5d"], ["refuse", 2], ["expose", 1, "5d"],
                 ["declare", 1, "low"], ["show", 1, ["Ah", "9c"]]]}

``deal`` and ``take`` always name the real card; the video shows a face-down card's
back and the engine is told ``None`` for it, as a camera would see it.
:func:`script_from_autoplay` writes one from the engine's seeded simulated players.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ACTIONS = {
    "deal",
    "take",
    "refuse",
    "check",
    "bet",
    "call",
    "raise",
    "fold",
    "declare",
    "show",
    "expose",
    "show_bust",
}


class ScriptError(ValueError):
    """A game script is missing, unreadable or does not follow the rules."""


@dataclass(frozen=True)
class GameScript:
    name: str
    rules: str
    players: list[tuple[str, int]]
    actions: list[list[Any]]
    deck: str
    options: dict[str, Any] = field(default_factory=dict)
    stakes: dict[str, int] = field(default_factory=dict)
    dealer: int = 0
    surface_split: str = "train"
    seed: int = 0
    fps: int = 10
    size: tuple[int, int] = (1280, 720)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rules": self.rules,
            "options": self.options,
            "stakes": self.stakes,
            "players": [list(p) for p in self.players],
            "dealer": self.dealer,
            "deck": self.deck,
            "surface_split": self.surface_split,
            "seed": self.seed,
            "fps": self.fps,
            "size": list(self.size),
            "actions": self.actions,
        }


def parse_script(data: Any) -> GameScript:
    if not isinstance(data, dict):
        raise ScriptError("a game script is a JSON object")
    try:
        players = [(str(n), int(c)) for n, c in data["players"]]
        actions = [list(a) for a in data["actions"]]
        script = GameScript(
            name=str(data["name"]),
            rules=str(data["rules"]),
            players=players,
            actions=actions,
            deck=str(data["deck"]),
            options=dict(data.get("options", {})),
            stakes=dict(data.get("stakes", {})),
            dealer=int(data.get("dealer", 0)),
            surface_split=str(data.get("surface_split", "train")),
            seed=int(data.get("seed", 0)),
            fps=int(data.get("fps", 10)),
            size=(int(data.get("size", [1280, 720])[0]), int(data.get("size", [1280, 720])[1])),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ScriptError(f"bad game script: {error!r}") from error
    if not 2 <= len(players) <= 10:
        raise ScriptError("a game script needs 2 to 10 players")
    for i, action in enumerate(actions):
        if not action or action[0] not in ACTIONS:
            raise ScriptError(f"actions[{i}]: unknown action {action!r}; expected one of {sorted(ACTIONS)}")
    if not script.name.replace("-", "").replace("_", "").isalnum():
        raise ScriptError(f"script name {script.name!r} must be letters, digits, - and _")
    return script


def load_script(path: Path) -> GameScript:
    try:
        text = path.read_text("utf-8")
    except OSError as error:
        raise ScriptError(f"cannot read the game script {path}: {error.strerror or error}") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ScriptError(f"{path} is not valid JSON: {error}") from error
    return parse_script(data)


def script_from_autoplay(
    name: str,
    rules_name: str,
    players: list[tuple[str, int]],
    seed: int,
    deck: str,
    *,
    surface_split: str = "train",
    dealer: int = 0,
    options: dict[str, Any] | None = None,
) -> GameScript:
    """One hand played by the engine's seeded simulated players, as a script."""
    from assistant.engine import Player, Session, Stakes, preset
    from assistant.engine.actions import event_to_action
    from assistant.engine.autoplay import TableDeck, play_hand
    from assistant.engine.events import CardDealt, CardTaken, HandStarted, SessionStarted

    rules = preset(rules_name)
    if options:
        rules = rules.with_options(**options)
    stakes = {"ante": 1, "min_bet": 1, "max_bet": 5, "max_raises": 3}
    rng = random.Random(seed)
    session = Session.new(rules, Stakes(**stakes), [Player(n, c) for n, c in players], dealer)
    drawn: list[Any] = []

    class RecordingDeck(TableDeck):
        def draw(self, session: Session) -> Any:
            card = super().draw(session)
            drawn.append(card)
            return card

    play_hand(session, RecordingDeck(random.Random(rng.random())), rng, True)
    actions: list[list[Any]] = []
    draws = iter(drawn)
    for e in session.events:
        if isinstance(e, SessionStarted | HandStarted):
            continue
        action = event_to_action(e)
        if isinstance(e, CardDealt | CardTaken):
            action[2] = str(next(draws))  # the script names every card, face-down ones too
        actions.append(action)
    return GameScript(
        name,
        rules_name,
        list(players),
        actions,
        deck,
        dict(options or {}),
        stakes,
        dealer,
        surface_split,
        seed,
    )
