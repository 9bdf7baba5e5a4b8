"""A hand's order of play: deal, betting rounds, draws, freezes, declarations, showdown."""

from collections.abc import Iterable

import pytest

from assistant.engine import (
    BetLimitError,
    CardError,
    DecisionKind,
    FrozenPlayerError,
    InsufficientChipsError,
    NotYourTurnError,
    Phase,
    Session,
    SessionError,
    Stakes,
    WrongPhaseError,
)
from tests.engine.conftest import deal_all, new_session
from tests.helpers import decision_of, phase_of, result_of, seat_of


def checks_around(session: Session, seats: Iterable[int]) -> None:
    for seat in seats:
        session.check(seat)


def test_seven_twenty_seven_deals_one_up_then_one_down_from_the_dealers_left() -> None:
    s = new_session(dealer=2)
    s.start_hand()
    order = []
    while decision_of(s).kind is DecisionKind.DEAL:
        order.append((decision_of(s).seat, decision_of(s).face_up))
        s.deal(seat_of(s), None if not decision_of(s).face_up else ["2c", "3c", "4c", "5c"][seat_of(s)])
    assert order == [
        (3, True),
        (0, True),
        (1, True),
        (2, True),
        (3, False),
        (0, False),
        (1, False),
        (2, False),
    ]
    assert s.state.pot == 4  # antes


def test_online_deals_one_down_then_one_up() -> None:
    s = new_session("online-seven-twenty-seven")
    s.start_hand()
    assert (decision_of(s).seat, decision_of(s).face_up) == (1, False)


def test_a_face_up_card_needs_its_identity() -> None:
    s = new_session()
    s.start_hand()
    with pytest.raises(CardError, match="needs its rank and suit"):
        s.deal(1, None)


def test_the_same_card_cannot_be_dealt_twice() -> None:
    s = new_session()
    s.start_hand()
    s.deal(1, "Ah")
    with pytest.raises(CardError, match="Ah is already on the table"):
        s.deal(2, "Ah")


def test_first_betting_round_starts_left_of_the_dealer_and_ends_when_all_match() -> None:
    s = new_session()
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 3: ["4c", None], 0: ["5c", None]})
    assert phase_of(s) is Phase.BETTING and decision_of(s).seat == 1
    s.bet(1, 3)
    s.raise_(2, 2)  # puts in 5
    s.call(3)
    s.fold(0)
    s.call(1)  # two more
    assert phase_of(s) is Phase.DRAWING
    assert s.state.pot == 4 + 15
    assert [x.stack for x in s.state.seats] == [49, 44, 44, 44]


def test_acting_out_of_turn_is_refused_and_changes_nothing() -> None:
    s = new_session()
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 3: ["4c", None], 0: ["5c", None]})
    before = s.events
    with pytest.raises(NotYourTurnError, match="seat 1 \\(Ben\\) decides now"):
        s.bet(2, 3)
    assert s.events == before and decision_of(s).seat == 1


def test_bets_outside_the_limits_and_past_the_raise_cap_are_refused() -> None:
    s = new_session()
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 3: ["4c", None], 0: ["5c", None]})
    with pytest.raises(BetLimitError, match="1-5"):
        s.bet(1, 6)
    s.bet(1, 5)
    s.raise_(2, 5)
    s.raise_(3, 5)
    s.raise_(0, 5)
    assert not decision_of(s).can_raise
    with pytest.raises(BetLimitError, match="cap of 3 raises"):
        s.raise_(1, 1)


def test_checking_with_chips_to_call_is_refused() -> None:
    s = new_session()
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 3: ["4c", None], 0: ["5c", None]})
    s.bet(1, 2)
    with pytest.raises(Exception, match="2 to call"):
        s.check(2)


