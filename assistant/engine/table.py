"""What the table state is made of: phases, decisions, seats and the cards they hold."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from assistant.engine.cards import Card
from assistant.engine.showdown import Declaration


class Phase(Enum):
    WAITING = "waiting"  # between hands: the dealer starts the next one
    DEALING = "dealing"
    EXPOSING = "exposing"
    BETTING = "betting"
    DRAWING = "drawing"
    TURN_DRAW = "turn-draw"  # fixed-per-turn: take or refuse a card
    TURN_BET = "turn-bet"  # fixed-per-turn: bet or pass
    MATCHING = "matching"  # fixed-per-turn: match the bet or fold
    DECLARING = "declaring"
    SHOWDOWN = "showdown"
    COMPLETE = "complete"  # the pot has been divided
    FINISHED = "finished"  # fewer than two players can pay the ante


class DecisionKind(Enum):
    DEAL = "deal"  # the dealer deals the next card of the deal
    EXPOSE = "expose"
    BET = "bet"
    DRAW = "draw"
    MATCH = "match"
    DECLARE = "declare"
    SHOW = "show"
    NEXT_HAND = "next-hand"


@dataclass(frozen=True)
class Decision:
    """Whose decision it is now and what it is about."""

    kind: DecisionKind
    seat: int | None
    face_up: bool = False  # DEAL and DRAW: how the card is dealt
    to_call: int = 0  # BET and MATCH
    can_check: bool = False
    can_bet: bool = False
    can_raise: bool = False
    min_bet: int = 0
    max_bet: int = 0
    raises_left: int = 0


@dataclass(frozen=True)
class HeldCard:
    card: Card | None  # None: face down and not yet seen
    face_up: bool


@dataclass
class SeatState:
    seat: int
    name: str
    stack: int
    out: bool = False  # cannot pay the ante: out of the game
    in_hand: bool = False
    folded: bool = False
    busted: bool = False
    cards: list[HeldCard] = field(default_factory=list)
    bet: int = 0  # chips put in during the current betting round
    committed: int = 0  # chips put in this hand, ante included
    acted: bool = False
    refusals: int = 0
    refusals_in_a_row: int = 0
    frozen: bool = False
    declaration: Declaration | None = None
    shown: bool = False

    @property
    def live(self) -> bool:
        """Dealt in and not folded."""
        return self.in_hand and not self.folded

    @property
    def all_in(self) -> bool:
        return self.live and self.stack == 0

    @property
    def up_cards(self) -> tuple[Card, ...]:
        return tuple(h.card for h in self.cards if h.face_up and h.card is not None)

    @property
    def down_count(self) -> int:
        return sum(1 for h in self.cards if not h.face_up)

    @property
    def known_cards(self) -> tuple[Card, ...]:
        return tuple(h.card for h in self.cards if h.card is not None)

    @property
    def unknown_count(self) -> int:
        return sum(1 for h in self.cards if h.card is None)
