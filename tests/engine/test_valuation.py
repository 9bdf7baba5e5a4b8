"""Card values and hand totals, pinned to the examples in the rule texts."""

import pytest

from assistant.engine import Rules, format_points, parse_cards, preset
from assistant.engine.valuation import Target, hand_totals, improvements, value_hand

SEVEN = preset("seven-twenty-seven")
FIFTEEN = preset("fifteen-thirty-five")


def totals(cards: str, rules: Rules = SEVEN) -> list[str]:
    return [format_points(t) for t in hand_totals(parse_cards(cards), rules)]


def shown(halves: int | None) -> str:
    """``format_points`` of a best total the test expects there to be."""
    assert halves is not None
    return format_points(halves)


def test_face_cards_count_half_a_point() -> None:
    assert totals("4c Qd 2s") == ["6½"]  # "4 Q 2 is 6½ – close to 7"


def test_ten_nine_eight_is_exactly_27() -> None:
    assert totals("Tc 9d 8s") == ["27"]


def test_ace_king_five_is_six_and_a_half_or_sixteen_and_a_half() -> None:
    value = value_hand(parse_cards("Ac Kd 5s"), SEVEN)
    assert shown(value.best_low) == "6½"
    assert shown(value.best_high) == "16½"


def test_each_ace_counts_one_or_eleven_separately_for_each_target() -> None:
    value = value_hand(parse_cards("5h Ad As"), SEVEN)
    assert totals("5h Ad As") == ["7", "17", "27"]
    assert (value.best_low, value.best_high) == (14, 54)
    assert value.natural


def test_five_ace_ace_is_the_seven_twenty_seven_natural() -> None:
    assert value_hand(parse_cards("5h Ad As"), SEVEN).natural
    assert not value_hand(parse_cards("5h Ad 4s"), SEVEN).natural


def test_ace_ace_five_eight_is_a_natural_fifteen_thirty_five() -> None:
    value = value_hand(parse_cards("Ah As 5d 8c"), FIFTEEN)
    assert value.natural
    assert (shown(value.best_low), shown(value.best_high)) == ("15", "35")


def test_faces_count_half_or_ten_when_the_rules_say_so() -> None:
    assert totals("Kh 5s", FIFTEEN) == ["5½", "15"]
    assert totals("Kh 5s", SEVEN.with_options(faces="half-or-ten")) == ["5½", "15"]


def test_over_is_bust_leaves_only_totals_at_or_under_the_target() -> None:
    bust = SEVEN.with_options(bust=True)
    value = value_hand(parse_cards("9c 9d 8s 2h"), bust)  # 28
    assert value.best_high is None and value.busted
    assert value_hand(parse_cards("6c 2d"), bust).best_low is None  # 8 cannot win the 7 half


def test_distance_only_where_under_and_over_are_equal() -> None:
    value = value_hand(parse_cards("Ac 7d"), SEVEN)  # 8 or 18
    assert shown(value.best_low) == "8"


def test_tie_policy_chooses_between_two_equally_close_totals_of_one_hand() -> None:
    # A-A counts 2, 12 or 22: for 7, 2 and 12 are both 5 away
    aces = parse_cards("Ac Ad")
    assert value_hand(aces, SEVEN.with_options(under_beats_over=True)).best_low == 4
    assert value_hand(aces, SEVEN.with_options(tie="high")).best_low == 24
    assert value_hand(aces, preset("over-seven-twenty-seven")).best_low == 24  # inside 7..27


def test_improvements_name_the_cards_that_would_help() -> None:
    gains = {g.rank.symbol: g for g in improvements(parse_cards("4c Qd 2s"), SEVEN)}
    assert [r for r, g in gains.items() if g.improves_low] == ["J", "Q", "K"]
    assert not any(g.improves_low for g in improvements(parse_cards("5h Ad As"), SEVEN))


def test_improvements_mark_cards_that_bust_the_hand() -> None:
    gains = {g.rank.symbol: g for g in improvements(parse_cards("Tc 9d 5s"), SEVEN.with_options(bust=True))}
    assert gains["4"].busts and not gains["3"].busts


@pytest.mark.parametrize(
    ("cards", "low", "high"),
    [
        ("3c 2d Kh", "5½", "5½"),
        ("6c Jd", "6½", "6½"),
        ("Tc 8d Ac 7s", "26", "26"),
        ("9c 9d 8s 2h", "28", "28"),
    ],
)
def test_the_anna_ben_carla_dan_totals(cards: str, low: str, high: str) -> None:
    value = value_hand(parse_cards(cards), SEVEN)
    assert shown(value.best(Target.HIGH)) == high
    assert shown(value.best(Target.LOW)) in (low, "16½", "18")