def test_a_bet_over_the_stack_is_refused_but_all_in_for_less_is_allowed() -> None:
    s = new_session(stacks=(50, 4, 50, 50))
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 3: ["4c", None], 0: ["5c", None]})
    with pytest.raises(InsufficientChipsError):
        s.bet(1, 5)
    s.bet(1, 3)  # all in
    assert s.state.seats[1].all_in


def test_draws_then_a_round_with_no_card_taken_goes_to_the_showdown() -> None:
    s = new_session()
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 3: ["4c", None], 0: ["5c", None]})
    checks_around(s, [1, 2, 3, 0])
    assert phase_of(s) is Phase.DRAWING and decision_of(s).seat == 1 and not decision_of(s).face_up
    s.take(1)
    for seat in (2, 3, 0):
        s.refuse(seat)
    assert phase_of(s) is Phase.BETTING
    checks_around(s, [1, 2, 3, 0])
    for seat in (1, 2, 3, 0):
        s.refuse(seat)
    # base game: no betting round after a draw round nobody drew in
    assert phase_of(s) is Phase.SHOWDOWN
    assert decision_of(s).kind is DecisionKind.SHOW and decision_of(s).seat == 1


def test_saying_no_does_not_stop_a_player_drawing_next_time_in_the_base_game() -> None:
    s = new_session()
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 3: ["4c", None], 0: ["5c", None]})
    for _ in range(4):
        checks_around(s, [1, 2, 3, 0])
        s.refuse(1)
        s.take(2)
        s.refuse(3)
        s.refuse(0)
    checks_around(s, [1, 2, 3, 0])
    s.take(1)  # after four refusals Ben still may draw
    assert not s.state.seats[1].frozen


def test_online_player_is_frozen_after_three_refusals_in_total() -> None:
    s = new_session("online-seven-twenty-seven")
    s.start_hand()
    deal_all(s, {1: [None, "2c"], 2: [None, "3c"], 3: [None, "4c"], 0: [None, "5c"]})

    def draw_round(ben_takes: bool) -> None:
        checks_around(s, [1, 2, 3, 0])
        if not s.state.seats[1].frozen:
            s.take(1) if ben_takes else s.refuse(1)
        s.take(2)
        s.take(3)
        s.take(0)

    draw_round(False)
    draw_round(True)
    draw_round(False)
    assert not s.state.seats[1].frozen
    draw_round(False)
    assert s.state.seats[1].frozen and s.state.seats[1].refusals == 3
    checks_around(s, [1, 2, 3, 0])
    assert decision_of(s).seat == 2  # frozen Ben is not asked
    with pytest.raises(FrozenPlayerError, match="Ben\\) is frozen"):
        s.take(1)


def test_fifteen_thirty_five_freezes_after_two_refusals_in_a_row() -> None:
    s = new_session("fifteen-thirty-five")
    s.start_hand()
    deal_all(s, {seat: ["Ac", None, None] if seat == 1 else [None, None, None] for seat in range(4)})
    for seat, card in ((1, "Ac"), (2, "3d"), (3, "4d"), (0, "Kd")):
        s.expose(seat, card)
    assert decision_of(s).seat == 1  # highest exposed card (the ace) bets first
    checks_around(s, [1, 2, 3, 0])
    s.refuse(1)
    s.take(2, "9c")
    s.take(3, "8c")
    s.take(0, "7c")
    checks_around(s, [1, 2, 3, 0])
    s.take(1, "2h")  # the refusal streak is broken
    s.refuse(2)
    s.take(3, "2d")
    s.refuse(0)
    checks_around(s, [1, 2, 3, 0])
    s.refuse(1)
    s.refuse(2)  # second in a row: Carla freezes
    assert s.state.seats[2].frozen and not s.state.seats[1].frozen
    s.take(3, "2s")
    s.refuse(0)  # Dan: two in a row as well
    assert s.state.seats[0].frozen
    checks_around(s, [1, 2, 3, 0])
    assert decision_of(s).seat == 1
    with pytest.raises(FrozenPlayerError, match="Carla\\) is frozen"):
        s.take(2, "3h")


