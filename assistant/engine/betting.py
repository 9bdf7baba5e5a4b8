"""Betting: poker-style rounds (check, bet, call, raise, fold, limits and raise caps)
and the fixed-per-turn structure (after each draw decision, bet the fixed amount or
pass; every player still in matches a bet or folds).

These functions change a :class:`~assistant.engine.state.TableState`; the state's
event handlers call them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.engine import errors
from assistant.engine.events import BetMade, Called, Checked, Folded, Raised
from assistant.engine.rules import FirstBettor
from assistant.engine.table import Phase, SeatState

if TYPE_CHECKING:
    from assistant.engine.state import TableState


def can_act(state: TableState, s: SeatState) -> bool:
    return s.live and s.stack > 0


def start_betting(state: TableState, final: bool) -> None:
    state.final_round = final
    state.current_bet = 0
    state.raises = 0
    for s in state.seats:
        s.bet = 0
        s.acted = False
    actors = [s for s in state.seats if can_act(state, s)]
    if len(actors) < 2:
        end_betting(state)
        return
    state.betting_rounds += 1
    state.phase = Phase.BETTING
    order = state.clockwise_from(state.dealer)
    if state.rules.first_bettor is FirstBettor.HIGHEST_EXPOSED:

        def exposed(i: int) -> int:
            return max((c.rank.high_order for c in state.seats[i].up_cards), default=0)

        best = max(exposed(s.seat) for s in actors)
        state.actor = next(i for i in order if can_act(state, state.seats[i]) and exposed(i) == best)
    else:
        state.actor = next(i for i in order if can_act(state, state.seats[i]))


def next_bettor(state: TableState) -> None:
    assert state.actor is not None
    for i in state.clockwise_from(state.actor):
        s = state.seats[i]
        if can_act(state, s) and (not s.acted or s.bet < state.current_bet):
            # a lone player with nothing to call has nobody to bet against
            others = [o for o in state.seats if can_act(state, o) and o is not s]
            if not others and s.bet >= state.current_bet:
                break
            state.actor = i
            return
    end_betting(state)


def betting_turn(state: TableState, seat: int, action: str) -> SeatState:
    state._expect(Phase.BETTING, Phase.TURN_BET, Phase.MATCHING, action=action)
    return state._expect_turn(seat, state.actor)


def pay(state: TableState, s: SeatState, amount: int) -> None:
    if amount > s.stack:
        raise errors.InsufficientChipsError(f"seat {s.seat} ({s.name}) has {s.stack} chips, not {amount}")
    s.stack -= amount
    s.bet += amount
    s.committed += amount


def check(state: TableState, event: Checked) -> None:
    s = betting_turn(state, event.seat, "check")
    if state.phase is Phase.MATCHING:
        raise errors.IllegalActionError(f"seat {s.seat} must match the bet or fold")
    if state.phase is Phase.TURN_BET:
        end_turn(state)
        return
    if s.bet < state.current_bet:
        raise errors.IllegalActionError(f"seat {s.seat} cannot check: {state.current_bet - s.bet} to call")
    s.acted = True
    next_bettor(state)


def bet(state: TableState, event: BetMade) -> None:
    whole_chips(event.amount)
    s = betting_turn(state, event.seat, "bet")
    if state.phase is Phase.MATCHING:
        raise errors.IllegalActionError(f"seat {s.seat} must match the bet or fold")
    if state.phase is Phase.TURN_BET:
        place_fixed_bet(state, s, event.amount)
        return
    if state.current_bet > 0:
        raise errors.IllegalActionError(f"there is already a bet of {state.current_bet}: call, raise or fold")
    check_amount(state, s, event.amount, needed=event.amount)
    pay(state, s, event.amount)
    state.current_bet = s.bet
    reopen(state, s)


def check_amount(state: TableState, s: SeatState, amount: int, needed: int) -> None:
    lo, hi = state.stakes.min_bet, state.stakes.max_bet
    all_in = needed == s.stack
    if amount > hi or (amount < lo and not all_in) or amount < 1:
        raise errors.BetLimitError(f"bets and raises must be {lo}-{hi} chips, not {amount}")
    if needed > s.stack:
        raise errors.InsufficientChipsError(
            f"seat {s.seat} ({s.name}) has {s.stack} chips and cannot put in {needed}"
        )


def reopen(state: TableState, s: SeatState) -> None:
    for other in state.seats:
        other.acted = other is s
    next_bettor(state)


def call(state: TableState, event: Called) -> None:
    s = betting_turn(state, event.seat, "call")
    to_call = state.current_bet - s.bet
    if state.phase is Phase.TURN_BET or to_call <= 0:
        raise errors.IllegalActionError(f"seat {s.seat} has nothing to call")
    pay(state, s, min(to_call, s.stack))
    s.acted = True
    if state.phase is Phase.MATCHING:
        next_matcher(state)
    else:
        next_bettor(state)


def raise_bet(state: TableState, event: Raised) -> None:
    whole_chips(event.amount)
    s = betting_turn(state, event.seat, "raise")
    if state.phase is not Phase.BETTING:
        raise errors.IllegalActionError("bets are fixed in this game: there are no raises")
    if state.current_bet == 0:
        raise errors.IllegalActionError("there is no bet to raise: bet instead")
    if state.raises >= state.stakes.max_raises:
        raise errors.BetLimitError(f"the cap of {state.stakes.max_raises} raises this round is reached")
    to_call = state.current_bet - s.bet
    check_amount(state, s, event.amount, needed=to_call + event.amount)
    pay(state, s, to_call + event.amount)
    state.current_bet = s.bet
    if event.amount >= state.stakes.min_bet:
        state.raises += 1  # an all-in raise short of the minimum does not use up the cap
    reopen(state, s)


def fold_action(state: TableState, event: Folded) -> None:
    state._expect(Phase.BETTING, Phase.TURN_DRAW, Phase.TURN_BET, Phase.MATCHING, action="fold")
    s = state._expect_turn(event.seat, state.actor)
    phase = state.phase
    state._fold(s)
    if state.hand_done:
        return
    if phase is Phase.MATCHING:
        next_matcher(state)
    elif phase in (Phase.TURN_DRAW, Phase.TURN_BET):
        end_turn(state)
    else:
        next_bettor(state)


def whole_chips(amount: object) -> int:
    """Chips are whole numbers: anything else is refused."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise errors.BetLimitError(f"chips are whole numbers, not {amount!r}")
    return amount


