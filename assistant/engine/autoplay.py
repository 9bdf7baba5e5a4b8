"""Seeded simulated players: whole legal sessions for tests, golden files and video scripts.

The table deals from a real shuffled deck, so every card is known to the simulation;
with ``hide_face_down`` the events record face-down cards as unseen (as a camera sees
them) and the players turn them up at the showdown.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from assistant.engine.cards import FULL_DECK, Card
from assistant.engine.events import Player, Stakes
from assistant.engine.rules import Rules
from assistant.engine.session import Session
from assistant.engine.showdown import Declaration
from assistant.engine.state import DecisionKind, Phase
from assistant.engine.valuation import Target, rank_key, target_halves, value_hand


@dataclass
class TableDeck:
    """The physical deck: what the simulated dealer pulls cards from."""

    rng: random.Random
    cards: list[Card] = field(default_factory=list)
    hidden: dict[int, list[Card]] = field(default_factory=dict)  # seat -> face-down cards

    def shuffle(self) -> None:
        self.cards = list(FULL_DECK)
        self.rng.shuffle(self.cards)
        self.hidden = {}

    def draw(self, session: Session) -> Card:
        if not self.cards:  # the folded players' cards make a new draw pile
            folded = [
                card
                for s in session.state.seats
                if s.folded and s.in_hand
                for card in (*s.known_cards, *self.hidden.pop(s.seat, []))
            ]
            self.cards = folded
            self.rng.shuffle(self.cards)
        return self.cards.pop()


def _hand(session: Session, deck: TableDeck, seat: int) -> list[Card]:
    s = session.state.seats[seat]
    return [*s.known_cards, *deck.hidden.get(seat, [])]


def _distance(cards: Sequence[Card], rules: Rules, target: Target) -> int:
    best = value_hand(cards, rules).best(target)
    return 99 if best is None else rank_key(best, rules, target)[0]


def _wants_card(cards: Sequence[Card], rules: Rules, rng: random.Random) -> bool:
    """Take a card while some target is still well above the hand's total."""
    value = value_hand(cards, rules)
    room = [
        target_halves(rules, target) - best for target in Target if (best := value.best(target)) is not None
    ]
    if not room or max(room) <= 0:
        return False
    wide_open = max(room) > 8 and min(abs(r) for r in room) > 3
    return (wide_open and rng.random() < 0.85) or rng.random() < 0.08


def _declaration(cards: Sequence[Card], rules: Rules) -> Declaration:
    value = value_hand(cards, rules)
    if value.natural:
        return Declaration.BOTH
    low = _distance(cards, rules, Target.LOW)
    high = _distance(cards, rules, Target.HIGH)
    return (
        Declaration.LOW
        if low * target_halves(rules, Target.HIGH) < high * target_halves(rules, Target.LOW) * 2
        else Declaration.HIGH
    )


def play_hand(session: Session, deck: TableDeck, rng: random.Random, hide_face_down: bool = True) -> None:
    """Play one hand to its end with simple, randomised but sensible players."""
    rules = session.rules
    deck.shuffle()
    session.start_hand()
    while session.state.phase not in (Phase.COMPLETE, Phase.FINISHED):
        d = session.decision
        assert d is not None and d.seat is not None
        seat = d.seat
        state = session.state
        if d.kind in (DecisionKind.DEAL, DecisionKind.DRAW):
            out_of_cards = state.stub == 0 and not any(s.folded and s.cards for s in state.seats)
            if d.kind is DecisionKind.DRAW and (
                out_of_cards or not _wants_card(_hand(session, deck, seat), rules, rng)
            ):
                session.refuse(seat)
                continue
            card = deck.draw(session)
            shown: Card | None = card
            if not d.face_up and hide_face_down:
                deck.hidden.setdefault(seat, []).append(card)
                shown = None
            if d.kind is DecisionKind.DEAL:
                session.deal(seat, shown)
            else:
                session.take(seat, shown)
            s = session.state.seats[seat]
            if (
                rules.bust
                and s.live
                and deck.hidden.get(seat)
                and value_hand(_hand(session, deck, seat), rules).busted
            ):
                session.show_bust(seat, deck.hidden.pop(seat))
        elif d.kind is DecisionKind.EXPOSE:
            hidden = deck.hidden.get(seat, [])
            if hidden:
                card = max(
                    hidden,
                    key=lambda c: (
                        (c.rank.high_order, c.suit.value) if rng.random() < 0.5 else (rng.random(), "")
                    ),
                )
                hidden.remove(card)
            else:
                card = next(c for c in state.seats[seat].known_cards if True)
            session.expose(seat, card)
        elif d.kind is DecisionKind.BET:
            r = rng.random()
            if d.can_raise and r < 0.15:
                session.raise_(
                    seat, rng.randint(d.min_bet, min(d.max_bet, state.seats[seat].stack - d.to_call))
                )
            elif d.to_call and r < 0.15:
                session.fold(seat)
            elif d.to_call:
                session.call(seat)
            elif d.can_bet and r < 0.3:
                stack = state.seats[seat].stack
                session.bet(
                    seat, rng.randint(d.min_bet, min(d.max_bet, stack)) if d.min_bet <= stack else stack
                )
            else:
                session.check(seat)
        elif d.kind is DecisionKind.MATCH:
            if rng.random() < 0.1:
                session.fold(seat)
            else:
                session.call(seat)
        elif d.kind is DecisionKind.DECLARE:
            session.declare(seat, _declaration(_hand(session, deck, seat), rules))
        elif d.kind is DecisionKind.SHOW:
            hidden_known = [h.card for h in state.seats[seat].cards if not h.face_up and h.card is not None]
            session.show(seat, [*hidden_known, *deck.hidden.pop(seat, [])])
        else:
            raise AssertionError(f"unexpected decision {d}")


def play_session(
    rules: Rules,
    stakes: Stakes,
    players: Sequence[tuple[str, int]],
    hands: int,
    seed: int,
    dealer: int = 0,
    hide_face_down: bool = True,
) -> Session:
    """A whole seeded session of up to ``hands`` hands (fewer if the game ends)."""
    rng = random.Random(seed)
    session = Session.new(rules, stakes, [Player(n, c) for n, c in players], dealer)
    deck = TableDeck(random.Random(rng.random()))
    for _ in range(hands):
        if session.state.phase is Phase.FINISHED:
            break
        play_hand(session, deck, rng, hide_face_down)
    return session