def test_fifteen_thirty_five_has_a_final_betting_round_then_declarations() -> None:
    s = new_session("fifteen-thirty-five", stacks=(50, 50))
    s.start_hand()
    deal_all(s, {1: [None, None, None], 0: [None, None, None]})
    s.expose(1, "9c")
    s.expose(0, "Kd")
    assert decision_of(s).seat == 0  # the King outranks the 9
    with pytest.raises(NotYourTurnError):
        s.check(1)
    checks_around(s, [0, 1])
    s.refuse(1)
    s.refuse(0)
    assert phase_of(s) is Phase.BETTING and s.state.final_round
    checks_around(s, [0, 1])
    assert phase_of(s) is Phase.DECLARING


def test_first_bettor_is_the_highest_exposed_card_first_in_rotation() -> None:
    s = new_session("fifteen-thirty-five")
    s.start_hand()
    deal_all(s, {seat: [None, None, None] for seat in range(4)})
    for seat, card in ((1, "9c"), (2, "Kd"), (3, "4d"), (0, "Ks")):
        s.expose(seat, card)
    assert decision_of(s).kind is DecisionKind.BET and decision_of(s).seat == 2


def test_declarations_are_collected_then_hands_shown_and_the_pot_divided() -> None:
    s = new_session("online-seven-twenty-seven", stacks=(50, 50, 50))
    s.start_hand()
    deal_all(s, {1: [None, "6c"], 2: [None, "Tc"], 0: [None, "2c"]})
    checks_around(s, [1, 2, 0])
    for seat in (1, 2, 0):
        s.refuse(seat)
    assert phase_of(s) is Phase.BETTING  # online: a final betting round
    s.bet(1, 5)
    s.call(2)
    s.fold(0)
    assert phase_of(s) is Phase.DECLARING
    with pytest.raises(Exception, match="not in the hand"):
        s.declare(0, "low")
    s.declare(2, "high")
    s.declare(1, "low")
    s.show(1, ["Jd"])
    s.show(2, ["9d"])
    assert phase_of(s) is Phase.COMPLETE
    assert result_of(s).awards == {1: 6, 2: 7}
    assert [x.stack for x in s.state.seats] == [49, 50, 51]


def test_everyone_else_folding_gives_the_last_player_the_pot_at_once() -> None:
    s = new_session()
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 3: ["4c", None], 0: ["5c", None]})
    s.bet(1, 5)
    s.fold(2)
    s.fold(3)
    s.fold(0)
    assert s.state.phase is Phase.COMPLETE
    assert result_of(s).uncontested == 1
    assert [x.stack for x in s.state.seats] == [49, 53, 49, 49]


def test_the_deal_passes_to_the_left_after_every_hand() -> None:
    s = new_session(stacks=(50, 50))
    s.start_hand()
    assert s.state.dealer == 0
    deal_all(s, {1: ["2c", None], 0: ["3c", None]})
    s.bet(1, 1)
    s.fold(0)
    s.start_hand()
    assert s.state.dealer == 1 and decision_of(s).seat == 0


def test_all_in_player_wins_only_the_main_pot_and_is_out_when_broke() -> None:
    s = new_session(stacks=(50, 1, 50), stakes=Stakes(ante=1))
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 0: ["4c", None]})
    assert s.state.seats[1].all_in and decision_of(s).seat == 2  # Ben has nothing left to bet
    s.bet(2, 5)
    s.fold(0)
    s.refuse(1)
    s.refuse(2)
    s.show(1, ["Kd"])  # 2½
    s.show(2, ["4d"])  # 7: both halves
    result = result_of(s)
    assert [(p.amount, p.seats) for p in result.pots] == [(3, (1, 2)), (5, (2,))]
    assert [x.stack for x in s.state.seats] == [49, 0, 52]
    assert s.state.phase is Phase.COMPLETE
    s.start_hand()
    assert s.state.seats[1].out and not s.state.seats[1].in_hand
    assert s.state.dealer == 2


