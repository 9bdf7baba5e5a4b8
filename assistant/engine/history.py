"""Events as JSON-ready dicts, for saved sessions, golden files and hand histories.

>>> from assistant.engine.events import BetMade
>>> event_to_dict(BetMade(seat=2, amount=5))
{'type': 'BetMade', 'seat': 2, 'amount': 5}
>>> event_from_dict({'type': 'BetMade', 'seat': 2, 'amount': 5})
BetMade(seat=2, amount=5)
>>> event_from_dict({'type': 'Teleported'})
Traceback (most recent call last):
...
assistant.engine.history.HistoryError: unknown event type 'Teleported'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields
from typing import Any

from assistant.engine.cards import Card, UnknownCardError, parse_card
from assistant.engine.events import EVENT_TYPES, Event, Player, SessionStarted, Stakes
from assistant.engine.rules import RulesError, rules_from_dict
from assistant.engine.showdown import Declaration

_BY_NAME: dict[str, type] = {cls.__name__: cls for cls in EVENT_TYPES}


class HistoryError(ValueError):
    """A recorded event cannot be read back."""


def _encode(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Declaration):
        return value.value
    if isinstance(value, Stakes | Player):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(event).__name__}
    for f in fields(event):
        out[f.name] = _encode(getattr(event, f.name))
    return out


def event_from_dict(data: Mapping[str, Any]) -> Event:
    kind = data.get("type")
    cls = _BY_NAME.get(str(kind))
    if cls is None:
        raise HistoryError(f"unknown event type {kind!r}")
    values = {key: value for key, value in data.items() if key != "type"}
    try:
        if cls is SessionStarted:
            return SessionStarted(
                rules=rules_from_dict(values["rules"]),
                stakes=Stakes(**values["stakes"]),
                players=tuple(Player(**p) for p in values["players"]),
                dealer=int(values.get("dealer", 0)),
            )
        for key in ("seat", "amount", "index"):
            if key in values and (isinstance(values[key], bool) or not isinstance(values[key], int)):
                raise TypeError(f"{key} must be a whole number, not {values[key]!r}")
        if values.get("card") is not None:
            values["card"] = parse_card(values["card"])
        if "cards" in values:
            values["cards"] = tuple(parse_card(c) for c in values["cards"])
        if "declaration" in values:
            values["declaration"] = Declaration(values["declaration"])
        event: Event = cls(**values)
    except (KeyError, TypeError, ValueError, RulesError, UnknownCardError) as error:
        raise HistoryError(f"cannot read {kind} event {dict(data)!r}: {error}") from None
    return event


def events_to_list(events: Iterable[Event]) -> list[dict[str, Any]]:
    return [event_to_dict(event) for event in events]


def events_from_list(items: Iterable[Mapping[str, Any]]) -> list[Event]:
    return [event_from_dict(item) for item in items]
