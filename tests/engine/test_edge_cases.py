"""Edge cases: all-in players, busts at odd moments, corrections, bad values."""

import json
import subprocess
import sys

import pytest

from assistant.engine import (
    BetLimitError,
    IllegalActionError,
    Phase,
    RulesError,
    Stakes,
    preset,
)
from assistant.engine.events import Player
from tests.engine.conftest import deal_all, new_session
from tests.helpers import decision_of, result_of


def test_an_all_in_natural_cannot_claim_side_pots_so_everyone_declares() -> None:
    s = new_session("fifteen-thirty-five", stacks=(4, 50, 50))
    s.start_hand()
    deal_all(s, {1: [None] * 3, 2: [None] * 3, 0: [None] * 3})
    s.expose(1, "9c")
    s.expose(2, "Kd")
    s.expose(0, "5d")
    s.bet(2, 3)  # the King bets first
    s.call(0)  # Anna all in (1 ante + 3)
    s.call(1)
    s.take(1, "2c")
    s.take(2, "3c")
    s.take(0, "8c")
    s.bet(2, 5)
    s.call(1)  # a side pot of 10 between Ben and Carla
    for seat in (1, 2, 0):
        s.refuse(seat)
    s.check(2)
    s.check(1)
    assert s.state.phase is Phase.DECLARING
    with pytest.raises(IllegalActionError, match="cannot win the side pots"):
        s.show(0, ["Ah", "As"])
    s.declare(0, "both")
    s.declare(1, "low")
    s.declare(2, "high")
    s.show(0, ["Ah", "As"])  # A-A-5-8: natural, takes the main pot
    s.show(1, ["2d", "3d"])
    s.show(2, ["Td", "Th"])
    result = result_of(s)
    assert [(p.amount, p.seats) for p in result.pots] == [(12, (0, 1, 2)), (10, (1, 2))]
    assert result.awards[0] == 12
    assert result.awards[1] + result.awards[2] == 10


def test_side_pot_nobody_still_in_matched_goes_back_to_who_put_it_in() -> None:
    s = new_session("seven-twenty-seven", stacks=(4, 50, 50), bust=True)
    s.start_hand()
    deal_all(s, {1: ["Tc", None], 2: ["Td", None], 0: ["2c", None]})
    s.bet(1, 3)
    s.call(2)
    s.call(0)  # Anna all in
    s.take(1, "9c")
    s.take(2, "9d")
    s.refuse(0)
    s.bet(1, 5)
    s.call(2)
    s.show_bust(1, ["9h", "9c"])  # 28
    s.show_bust(2, ["9s", "9d"])  # 28
    result = result_of(s)
    assert result.uncontested == 0
    assert result.awards == {0: 12, 1: 5, 2: 5}
    assert [x.stack for x in s.state.seats] == [12, 50 - 4 - 5 + 5, 50 - 4 - 5 + 5]


def test_a_hand_shown_over_the_target_under_bust_rules_folds_at_the_showdown() -> None:
    s = new_session("under-seven-twenty-seven", stacks=(50, 50))
    s.start_hand()
    deal_all(s, {1: [None], 0: [None]})
    s.take(1, "Tc")
    s.pass_(1)
    s.take(0, "4c")
    s.pass_(0)
    s.take(1, "9c")
    s.pass_(1)
    s.refuse(0)
    s.pass_(0)
    s.refuse(1)
    s.pass_(1)
    s.refuse(0)
    s.pass_(0)
    s.declare(1, "high")
    s.declare(0, "low")
    s.show(1, ["9d"])  # 28: bust
    assert s.state.seats[1].busted and s.state.phase is Phase.COMPLETE
    assert result_of(s).uncontested == 0


def test_a_correction_that_busts_the_last_player_to_show_finishes_the_hand() -> None:
    s = new_session("under-seven-twenty-seven", stacks=(50, 50, 50))
    s.start_hand()
    deal_all(s, {1: [None], 2: [None], 0: [None]})
    for card_1, card_2, card_0 in (("2c", "3c", "Td"), ("2d", "3d", "9d"), ("2h", "3h", "8d")):
        for seat, card in ((1, card_1), (2, card_2), (0, card_0)):
            s.take(seat, card)
            s.pass_(seat)
    for seat in (1, 2, 0):
        s.refuse(seat)
        s.pass_(seat)
    for seat in (1, 2, 0):
        s.declare(seat, "high")
    s.show(1, ["4c"])
    s.show(2, ["5c"])
    assert decision_of(s).seat == 0  # Anna (10 9 8 up) is the last to show
    s.correct(0, 3, "9s")  # the 8 was a 9: 28 face up, bust
    assert s.state.seats[0].busted
    assert s.state.phase is Phase.COMPLETE and s.state.result is not None