def test_the_game_is_finished_when_one_player_has_chips() -> None:
    s = new_session(stacks=(1, 1))
    s.start_hand()
    deal_all(s, {1: ["2c", None], 0: ["4c", None]})
    s.refuse(1)
    s.refuse(0)
    s.show(1, ["3d"])  # 5 beats 4½ for both targets
    s.show(0, ["Kd"])
    assert s.state.phase is Phase.FINISHED and s.decision is None
    with pytest.raises(WrongPhaseError):
        s.start_hand()


def test_fixed_per_turn_game_take_then_bet_and_everyone_matches_or_folds() -> None:
    s = new_session("under-seven-twenty-seven", stakes=Stakes(ante=2))
    s.start_hand()
    deal_all(s, {seat: [None] for seat in range(4)})
    assert decision_of(s).kind is DecisionKind.DRAW and decision_of(s).seat == 1 and decision_of(s).face_up
    s.take(1, "3c")
    assert decision_of(s).kind is DecisionKind.BET
    with pytest.raises(BetLimitError, match="fixed at 2"):
        s.bet(1, 3)
    s.bet(1, 2)
    assert decision_of(s).kind is DecisionKind.MATCH and decision_of(s).seat == 2
    s.call(2)
    s.fold(3)
    s.call(0)
    assert decision_of(s).kind is DecisionKind.DRAW and decision_of(s).seat == 2
    assert s.state.pot == 8 + 6


def test_under_game_ends_after_a_full_orbit_with_no_card_and_goes_to_declarations() -> None:
    s = new_session("under-seven-twenty-seven", stacks=(50, 50))
    s.start_hand()
    deal_all(s, {1: [None], 0: [None]})
    s.take(1, "3c")
    s.pass_(1)
    s.refuse(0)
    s.pass_(0)
    s.refuse(1)
    s.pass_(1)
    s.refuse(0)
    s.pass_(0)
    assert s.state.phase is Phase.DECLARING


def test_under_game_player_over_twenty_seven_folds_at_once() -> None:
    s = new_session("under-seven-twenty-seven", stacks=(50, 50, 50))
    s.start_hand()
    deal_all(s, {1: [None], 2: [None], 0: [None]})
    s.take(1, "Tc")
    s.pass_(1)
    s.take(2, "2c")
    s.pass_(2)
    s.take(0, "2d")
    s.pass_(0)
    s.take(1, "Td")
    s.pass_(1)
    s.refuse(2)
    s.pass_(2)
    s.refuse(0)
    s.pass_(0)
    s.take(1, "9s")  # face-up 29: over 27 whatever the hidden card is
    assert s.state.seats[1].busted and s.state.seats[1].folded
    assert decision_of(s).seat == 2


def test_bust_shown_reveals_the_hidden_card_and_folds_out_of_turn() -> None:
    s = new_session("under-seven-twenty-seven", stacks=(50, 50, 50))
    s.start_hand()
    deal_all(s, {1: [None], 2: [None], 0: [None]})
    for seat, card in ((1, "Tc"), (2, "2c"), (0, "2d"), (1, "9s")):
        s.take(seat, card)
        s.pass_(seat)
    assert decision_of(s).seat == 2
    with pytest.raises(Exception, match="not over 27"):
        s.show_bust(1, ["2h"])
    s.show_bust(1, ["Th"])  # 29
    assert s.state.seats[1].busted and s.state.seats[1].folded
    assert decision_of(s).seat == 2 and decision_of(s).kind is DecisionKind.DRAW


def test_bust_is_not_an_action_without_the_bust_rule() -> None:
    s = new_session("over-seven-twenty-seven")
    s.start_hand()
    with pytest.raises(Exception, match="no bust"):
        s.show_bust(1, ["Th"])


