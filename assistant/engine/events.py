"""Game events: every change to a game is one of these frozen records.

The state of a session is a fold over its events (see :mod:`assistant.engine.state`);
undo, persistence and replay all work on this one list. Events hold what happened at
the table (a card dealt, a bet, a declaration); what follows from them by the rules
(antes, a betting round closing, a bust, the pot being divided) is derived again on
every replay and never stored twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant.engine.cards import Card
from assistant.engine.rules import Rules
from assistant.engine.showdown import Declaration


@dataclass(frozen=True)
class Stakes:
    """Money settings of a session: ante and bet limits, in chips.

    Under the fixed-per-turn betting structure every bet is exactly the ante.
    """

    ante: int = 1
    min_bet: int = 1
    max_bet: int = 5
    max_raises: int = 3

    def __post_init__(self) -> None:
        for name in ("ante", "min_bet", "max_bet", "max_raises"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"stakes are whole numbers of chips: {name} is {value!r}")
        if self.ante < 0 or self.min_bet < 1 or self.max_bet < self.min_bet or self.max_raises < 0:
            raise ValueError(
                f"invalid stakes: ante {self.ante}, bets {self.min_bet}-{self.max_bet}, "
                f"{self.max_raises} raises (need ante >= 0, 1 <= min bet <= max bet, raises >= 0)"
            )


@dataclass(frozen=True)
class Player:
    name: str
    stack: int

    def __post_init__(self) -> None:
        if isinstance(self.stack, bool) or not isinstance(self.stack, int) or self.stack < 0:
            raise ValueError(f"{self.name}'s stack must be a whole number of chips, not {self.stack!r}")


@dataclass(frozen=True)
class SessionStarted:
    """Seats are numbered 0..n-1 clockwise; ``dealer`` deals the first hand."""

    rules: Rules
    stakes: Stakes
    players: tuple[Player, ...]
    dealer: int = 0


@dataclass(frozen=True)
class HandStarted:
    """The next hand begins: the deal moves left and antes are collected."""


@dataclass(frozen=True)
class CardDealt:
    """A card of the deal (face up or down as the rules say); ``None``: unseen face down."""

    seat: int
    card: Card | None = None


@dataclass(frozen=True)
class CardExposed:
    """A player turns one of their face-down cards face up (Fifteen Thirty-Five)."""

    seat: int
    card: Card


@dataclass(frozen=True)
class CardTaken:
    """A player accepts the card offered in a draw round."""

    seat: int
    card: Card | None = None


@dataclass(frozen=True)
class CardRefused:
    seat: int


@dataclass(frozen=True)
class Checked:
    """Check in a betting round; pass in the fixed-per-turn structure."""

    seat: int


@dataclass(frozen=True)
class BetMade:
    seat: int
    amount: int


@dataclass(frozen=True)
class Called:
    seat: int


@dataclass(frozen=True)
class Raised:
    """Match the highest bet and add ``amount`` more."""

    seat: int
    amount: int


@dataclass(frozen=True)
class Folded:
    seat: int


@dataclass(frozen=True)
class Declared:
    seat: int
    declaration: Declaration


@dataclass(frozen=True)
class HandShown:
    """A player's face-down cards, turned up at the showdown."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class BustShown:
    """Over-is-bust rules: a player shows their hidden cards and folds at once."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class CardCorrected:
    """The dealer corrects a misread card: the seat's ``index``-th card is ``card``."""

    seat: int
    index: int
    card: Card


Event = (
    SessionStarted
    | HandStarted
    | CardDealt
    | CardExposed
    | CardTaken
    | CardRefused
    | Checked
    | BetMade
    | Called
    | Raised
    | Folded
    | Declared
    | HandShown
    | BustShown
    | CardCorrected
)

EVENT_TYPES: tuple[type, ...] = (
    SessionStarted,
    HandStarted,
    CardDealt,
    CardExposed,
    CardTaken,
    CardRefused,
    Checked,
    BetMade,
    Called,
    Raised,
    Folded,
    Declared,
    HandShown,
    BustShown,
    CardCorrected,
)
