"""Who wins each half, and how every chip of the pot is divided."""

import pytest

from assistant.engine import Declaration, ShowdownHand, parse_cards, preset, score_showdown
from assistant.engine.showdown import ShowdownError

SEVEN = preset("seven-twenty-seven")
ONLINE = preset("online-seven-twenty-seven")
UNDER = preset("under-seven-twenty-seven")
OVER = preset("over-seven-twenty-seven")
FIFTEEN = preset("fifteen-thirty-five")
LOW, HIGH, BOTH = Declaration.LOW, Declaration.HIGH, Declaration.BOTH


def hand(seat: int, cards: str, declaration: Declaration | None = None) -> ShowdownHand:
    return ShowdownHand(seat, parse_cards(cards), declaration)


def test_anna_ben_carla_dan_ben_takes_seven_and_carla_and_dan_share_twenty_seven() -> None:
    hands = [hand(0, "3c 2d Kh"), hand(1, "6c Jd"), hand(2, "Tc 8d Ac 7s"), hand(3, "9c 9d 8s 2h")]
    result = score_showdown(SEVEN, 40, 3, hands)
    assert result.low_winners == (1,)
    assert result.high_winners == (2, 3)
    assert result.awards == {0: 0, 1: 20, 2: 10, 3: 10}


def test_odd_chip_between_the_halves_goes_to_the_high_half() -> None:
    result = score_showdown(SEVEN, 41, 0, [hand(1, "6c Jd"), hand(2, "Tc 9d 8s")])
    assert result.awards == {1: 20, 2: 21}


def test_odd_chips_in_a_shared_half_go_clockwise_from_the_dealers_left() -> None:
    # high half of 23 chips shared by seats 0 and 2 with the dealer at seat 1: seat 2 first
    hands = [hand(3, "6c Jd"), hand(0, "Tc 9d 8s"), hand(2, "Th 9h 8h")]
    result = score_showdown(SEVEN, 45, 1, hands)
    assert result.awards == {2: 12, 3: 22, 0: 11}


def test_ties_share_a_half_in_the_base_game() -> None:
    result = score_showdown(SEVEN, 40, 0, [hand(1, "6c Jd"), hand(2, "6d Qh"), hand(3, "Tc 9d 8s")])
    assert result.awards == {1: 10, 2: 10, 3: 20}


def test_closest_to_the_target_wins_so_36_beats_33_and_a_half() -> None:
    hands = [hand(1, "Tc Td Ts 6c", HIGH), hand(2, "Th 9h 7h 7d Kc", HIGH), hand(3, "2c 3d", LOW)]
    result = score_showdown(FIFTEEN, 20, 0, hands)
    assert result.high_winners == (1,)


def test_under_beats_over_so_14_beats_16() -> None:
    hands = [hand(1, "8c 6d", LOW), hand(2, "9h 7s", LOW), hand(3, "Tc Td Ts 5d", HIGH)]
    result = score_showdown(FIFTEEN, 20, 0, hands)
    assert result.low_winners == (1,)
    assert result.awards == {1: 10, 2: 0, 3: 10}


def test_fewest_cards_win_equal_totals_34_in_four_beats_34_in_five() -> None:
    hands = [hand(1, "Tc Td 9s 5c", HIGH), hand(2, "Th 9h 6h 5d 4s", HIGH), hand(3, "7c 7d", LOW)]
    result = score_showdown(FIFTEEN, 30, 0, hands)
    assert result.high_winners == (1,)


def test_fifteen_thirty_five_natural_takes_the_whole_pot_even_against_a_tie() -> None:
    hands = [hand(1, "Ah As 5d 8c", LOW), hand(2, "Kh 5s", LOW), hand(3, "Tc Td Ts 5c", HIGH)]
    result = score_showdown(FIFTEEN, 41, 0, hands)
    assert result.naturals == (1,)
    assert result.awards == {1: 41, 2: 0, 3: 0}


def test_two_naturals_share_the_whole_pot() -> None:
    hands = [hand(1, "Ah As 5d 8c", LOW), hand(2, "Ad Ac 5h 8s", HIGH), hand(3, "2c 3d", LOW)]
    result = score_showdown(FIFTEEN, 41, 0, hands)
    assert result.awards == {1: 21, 2: 20, 3: 0}


def test_online_pig_hand_two_aces_and_a_five_wins_both_halves() -> None:
    hands = [hand(1, "Ah As 5d", LOW), hand(2, "6c Jd", LOW), hand(3, "Tc 9d 8s", HIGH)]
    assert score_showdown(ONLINE, 30, 0, hands).awards == {1: 30, 2: 0, 3: 0}


