"""A running session: the event list, the state folded from it, and the dealer's verbs.

Every verb builds one event, checks it against the rules and appends it; a refused
action raises and changes nothing. ``can_*`` answers without raising, for buttons.

>>> from assistant.engine.rules import preset
>>> s = Session.new(preset("7/27"), Stakes(ante=1), [("Anna", 20), ("Ben", 20)], dealer=0)
>>> s.start_hand()
>>> s.decision.kind.value, s.decision.seat, s.decision.face_up
('deal', 1, True)
>>> s.bet(0, 3)
Traceback (most recent call last):
...
assistant.engine.errors.WrongPhaseError: cannot bet now: the hand is dealing
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from assistant.engine import errors
from assistant.engine.cards import Card, parse_card
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
    Player,
    Raised,
    SessionStarted,
    Stakes,
)
from assistant.engine.rules import Rules
from assistant.engine.showdown import Declaration
from assistant.engine.state import Decision, TableState, fold_events

Listener = Callable[[Event | None, TableState], None]
CardLike = Card | str | None


def _card(card: CardLike) -> Card | None:
    return parse_card(card) if isinstance(card, str) else card


def _cards(cards: Iterable[Card | str]) -> tuple[Card, ...]:
    return tuple(parse_card(c) if isinstance(c, str) else c for c in cards)


class Session:
    """A game session: one table, many hands, rebuilt from its events."""

    def __init__(self, events: Sequence[Event]) -> None:
        self._events: list[Event] = list(events)
        self._state = fold_events(self._events)
        self._listeners: list[Listener] = []

    @classmethod
    def new(
        cls,
        rules: Rules,
        stakes: Stakes,
        players: Sequence[tuple[str, int] | Player],
        dealer: int = 0,
    ) -> Session:
        seats = tuple(p if isinstance(p, Player) else Player(p[0], p[1]) for p in players)
        return cls([SessionStarted(rules, stakes, seats, dealer)])

    @classmethod
    def from_events(cls, events: Sequence[Event]) -> Session:
        return cls(events)

    # -------------------------------------------------------------- observation

    @property
    def state(self) -> TableState:
        """The current state. Read it; change it only through the verbs."""
        return self._state

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    @property
    def rules(self) -> Rules:
        return self._state.rules

    @property
    def decision(self) -> Decision | None:
        """Whose decision it is now, and what about."""
        return self._state.decision

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event, state)`` after every change (``event`` is None on undo)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _notify(self, event: Event | None) -> None:
        for listener in list(self._listeners):
            listener(event, self._state)

    # -------------------------------------------------------------- core

    def apply(self, event: Event) -> Event:
        """Check and apply one event; raise and change nothing when it is illegal."""
        if isinstance(event, SessionStarted):
            raise errors.SessionError("a session is started only once")
        try:
            self._state.advance(event)
        except BaseException:
            self._state = fold_events(self._events)
            raise
        self._events.append(event)
        self._notify(event)
        return event

    def can(self, event: Event) -> bool:
        try:
            self._state.copy().apply(event)
        except errors.IllegalActionError:
            return False
        return True

    def undo(self, steps: int = 1) -> tuple[Event, ...]:
        """Take back the last ``steps`` events; returns them, newest last."""
        if steps < 1:
            raise errors.SessionError("undo needs at least one step")
        if steps > len(self._events) - 1:
            raise errors.SessionError(f"cannot undo {steps} steps: only {len(self._events) - 1} to undo")
        removed = tuple(self._events[-steps:])
        del self._events[-steps:]
        self._state = fold_events(self._events)
        self._notify(None)
        return removed

    # -------------------------------------------------------------- verbs

    def start_hand(self) -> None:
        self.apply(HandStarted())

    def deal(self, seat: int, card: CardLike = None) -> None:
        self.apply(CardDealt(seat, _card(card)))

    def expose(self, seat: int, card: Card | str) -> None:
        exposed = _card(card)
        assert exposed is not None
        self.apply(CardExposed(seat, exposed))

    def take(self, seat: int, card: CardLike = None) -> None:
        self.apply(CardTaken(seat, _card(card)))

    def refuse(self, seat: int) -> None:
        self.apply(CardRefused(seat))

    def check(self, seat: int) -> None:
        self.apply(Checked(seat))

    pass_ = check

    def bet(self, seat: int, amount: int) -> None:
        self.apply(BetMade(seat, amount))

    def call(self, seat: int) -> None:
        self.apply(Called(seat))

    def raise_(self, seat: int, amount: int) -> None:
        self.apply(Raised(seat, amount))

    def fold(self, seat: int) -> None:
        self.apply(Folded(seat))

    def declare(self, seat: int, declaration: Declaration | str) -> None:
        try:
            chosen = Declaration(declaration)
        except ValueError:
            raise errors.IllegalActionError(
                f"a declaration is 'low', 'high' or 'both', not {declaration!r}"
            ) from None
        self.apply(Declared(seat, chosen))

    def show(self, seat: int, cards: Iterable[Card | str]) -> None:
        self.apply(HandShown(seat, _cards(cards)))

    def show_bust(self, seat: int, cards: Iterable[Card | str]) -> None:
        self.apply(BustShown(seat, _cards(cards)))

    def correct(self, seat: int, index: int, card: Card | str) -> None:
        corrected = _card(card)
        assert corrected is not None
        self.apply(CardCorrected(seat, index, corrected))
