"""Actions: events in a compact, human-readable list form, as a dealer would say them.

``["deal", 1, "Ah"]``, ``["deal", 2, null]`` (an unseen face-down card), ``["take", 1, "5d"]``,
``["refuse", 2]``, ``["check", 1]``, ``["bet", 2, 3]``, ``["call", 3]``, ``["raise", 0, 1]``,
``["fold", 2]``, ``["expose", 1, "5d"]``, ``["declare", 1, "low"]``,
``["show", 1, ["Ah", "9c"]]``, ``["show_bust", 1, ["Th"]]``, ``["correct", 1, 0, "Ah"]`` and
``["start_hand"]``. Game scripts, dealer-input sidecar files and replay logs use them.

>>> action_to_event(["bet", 2, 3])
BetMade(seat=2, amount=3)
>>> event_to_action(action_to_event(["show", 1, ["Ah", "9c"]]))
['show', 1, ['Ah', '9c']]
>>> action_to_event(["shuffle", 1])
Traceback (most recent call last):
...
assistant.engine.actions.ActionError: unknown action 'shuffle'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from assistant.engine.cards import Card, UnknownCardError, parse_card
from assistant.engine.events import (
    BetMade,
    BustShown,
    Called,
    CardCorrected,
    CardDealt,
    CardExposed,
    CardRefused,
    CardTaken,
    Checked,
    Declared,
    Event,
    Folded,
    HandShown,
    HandStarted,
    Raised,
)
from assistant.engine.showdown import Declaration


class ActionError(ValueError):
    """An action list that names no known action or has the wrong arguments."""


def _card(value: Any) -> Card | None:
    return None if value is None else parse_card(str(value))


def _cards(value: Any) -> tuple[Card, ...]:
    if not isinstance(value, list | tuple):
        raise ActionError(f"expected a list of cards, not {value!r}")
    return tuple(parse_card(str(c)) for c in value)


def _required_card(value: Any) -> Card:
    card = _card(value)
    if card is None:
        raise ActionError("this action needs a card")
    return card


_BUILDERS: dict[str, tuple[int, Callable[..., Event]]] = {
    "start_hand": (0, lambda: HandStarted()),
    "deal": (2, lambda seat, card=None: CardDealt(seat, _card(card))),
    "take": (2, lambda seat, card=None: CardTaken(seat, _card(card))),
    "refuse": (1, CardRefused),
    "check": (1, Checked),
    "pass": (1, Checked),
    "bet": (2, lambda seat, amount: BetMade(seat, int(amount))),
    "call": (1, Called),
    "raise": (2, lambda seat, amount: Raised(seat, int(amount))),
    "fold": (1, Folded),
    "expose": (2, lambda seat, card: CardExposed(seat, _required_card(card))),
    "declare": (2, lambda seat, value: Declared(seat, Declaration(value))),
    "show": (2, lambda seat, cards: HandShown(seat, _cards(cards))),
    "show_bust": (2, lambda seat, cards: BustShown(seat, _cards(cards))),
    "correct": (3, lambda seat, index, card: CardCorrected(seat, int(index), _required_card(card))),
}


def action_to_event(action: Sequence[Any]) -> Event:
    if not isinstance(action, list | tuple) or not action:
        raise ActionError(f"an action is a non-empty list, not {action!r}")
    name, *args = action
    if name not in _BUILDERS:
        raise ActionError(f"unknown action {name!r}")
    most, build = _BUILDERS[name]
    if len(args) > most or (name != "start_hand" and not args):
        raise ActionError(f"{name!r} takes at most {most} arguments after the name: {list(action)!r}")
    if args and (isinstance(args[0], bool) or not isinstance(args[0], int)):
        raise ActionError(f"{name!r} needs a seat number first, not {args[0]!r}")
    try:
        return build(*args)
    except (TypeError, ValueError, UnknownCardError) as error:
        raise ActionError(f"{list(action)!r}: {error}") from None


def event_to_action(event: Event) -> list[Any]:
    """The inverse of :func:`action_to_event` (every event but ``SessionStarted``)."""
    match event:
        case HandStarted():
            return ["start_hand"]
        case CardDealt(seat, card):
            return ["deal", seat, None if card is None else str(card)]
        case CardTaken(seat, card):
            return ["take", seat, None if card is None else str(card)]
        case CardRefused(seat):
            return ["refuse", seat]
        case Checked(seat):
            return ["check", seat]
        case BetMade(seat, amount):
            return ["bet", seat, amount]
        case Called(seat):
            return ["call", seat]
        case Raised(seat, amount):
            return ["raise", seat, amount]
        case Folded(seat):
            return ["fold", seat]
        case CardExposed(seat, card):
            return ["expose", seat, str(card)]
        case Declared(seat, declaration):
            return ["declare", seat, declaration.value]
        case HandShown(seat, cards):
            return ["show", seat, [str(c) for c in cards]]
        case BustShown(seat, cards):
            return ["show_bust", seat, [str(c) for c in cards]]
        case CardCorrected(seat, index, card):
            return ["correct", seat, index, str(card)]
    raise ActionError(f"{type(event).__name__} has no action form")