@pytest.mark.parametrize(
    ("tie", "winners"),
    [("split", (1, 2)), ("low", (1,)), ("high", (2,))],
)
def test_online_tie_policy_decides_six_against_eight(tie: str, winners: tuple[int, ...]) -> None:
    hands = [hand(1, "4c 2d", LOW), hand(2, "5h 3s", LOW), hand(3, "Tc 9d 8s", HIGH)]
    result = score_showdown(ONLINE.with_options(tie=tie), 40, 0, hands)
    assert result.low_winners == winners


def test_over_game_inside_beats_outside_at_equal_distance() -> None:
    hands = [
        hand(1, "4c 2d", LOW),
        hand(2, "5h 3s", LOW),
        hand(3, "Tc 9d 7s", HIGH),
        hand(4, "Th 9h 9s", HIGH),
    ]
    result = score_showdown(OVER, 40, 0, hands)
    assert result.low_winners == (2,)  # 8 is inside 7..27, 6 is outside
    assert result.high_winners == (3,)  # 26 is inside, 28 outside


def test_both_declarer_who_wins_both_outright_takes_the_pot() -> None:
    hands = [hand(1, "Ah As 5d", BOTH), hand(2, "6c Jd", LOW), hand(3, "Tc 9d 7s", HIGH)]
    assert score_showdown(UNDER, 30, 0, hands).awards == {1: 30, 2: 0, 3: 0}


def test_both_declarer_who_ties_a_half_is_eliminated() -> None:
    hands = [hand(1, "Ah As 5d", BOTH), hand(2, "4c 3d", LOW), hand(3, "Tc 9d 7s", HIGH)]
    result = score_showdown(UNDER, 30, 0, hands)
    assert result.eliminated == (1,)
    assert result.awards == {1: 0, 2: 15, 3: 15}


def test_both_declarer_who_loses_a_half_gets_nothing() -> None:
    hands = [hand(1, "6c Jd", BOTH), hand(2, "4c 2d", LOW), hand(3, "Tc 9d 8s", HIGH)]
    result = score_showdown(OVER, 31, 0, hands)
    assert result.eliminated == (1,)
    assert result.awards == {1: 0, 2: 15, 3: 16}


def test_a_half_nobody_declared_goes_to_the_other_halfs_winners() -> None:
    hands = [hand(1, "6c Jd", LOW), hand(2, "4c 2d", LOW)]
    result = score_showdown(UNDER, 31, 0, hands)
    assert result.high_winners == ()
    assert result.awards == {1: 31, 2: 0}


def test_everyone_in_one_fifteen_thirty_five_competition_winner_takes_all() -> None:
    hands = [hand(1, "Tc Td Ts 5c", HIGH), hand(2, "Th 9h 7h", HIGH)]
    assert score_showdown(FIFTEEN, 20, 0, hands).awards == {1: 20, 2: 0}


def test_under_game_seven_half_needs_seven_or_less() -> None:
    hands = [hand(1, "4c 4d", LOW), hand(2, "9c Kd", LOW), hand(3, "Tc 9d 7s", HIGH)]
    result = score_showdown(UNDER, 30, 0, hands)  # 8 and 9½ are over 7: nobody wins low
    assert result.low_winners == ()
    assert result.awards == {1: 0, 2: 0, 3: 30}


def test_when_nobody_may_win_either_half_the_pot_is_shared() -> None:
    hands = [hand(1, "6c Jd", BOTH), hand(2, "6d Jh", BOTH)]
    result = score_showdown(OVER, 21, 0, hands)
    assert result.eliminated == (1, 2)
    assert result.awards == {1: 11, 2: 10}


def test_missing_declaration_is_an_error_where_the_rules_need_one() -> None:
    with pytest.raises(ShowdownError, match="no declaration"):
        score_showdown(FIFTEEN, 10, 0, [hand(1, "2c 3d"), hand(2, "4c 5d", LOW)])


def test_a_card_held_twice_is_an_error() -> None:
    with pytest.raises(ShowdownError, match="twice"):
        score_showdown(SEVEN, 10, 0, [hand(1, "2c 3d"), hand(2, "2c 5d")])


@pytest.mark.parametrize("pot", range(0, 23))
def test_every_chip_of_the_pot_is_awarded(pot: int) -> None:
    hands = [
        hand(1, "6c Jd"),
        hand(2, "6d Qh"),
        hand(3, "Tc 9d 8s"),
        hand(4, "Th 9h 8h"),
        hand(5, "Ts 9s 8c"),
    ]
    assert sum(score_showdown(SEVEN, pot, 2, hands).awards.values()) == pot
