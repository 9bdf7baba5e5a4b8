"""The state of a session, rebuilt by folding its events.

:meth:`TableState.apply` checks that an event is legal now and applies it with all its
consequences (antes, a round closing, a bust, the pot being divided); an illegal event
raises an :class:`~assistant.engine.errors.IllegalActionError` and leaves the state as it
was. :attr:`TableState.decision` answers whose decision it is now, whatever the phase.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from assistant.engine import betting, errors
from assistant.engine.cards import FULL_DECK, Card
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
    SessionStarted,
    Stakes,
)
from assistant.engine.pots import HandResult, settle
from assistant.engine.rules import BettingStructure, Rules
from assistant.engine.table import Decision, DecisionKind, HeldCard, Phase, SeatState
from assistant.engine.valuation import hand_totals, is_busted, is_natural

__all__ = ["Decision", "DecisionKind", "HeldCard", "Phase", "SeatState", "TableState", "fold_events"]


class TableState:
    """A session's state: seats and stacks, the hand in progress, the last result."""

    def __init__(self, start: SessionStarted) -> None:
        if len(start.players) < 2:
            raise errors.SessionError("a session needs at least two players")
        if not 0 <= start.dealer < len(start.players):
            raise errors.SessionError(f"the dealer must be one of seats 0-{len(start.players) - 1}")
        for player in start.players:
            if player.stack < 0:
                raise errors.SessionError(f"{player.name} cannot start with {player.stack} chips")
        self.rules: Rules = start.rules
        self.stakes: Stakes = start.stakes
        self.seats: list[SeatState] = [
            SeatState(seat=i, name=p.name, stack=p.stack) for i, p in enumerate(start.players)
        ]
        self.total_chips: int = sum(p.stack for p in start.players)
        self.dealer: int = start.dealer
        self.hand_number: int = 0
        self.phase: Phase = Phase.WAITING
        self.queue: list[int] = []  # seats still to act in the current ordered step
        self.deal_faces: list[bool] = []  # DEALING: face of each queued card
        self.actor: int | None = None  # BETTING / TURN_* / MATCHING
        self.current_bet: int = 0
        self.raises: int = 0
        self.final_round: bool = False
        self.card_taken_this_round: bool = False
        self.draw_rounds: int = 0
        self.betting_rounds: int = 0
        self.stub: int = len(FULL_DECK)  # cards left to deal
        self.reshuffles: int = 0
        self.result: HandResult | None = None
        self.matchers: list[int] = []  # MATCHING: seats still to match the bet
        self.turn_owner: int | None = None  # MATCHING: whose turn's bet is being matched

    # ------------------------------------------------------------------ queries

    @property
    def pot(self) -> int:
        """Every chip put in this hand, the current round's bets included."""
        return sum(s.committed for s in self.seats)

    @property
    def hand_done(self) -> bool:
        """The pot of the current hand has been divided."""
        return self.phase in (Phase.COMPLETE, Phase.FINISHED)

    @property
    def live_seats(self) -> list[SeatState]:
        return [s for s in self.seats if s.live]

    def clockwise_from(self, seat: int) -> list[int]:
        """All seat numbers clockwise, starting with the one after ``seat``."""
        n = len(self.seats)
        return [(seat + k) % n for k in range(1, n + 1)]

    def cards_in_play(self) -> set[Card]:
        return {card for s in self.seats for card in s.known_cards}

    def unseen_cards(self) -> list[Card]:
        """Cards nobody has seen yet: neither face up nor revealed (for advice)."""
        in_play = self.cards_in_play()
        return [card for card in FULL_DECK if card not in in_play]

    @property
    def decision(self) -> Decision | None:
        """Whose decision it is now; ``None`` once the session is finished."""
        phase = self.phase
        if phase is Phase.FINISHED:
            return None
        if phase in (Phase.WAITING, Phase.COMPLETE):
            return Decision(DecisionKind.NEXT_HAND, None)
        if phase is Phase.DEALING:
            return Decision(DecisionKind.DEAL, self.queue[0], face_up=self.deal_faces[0])
        if phase is Phase.EXPOSING:
            return Decision(DecisionKind.EXPOSE, self.queue[0])
        if phase in (Phase.DRAWING, Phase.TURN_DRAW):
            drawer = self.queue[0] if phase is Phase.DRAWING else self.actor
            return Decision(DecisionKind.DRAW, drawer, face_up=self.rules.draws_face_up)
        if phase is Phase.DECLARING:
            return Decision(DecisionKind.DECLARE, self.queue[0])
        if phase is Phase.SHOWDOWN:
            return Decision(DecisionKind.SHOW, self.queue[0])
        assert self.actor is not None
        seat = self.seats[self.actor]
        to_call = self.current_bet - seat.bet
        if phase is Phase.MATCHING:
            return Decision(DecisionKind.MATCH, seat.seat, to_call=to_call)
        if phase is Phase.TURN_BET:
            fixed = betting.fixed_bet(self)
            return Decision(
                DecisionKind.BET,
                seat.seat,
                can_check=True,
                can_bet=seat.stack > 0,
                min_bet=fixed,
                max_bet=fixed,
            )
        raises_left = max(0, self.stakes.max_raises - self.raises)
        return Decision(
            DecisionKind.BET,
            seat.seat,
            to_call=to_call,
            can_check=to_call == 0,
            can_bet=self.current_bet == 0 and seat.stack > 0,
            can_raise=self.current_bet > 0 and raises_left > 0 and seat.stack > to_call,
            min_bet=self.stakes.min_bet,
            max_bet=self.stakes.max_bet,
            raises_left=raises_left,
        )

    # ------------------------------------------------------------------ applying

    def copy(self) -> TableState:
        return copy.deepcopy(self)

    def apply(self, event: Event) -> None:
        """Apply one event, or raise without changing anything."""
        trial = self.copy()
        trial.advance(event)
        self.__dict__.update(trial.__dict__)

    def advance(self, event: Event) -> None:
        """Apply one event in place. On an error the state may be half changed, so
        callers that keep going rebuild it from the events (as :class:`Session` does)."""
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise errors.SessionError(f"{type(event).__name__} cannot be applied to a session in progress")
        handler(self, event)
        if sum(s.stack for s in self.seats) + self.pot != self.total_chips:
            raise AssertionError(f"chips not conserved after {event}")

    # ------------------------------------------------------------------ checks

    def _seat(self, seat: int) -> SeatState:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise errors.IllegalActionError(f"there is no seat {seat}")
        return self.seats[seat]

    def _expect(self, *phases: Phase, action: str) -> None:
        if self.phase not in phases:
            raise errors.WrongPhaseError(f"cannot {action} now: the hand is {self.phase.value}")

    def _expect_turn(self, seat: int, expected: int | None) -> SeatState:
        state = self._seat(seat)
        if expected != seat:
            who = "nobody" if expected is None else f"seat {expected} ({self.seats[expected].name})"
            raise errors.NotYourTurnError(f"it is not seat {seat}'s ({state.name}) turn: {who} decides now")
        return state

    def _check_new_card(self, card: Card | None) -> None:
        if card is not None and card in self.cards_in_play():
            raise errors.CardError(f"{card} is already on the table")

    # ------------------------------------------------------------------ hands

    def _start_hand(self, _: HandStarted) -> None:
        self._expect(Phase.WAITING, Phase.COMPLETE, action="start a hand")
        ante = self.stakes.ante
        for s in self.seats:
            if s.stack == 0:
                s.out = True  # out of chips: out of the game
        playing = [s for s in self.seats if not s.out]
        if len(playing) < 2:
            raise errors.SessionError("fewer than two players have chips left: the game is over")
        if self.hand_number > 0 or self.seats[self.dealer].out:
            self.dealer = next(i for i in self.clockwise_from(self.dealer) if not self.seats[i].out)
        self.hand_number += 1
        self.result = None
        self.stub = len(FULL_DECK)
        self.reshuffles = 0
        self.draw_rounds = 0
        self.betting_rounds = 0
        for s in self.seats:
            s.cards = []
            s.folded = s.busted = s.acted = s.frozen = s.shown = False
            s.bet = s.committed = s.refusals = s.refusals_in_a_row = 0
            s.declaration = None
            s.in_hand = not s.out
            if s.in_hand:  # short of the ante: all in for what is left
                s.committed = min(ante, s.stack)
                s.stack -= s.committed
        order = [i for i in self.clockwise_from(self.dealer) if self.seats[i].in_hand]
        self.queue = [seat for _ in self.rules.deal for seat in order]
        self.deal_faces = [face for face in self.rules.deal for _ in order]
        self.phase = Phase.DEALING

    def _deal(self, event: CardDealt) -> None:
        self._expect(Phase.DEALING, action="deal a starting card")
        seat = self._expect_turn(event.seat, self.queue[0])
        self._give_card(seat, event.card, self.deal_faces[0])
        if self.hand_done:
            return
        self.queue.pop(0)
        self.deal_faces.pop(0)
        if seat.folded:
            self._drop_from_turns(seat.seat)
        elif not self.queue:
            self._after_deal()

    def _give_card(self, seat: SeatState, card: Card | None, face_up: bool) -> None:
        if face_up and card is None:
            raise errors.CardError(f"a face-up card to seat {seat.seat} needs its rank and suit")
        if self.stub == 0:
            self._reshuffle_folded()
        self._check_new_card(card)
        self.stub -= 1
        seat.cards.append(HeldCard(card, face_up))
        self._check_bust(seat)

    def _reshuffle_folded(self) -> None:
        folded = [s for s in self.seats if s.in_hand and s.folded and s.cards]
        if not folded:
            raise errors.DeckExhaustedError("the deck is empty and there are no folded cards to reshuffle")
        for s in folded:
            self.stub += len(s.cards)
            s.cards = []
        self.reshuffles += 1

    def _check_bust(self, seat: SeatState) -> None:
        """Over-is-bust: a hand whose known cards are over the high target folds at once."""
        if self.rules.bust and seat.live and is_busted(hand_totals(seat.known_cards, self.rules), self.rules):
            seat.busted = True
            self._fold(seat)

    def _after_deal(self) -> None:
        if self.rules.exposures:
            self.queue = [
                i for i in self.clockwise_from(self.dealer) if self.seats[i].live
            ] * self.rules.exposures
            self.phase = Phase.EXPOSING
        else:
            self._start_play()

    def _expose(self, event: CardExposed) -> None:
        self._expect(Phase.EXPOSING, action="expose a card")
        seat = self._expect_turn(event.seat, self.queue[0])
        hidden = [i for i, h in enumerate(seat.cards) if not h.face_up]
        index = next((i for i in hidden if seat.cards[i].card == event.card), None)
        if index is None:
            index = next((i for i in hidden if seat.cards[i].card is None), None)
            if index is None:
                raise errors.CardError(f"{event.card} is not one of seat {seat.seat}'s face-down cards")
            self._check_new_card(event.card)
        seat.cards[index] = HeldCard(event.card, True)
        self.queue.pop(0)
        self._check_bust(seat)
        if self._hand_over():
            return
        self.queue = [i for i in self.queue if self.seats[i].live]
        if not self.queue:
            self._start_play()

    def _start_play(self) -> None:
        if self.rules.betting is BettingStructure.FIXED_PER_TURN:
            betting.start_orbit(self)
        else:
            betting.start_betting(self, final=False)

    def _fold(self, s: SeatState) -> None:
        s.folded = True
        self._hand_over()

    def _hand_over(self) -> bool:
        """All but one folded: the last player takes the pot at once."""
        live = self.live_seats
        if len(live) == 1 and not self.hand_done:
            self._award(settle(self, uncontested=live[0].seat))
            return True
        return False

    # ------------------------------------------------------------------ draws

    def _draw_order(self) -> list[int]:
        return [
            i for i in self.clockwise_from(self.dealer) if self.seats[i].live and not self.seats[i].frozen
        ]

    def _start_draw_round(self) -> None:
        self.draw_rounds += 1
        self.card_taken_this_round = False
        self.queue = self._draw_order()
        self.phase = Phase.DRAWING
        if not self.queue:
            self._end_draw_round()

    def _draw_turn(self, seat: int, action: str) -> SeatState:
        self._expect(Phase.DRAWING, Phase.TURN_DRAW, action=action)
        if self._seat(seat).frozen:
            raise errors.FrozenPlayerError(
                f"seat {seat} ({self.seats[seat].name}) is frozen and may not take cards"
            )
        expected = self.queue[0] if self.phase is Phase.DRAWING else self.actor
        return self._expect_turn(seat, expected)

    def _take(self, event: CardTaken) -> None:
        s = self._draw_turn(event.seat, "take a card")
        self._give_card(s, event.card, self.rules.draws_face_up)
        s.refusals_in_a_row = 0
        self.card_taken_this_round = True
        self._after_draw_decision()

    def _refuse(self, event: CardRefused) -> None:
        s = self._draw_turn(event.seat, "refuse a card")
        s.refusals += 1
        s.refusals_in_a_row += 1
        limit = self.rules.freeze_after
        count = s.refusals_in_a_row if self.rules.freeze_consecutive else s.refusals
        if limit and count >= limit:
            s.frozen = True
        self._after_draw_decision()

    def _after_draw_decision(self) -> None:
        if self.hand_done:
            return
        if self.phase is Phase.TURN_DRAW:
            assert self.actor is not None
            if self.seats[self.actor].live:
                self.phase = Phase.TURN_BET
            else:
                betting.end_turn(self)
            return
        self.queue.pop(0)
        self.queue = [i for i in self.queue if self.seats[i].live and not self.seats[i].frozen]
        if not self.queue:
            self._end_draw_round()

    def _end_draw_round(self) -> None:
        if self.card_taken_this_round:
            betting.start_betting(self, final=False)
        elif self.rules.bet_after_last_draw:
            betting.start_betting(self, final=True)
        else:
            self._to_showdown()

    # ------------------------------------------------------------------ declaring and showdown

    def _to_showdown(self) -> None:
        self.actor = None
        if self._hand_over():
            return
        order = [i for i in self.clockwise_from(self.dealer) if self.seats[i].live]
        if self.rules.declaration:
            self.queue = order
            self.phase = Phase.DECLARING
        else:
            self._start_showdown()

    def _declare(self, event: Declared) -> None:
        self._expect(Phase.DECLARING, action="declare")
        s = self._seat(event.seat)
        if not s.live:
            raise errors.IllegalActionError(f"seat {s.seat} ({s.name}) is not in the hand")
        if s.declaration is not None:
            raise errors.IllegalActionError(f"seat {s.seat} ({s.name}) has already declared")
        s.declaration = event.declaration
        self.queue.remove(s.seat)
        if not self.queue:
            self._start_showdown()

    def _start_showdown(self) -> None:
        self.phase = Phase.SHOWDOWN
        self.queue = [
            i for i in self.clockwise_from(self.dealer) if self.seats[i].live and self.seats[i].unknown_count
        ]
        if not self.queue:
            self._score()

    def _reveal(self, s: SeatState, cards: Iterable[Card]) -> None:
        shown = list(cards)
        hidden = [i for i, h in enumerate(s.cards) if not h.face_up]
        if len(shown) != len(hidden):
            raise errors.CardError(
                f"seat {s.seat} ({s.name}) has {len(hidden)} face-down cards, not {len(shown)}"
            )
        if len(set(shown)) != len(shown):
            raise errors.CardError("the same card is shown twice")
        known = [s.cards[i].card for i in hidden if s.cards[i].card is not None]
        for card in known:
            if card not in shown:
                raise errors.CardError(
                    f"seat {s.seat} was dealt {card} face down, which is not among the shown cards"
                )
        others = self.cards_in_play() - set(known)
        for card in shown:
            if card in others:
                raise errors.CardError(f"{card} is already on the table")
        for i, card in zip(hidden, shown, strict=True):
            s.cards[i] = HeldCard(card, False)
        s.shown = True

    def _show(self, event: HandShown) -> None:
        if self.phase is Phase.DECLARING and self.rules.natural_takes_pot:
            self._claim_natural(event)
            return
        self._expect(Phase.SHOWDOWN, action="show a hand")
        s = self._seat(event.seat)
        if s.seat not in self.queue:
            raise errors.IllegalActionError(f"seat {s.seat} ({s.name}) has nothing to show")
        self._reveal(s, event.cards)
        self._check_bust(s)  # over the target under bust rules: folds, even now
        if self.hand_done:
            return
        self.queue = [q for q in self.queue if q != s.seat]
        if not self.queue:
            self._score()

    def _claim_natural(self, event: HandShown) -> None:
        """A natural is shown before anyone declares; then everyone else shows."""
        s = self._seat(event.seat)
        if not s.live:
            raise errors.IllegalActionError(f"seat {s.seat} ({s.name}) is not in the hand")
        top = max(o.committed for o in self.live_seats)
        if s.committed < top:
            raise errors.IllegalActionError(
                f"seat {s.seat} ({s.name}) is all in and cannot win the side pots: "
                "everyone declares, and the natural wins the main pot at the showdown"
            )
        self._reveal(s, event.cards)
        if not is_natural(hand_totals(s.known_cards, self.rules), self.rules):
            low, high = self.rules.targets
            raise errors.IllegalActionError(
                f"seat {s.seat} ({s.name}) is not a natural (exactly {low} and {high}): declare instead"
            )
        self.phase = Phase.SHOWDOWN
        self.queue = [
            i for i in self.clockwise_from(self.dealer) if self.seats[i].live and self.seats[i].unknown_count
        ]
        if not self.queue:
            self._score()

    def _bust_shown(self, event: BustShown) -> None:
        if not self.rules.bust:
            raise errors.IllegalActionError("these rules have no bust: a player over the target stays in")
        if self.phase in (Phase.WAITING, Phase.COMPLETE, Phase.FINISHED, Phase.SHOWDOWN):
            raise errors.WrongPhaseError(f"cannot show a bust now: the hand is {self.phase.value}")
        s = self._seat(event.seat)
        if not s.live:
            raise errors.IllegalActionError(f"seat {s.seat} ({s.name}) is not in the hand")
        self._reveal(s, event.cards)
        if not is_busted(hand_totals(s.known_cards, self.rules), self.rules):
            raise errors.IllegalActionError(f"seat {s.seat} ({s.name}) is not over {self.rules.targets[1]}")
        s.busted = True
        self._fold(s)
        if not self.hand_done:
            self._drop_from_turns(s.seat)

    def _drop_from_turns(self, seat: int) -> None:
        """A player folded out of turn (a bust): take them out of what is pending."""
        if self.hand_done:
            return
        if self.phase is Phase.DEALING:
            kept = [(q, f) for q, f in zip(self.queue, self.deal_faces, strict=True) if q != seat]
            self.queue = [q for q, _ in kept]
            self.deal_faces = [f for _, f in kept]
            if not self.queue:
                self._after_deal()
            return
        if seat in self.queue:
            self.queue = [q for q in self.queue if q != seat]
            if not self.queue:
                finish = {
                    Phase.DRAWING: self._end_draw_round,
                    Phase.DECLARING: self._start_showdown,
                    Phase.EXPOSING: self._start_play,
                    Phase.SHOWDOWN: self._score,
                }.get(self.phase)
                if finish is not None:
                    finish()
            return
        if self.actor == seat:
            if self.phase is Phase.BETTING:
                betting.next_bettor(self)
            elif self.phase is Phase.MATCHING:
                betting.next_matcher(self)
            elif self.phase in (Phase.TURN_DRAW, Phase.TURN_BET):
                betting.end_turn(self)

    def _score(self) -> None:
        self._award(settle(self))

    def _award(self, result: HandResult) -> None:
        for seat, chips in result.awards.items():
            self.seats[seat].stack += chips
        for s in self.seats:
            s.committed = 0
            s.bet = 0
        self.result = result
        self.queue = []
        self.actor = None
        self.phase = Phase.COMPLETE
        if sum(1 for s in self.seats if s.stack > 0) < 2:
            self.phase = Phase.FINISHED

    # ------------------------------------------------------------------ corrections

    def _correct(self, event: CardCorrected) -> None:
        if self.phase in (Phase.WAITING, Phase.COMPLETE, Phase.FINISHED):
            raise errors.WrongPhaseError(
                "cards can be corrected only during a hand; undo to change a finished one"
            )
        s = self._seat(event.seat)
        if not 0 <= event.index < len(s.cards):
            raise errors.CardError(f"seat {s.seat} ({s.name}) has no card number {event.index + 1}")
        old = s.cards[event.index]
        if event.card != old.card:
            self._check_new_card(event.card)
        s.cards[event.index] = HeldCard(event.card, old.face_up)
        if s.busted and not is_busted(hand_totals(s.known_cards, self.rules), self.rules):
            raise errors.IllegalActionError(
                f"the misread card folded seat {s.seat} ({s.name}) as bust: undo back to that card "
                "and enter it again, so the hand is replayed with the right card"
            )
        self._check_bust(s)
        if not self.hand_done and s.folded:
            self._drop_from_turns(s.seat)


_HANDLERS: dict[type, Callable[[TableState, Any], None]] = {
    HandStarted: TableState._start_hand,
    CardDealt: TableState._deal,
    CardExposed: TableState._expose,
    CardTaken: TableState._take,
    CardRefused: TableState._refuse,
    Checked: betting.check,
    BetMade: betting.bet,
    Called: betting.call,
    Raised: betting.raise_bet,
    Folded: betting.fold_action,
    Declared: TableState._declare,
    HandShown: TableState._show,
    BustShown: TableState._bust_shown,
    CardCorrected: TableState._correct,
}


def fold_events(events: Iterable[Event]) -> TableState:
    """Rebuild a state from a session's events (the first must be ``SessionStarted``)."""
    iterator = iter(events)
    first = next(iterator, None)
    if not isinstance(first, SessionStarted):
        raise errors.SessionError("a session's events must begin with SessionStarted")
    state = TableState(first)
    for event in iterator:
        state.advance(event)
    return state