def test_a_correction_cannot_silently_undo_an_automatic_bust() -> None:
    s = new_session("under-seven-twenty-seven", stacks=(50, 50, 50))
    s.start_hand()
    deal_all(s, {1: [None], 2: [None], 0: [None]})
    for seat, card in ((1, "Tc"), (2, "2c"), (0, "2d"), (1, "Td")):
        s.take(seat, card)
        s.pass_(seat)
    s.refuse(2)
    s.pass_(2)
    s.refuse(0)
    s.pass_(0)
    s.take(1, "9s")  # misread: 29 face up, Ben folds at once
    assert s.state.seats[1].busted
    with pytest.raises(IllegalActionError, match="undo back to that card"):
        s.correct(1, 3, "2s")
    assert s.state.seats[1].busted


@pytest.mark.parametrize("amount", [2.5, "3", True])
def test_chips_are_whole_numbers(amount: object) -> None:
    s = new_session()
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 3: ["4c", None], 0: ["5c", None]})
    with pytest.raises(BetLimitError, match="whole numbers"):
        s.bet(1, amount)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="whole number"):
        Stakes(ante=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="whole number"):
        Player("Anna", 10.5)  # type: ignore[arg-type]


def test_a_player_short_of_the_ante_plays_all_in_for_the_rest() -> None:
    s = new_session(stacks=(1, 50, 50), stakes=Stakes(ante=2))
    s.start_hand()
    assert s.state.seats[0].in_hand and s.state.seats[0].all_in
    assert s.state.pot == 5


def test_under_and_over_players_may_fold_on_their_own_turn() -> None:
    s = new_session("over-seven-twenty-seven", stacks=(50, 50, 50))
    s.start_hand()
    deal_all(s, {1: [None, "5c"], 2: [None, "6c"], 0: [None, "7c"]})
    s.fold(1)
    assert s.state.seats[1].folded and decision_of(s).seat == 2


def test_an_all_in_raise_short_of_the_minimum_does_not_use_up_the_raise_cap() -> None:
    s = new_session(stacks=(50, 50, 6), stakes=Stakes(ante=1, min_bet=2, max_bet=5, max_raises=1))
    s.start_hand()
    deal_all(s, {1: ["2c", None], 2: ["3c", None], 0: ["4c", None]})
    s.bet(1, 4)
    s.raise_(2, 1)  # all in: 4 to call + 1
    assert decision_of(s).can_raise
    s.raise_(0, 2)


def test_a_declaration_that_is_not_low_high_or_both_is_an_illegal_action() -> None:
    s = new_session("online-seven-twenty-seven")
    with pytest.raises(IllegalActionError, match="'low', 'high' or 'both'"):
        s.declare(0, "seven")


def test_a_seat_that_is_not_a_number_is_an_illegal_action() -> None:
    s = new_session()
    s.start_hand()
    with pytest.raises(IllegalActionError, match="no seat"):
        s.deal(1.0, "Ah")  # type: ignore[arg-type]


def test_only_house_rule_switches_are_options() -> None:
    with pytest.raises(RulesError, match="unknown rules option 'natural_takes_pot'"):
        preset("7/27").with_options(natural_takes_pot=True)


def test_under_beats_over_switch_overrides_a_presets_tie_policy() -> None:
    rules = preset("over-seven-twenty-seven").with_options(under_beats_over=True)
    assert rules.equal_distance.value == "low"
    assert preset("15/35").with_options(tie="high").equal_distance.value == "high"
    with pytest.raises(RulesError, match="contradicts"):
        preset("7/27").with_options(under_beats_over=True, tie="high")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"options": []}, "'options' must be an object"),
        ({"options": {"name": "zzz"}}, "unknown rules option 'name'"),
        ({"dealer_seat": None}, "'dealer_seat' must be a whole number"),
    ],
)
def test_score_rejects_options_that_are_not_switches(change: dict[str, object], message: str) -> None:
    request = {
        "rules": "seven-twenty-seven",
        "pot": 2,
        "dealer_seat": 0,
        "players": [{"seat": 1, "cards": ["2c"]}, {"seat": 2, "cards": ["3c"]}],
    }
    request.update(change)
    out = subprocess.run(
        [sys.executable, "-m", "assistant", "score"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1 and message in out.stderr


def test_score_needs_the_dealer_seat() -> None:
    request = {"rules": "seven-twenty-seven", "pot": 2, "players": [{"seat": 1, "cards": ["2c"]}]}
    out = subprocess.run(
        [sys.executable, "-m", "assistant", "score"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1 and "'dealer_seat' is missing" in out.stderr