def end_betting(state: TableState) -> None:
    for s in state.seats:
        s.bet = 0
    state.current_bet = 0
    state.actor = None
    if state.final_round:
        state._to_showdown()
    else:
        state._start_draw_round()


def start_orbit(state: TableState) -> None:
    state.draw_rounds += 1
    state.card_taken_this_round = False
    state.queue = [i for i in state.clockwise_from(state.dealer) if state.seats[i].live]
    next_turn(state)


def next_turn(state: TableState) -> None:
    while state.queue:
        seat = state.queue.pop(0)
        s = state.seats[seat]
        if not s.live:
            continue
        state.actor = seat
        state.current_bet = 0
        for other in state.seats:
            other.bet = 0
        state.phase = Phase.TURN_BET if s.frozen else Phase.TURN_DRAW
        return
    state.actor = None
    if state.card_taken_this_round:
        start_orbit(state)
    else:
        state._to_showdown()


def end_turn(state: TableState) -> None:
    for s in state.seats:
        s.bet = 0
    state.current_bet = 0
    next_turn(state)


def fixed_bet(state: TableState) -> int:
    """The one bet of the fixed-per-turn structure: the ante (or the minimum bet)."""
    return state.stakes.ante or state.stakes.min_bet


def place_fixed_bet(state: TableState, s: SeatState, amount: int) -> None:
    fixed = fixed_bet(state)
    if s.stack == 0:
        raise errors.InsufficientChipsError(f"seat {s.seat} ({s.name}) has no chips to bet")
    if amount != fixed and not (amount == s.stack < fixed):
        raise errors.BetLimitError(f"the bet is fixed at {fixed} chips, not {amount}")
    pay(state, s, amount)
    state.current_bet = amount
    state.matchers = [
        i for i in state.clockwise_from(s.seat) if i != s.seat and can_act(state, state.seats[i])
    ]
    state.turn_owner = s.seat
    state.phase = Phase.MATCHING
    next_matcher(state)


def next_matcher(state: TableState) -> None:
    if state.hand_done:
        return
    while state.matchers:
        seat = state.matchers.pop(0)
        if can_act(state, state.seats[seat]):
            state.actor = seat
            return
    state.phase = Phase.TURN_BET
    state.actor = state.turn_owner
    state.turn_owner = None
    end_turn(state)