def test_deck_exhaustion_reshuffles_the_folded_players_cards() -> None:
    from assistant.engine import FULL_DECK

    s = new_session(stacks=(500, 500, 500, 500))
    s.start_hand()
    deck = [str(c) for c in FULL_DECK]
    deal_all(s, {1: [deck.pop(), None], 2: [deck.pop(), None], 3: [deck.pop(), None], 0: [deck.pop(), None]})
    s.bet(1, 1)
    s.call(2)
    s.call(3)
    s.fold(0)
    while s.state.stub > 0:
        if decision_of(s).kind is DecisionKind.DRAW:
            s.take(seat_of(s))
        else:
            s.check(seat_of(s)) if decision_of(s).to_call == 0 else s.call(seat_of(s))
    assert s.state.phase is Phase.DRAWING or s.state.phase is Phase.BETTING
    while decision_of(s).kind is not DecisionKind.DRAW:
        s.check(seat_of(s))
    s.take(seat_of(s))  # from the folded cards
    assert s.state.reshuffles == 1
    assert s.state.seats[0].cards == []


def test_deck_exhausted_with_nothing_to_reshuffle_is_an_error() -> None:
    from assistant.engine import DeckExhaustedError

    s = new_session(stacks=(500, 500))
    s.start_hand()
    deal_all(s, {1: ["2c", None], 0: ["3c", None]})
    with pytest.raises(DeckExhaustedError):
        while True:
            d = decision_of(s)
            assert d.seat is not None
            if d.kind is DecisionKind.DRAW:
                s.take(d.seat)
            else:
                s.check(d.seat)


def test_actions_of_the_wrong_phase_name_the_phase() -> None:
    s = new_session()
    with pytest.raises(WrongPhaseError, match="the hand is waiting"):
        s.take(1)


def test_undo_any_number_of_steps_restores_the_state() -> None:
    s = new_session()
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 3: ["4c", None], 0: ["5c", None]})
    snapshot = [(x.stack, x.bet, list(x.cards)) for x in s.state.seats]
    s.bet(1, 3)
    s.call(2)
    s.fold(3)
    removed = s.undo(3)
    assert len(removed) == 3
    assert [(x.stack, x.bet, list(x.cards)) for x in s.state.seats] == snapshot
    assert decision_of(s).seat == 1
    with pytest.raises(SessionError, match="cannot undo"):
        s.undo(100)


def test_a_misread_card_can_be_corrected() -> None:
    s = new_session()
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 3: ["4c", None], 0: ["5c", None]})
    s.correct(1, 0, "2d")
    assert str(s.state.seats[1].up_cards[0]) == "2d"
    with pytest.raises(CardError, match="3c is already on the table"):
        s.correct(1, 0, "3c")


def test_fifteen_thirty_five_natural_is_claimed_before_declaring_and_takes_the_pot() -> None:
    s = new_session("fifteen-thirty-five", stacks=(50, 50, 50))
    s.start_hand()
    deal_all(s, {1: [None, None, None], 2: [None, None, None], 0: [None, None, None]})
    s.expose(1, "Ah")
    s.expose(2, "Kd")
    s.expose(0, "2c")
    checks_around(s, [1, 2, 0])
    s.take(1, "8c")
    s.refuse(2)
    s.refuse(0)
    checks_around(s, [1, 2, 0])
    s.refuse(1)
    s.refuse(2)
    s.refuse(0)
    checks_around(s, [1, 2, 0])  # the final betting round
    assert phase_of(s) is Phase.DECLARING
    with pytest.raises(Exception, match="is not a natural"):
        s.show(2, ["Qd", "Jd"])
    s.show(1, ["As", "5d"])  # A-A-5-8: exactly 15 and 35
    assert phase_of(s) is Phase.SHOWDOWN
    s.show(2, ["Qd", "Jd"])
    s.show(0, ["3c", "4c"])
    assert result_of(s).awards == {1: 3, 2: 0, 0: 0}
