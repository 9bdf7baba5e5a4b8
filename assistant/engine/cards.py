"""Playing cards: ranks, suits and their text form.

Cards are written as rank then suit: ``Ah``, ``10c`` (or ``Tc``), ``Qd``. Suits do not
matter to the game, but they identify a physical card, so a card can only be in one
place at a time.

>>> parse_card("10h")
Card(rank=<Rank.TEN: 10>, suit=<Suit.HEARTS: 'h'>)
>>> str(parse_card("10h")), str(parse_card("qs"))
('Th', 'Qs')
>>> parse_card("1h")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
assistant.engine.cards.UnknownCardError: unknown card '1h': expected a rank (A, 2-10 or T, J, Q, K) then ...
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum, IntEnum


class UnknownCardError(ValueError):
    """A card's text does not name one of the 52 cards."""


class Rank(IntEnum):
    """A card rank; the value is the rank's order with the Ace low (1) and King 13."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self]

    @property
    def is_face(self) -> bool:
        """Jack, Queen or King."""
        return self >= Rank.JACK

    @property
    def high_order(self) -> int:
        """Order used to rank exposed cards, Ace highest (A, K, Q, J, 10, ... 2)."""
        return 14 if self is Rank.ACE else int(self)


class Suit(Enum):
    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"


_RANK_SYMBOLS = {
    Rank.ACE: "A",
    Rank.TWO: "2",
    Rank.THREE: "3",
    Rank.FOUR: "4",
    Rank.FIVE: "5",
    Rank.SIX: "6",
    Rank.SEVEN: "7",
    Rank.EIGHT: "8",
    Rank.NINE: "9",
    Rank.TEN: "T",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
}
_RANKS_BY_TEXT = {symbol: rank for rank, symbol in _RANK_SYMBOLS.items()} | {"10": Rank.TEN}
_SUITS_BY_TEXT = {suit.value: suit for suit in Suit}


@dataclass(frozen=True)
class Card:
    rank: Rank
    suit: Suit

    def __str__(self) -> str:
        return f"{self.rank.symbol}{self.suit.value}"

    @property
    def sort_key(self) -> tuple[int, str]:
        return (int(self.rank), self.suit.value)


def parse_card(text: str) -> Card:
    """Parse ``"Ah"``, ``"10c"``, ``"Tc"`` or ``"qd"`` into a :class:`Card`."""
    cleaned = text.strip()
    rank = _RANKS_BY_TEXT.get(cleaned[:-1].upper())
    suit = _SUITS_BY_TEXT.get(cleaned[-1:].lower())
    if rank is None or suit is None:
        raise UnknownCardError(
            f"unknown card {text!r}: expected a rank (A, 2-10 or T, J, Q, K) then a suit (c, d, h, s)"
        )
    return Card(rank, suit)


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse several cards; split a single string on spaces or commas."""
    if isinstance(texts, str):
        texts = texts.replace(",", " ").split()
    return tuple(parse_card(text) for text in texts)


FULL_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)
