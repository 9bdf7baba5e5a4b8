"""Advice (engine/advice.py): drawing odds and winning chances, checked against brute force."""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.engine import FULL_DECK, Card, Declaration, Rules, Target, parse_cards, preset, value_hand
from assistant.engine.advice import SeatHand, draw_advice, win_chances
from assistant.engine.showdown import _best_seats
from assistant.engine.valuation import rank_key

SEVEN = preset("seven-twenty-seven")
UNDER = preset("under-seven-twenty-seven")
FIFTEEN = preset("fifteen-thirty-five")


def rest(*seen: Sequence[Card]) -> list[Card]:
    used = {card for cards in seen for card in cards}
    return [card for card in FULL_DECK if card not in used]


def better(new: int | None, old: int | None, rules: Rules, target: Target) -> bool:
    if new is None:
        return False
    return old is None or rank_key(new, rules, target) < rank_key(old, rules, target)


def brute_draw(
    known: Sequence[Card], hidden: int, rules: Rules, pool: list[Card]
) -> tuple[float, float, float]:
    """Every ordered choice of the hidden cards and the next card, card by card."""
    counts = [0, 0, 0]
    total = 0
    for hole in itertools.permutations(pool, hidden):
        before = value_hand([*known, *hole], rules)
        for card in pool:
            if card in hole:
                continue
            after = value_hand([*known, *hole, card], rules)
            total += 1
            if after.busted:
                counts[2] += 1
                continue
            counts[0] += better(after.best_low, before.best_low, rules, Target.LOW)
            counts[1] += better(after.best_high, before.best_high, rules, Target.HIGH)
    return counts[0] / total, counts[1] / total, counts[2] / total


def brute_wins(hands: Sequence[SeatHand], rules: Rules, pool: list[Card]) -> dict[Target, dict[int, float]]:
    hidden = sum(h.hidden for h in hands)
    shares = {t: dict.fromkeys((h.seat for h in hands), 0.0) for t in Target}
    deals = 0
    for deal in itertools.permutations(pool, hidden):
        deals += 1
        values, start = {}, 0
        for h in hands:
            values[h.seat] = value_hand([*h.known, *deal[start : start + h.hidden]], rules)
            start += h.hidden
        naturals = [s for s, v in values.items() if v.natural]
        for target in Target:
            if rules.natural_takes_pot and naturals:
                winners: Sequence[int] = naturals
            else:
                winners = _best_seats([h.seat for h in hands if h.contends(target)], values, rules, target)
            for seat in winners:
                shares[target][seat] += 1 / len(winners)
    return {t: {s: v / deals for s, v in shares[t].items()} for t in Target}


@pytest.mark.parametrize(
    ("rules", "known", "hidden"),
    [(SEVEN, "6c", 1), (SEVEN, "5h Ad", 0), (UNDER, "Tc 9d", 0), (UNDER, "8s", 1), (FIFTEEN, "Kh", 1)],
)
def test_draw_odds_equal_brute_force_over_every_card(rules: Rules, known: str, hidden: int) -> None:
    cards = parse_cards(known)
    pool = rest(cards)
    advice = draw_advice(cards, hidden, rules, pool)
    low, high, bust = brute_draw(cards, hidden, rules, pool)
    assert advice.exact
    assert (advice.low, advice.high, advice.bust) == pytest.approx((low, high, bust), abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(FULL_DECK), min_size=1, max_size=4, unique=True))
def test_draw_odds_are_probabilities_and_match_brute_force(cards: list[Card]) -> None:
    pool = rest(cards)
    advice = draw_advice(cards, 0, UNDER, pool)
    assert (advice.low, advice.high, advice.bust) == pytest.approx(
        brute_draw(cards, 0, UNDER, pool), abs=1e-12
    )
    assert 0 <= advice.low <= 1 and 0 <= advice.high <= 1 and 0 <= advice.bust <= 1


def test_a_hand_at_exactly_27_cannot_improve_high() -> None:
    hand = parse_cards("Tc 9d 8s")
    assert draw_advice(hand, 0, SEVEN, rest(hand)).high == 0.0


def test_only_nines_and_tens_bust_nineteen_under_bust_rules() -> None:
    hand = parse_cards("Tc 9d")
    assert draw_advice(hand, 0, UNDER, rest(hand)).bust == pytest.approx(6 / 50)
    assert draw_advice(hand, 0, SEVEN, rest(hand)).bust == 0.0  # no bust in plain 7/27


def test_no_card_left_means_no_chance() -> None:
    assert draw_advice(parse_cards("5c"), 0, SEVEN, []).low == 0.0
    with pytest.raises(ValueError, match="hidden"):
        draw_advice(parse_cards("5c"), -1, SEVEN, rest())


def test_winning_chances_equal_brute_force_when_exact() -> None:
    hands = [
        SeatHand(0, parse_cards("6c Kd")),
        SeatHand(1, parse_cards("Ah"), hidden=1),
        SeatHand(2, parse_cards("9h 9s"), hidden=1),
    ]
    pool = rest(*(h.known for h in hands))
    chances = win_chances(hands, SEVEN, pool, samples=5000)
    expected = brute_wins(hands, SEVEN, pool)
    assert chances.exact
    for seat in (0, 1, 2):
        assert chances.chance(seat, Target.LOW) == pytest.approx(expected[Target.LOW][seat])
        assert chances.chance(seat, Target.HIGH) == pytest.approx(expected[Target.HIGH][seat])
    assert sum(chances.low.values()) == pytest.approx(1.0)


def test_a_seat_that_declared_high_has_no_chance_at_low() -> None:
    hands = [
        SeatHand(0, parse_cards("6c Kd"), declaration=Declaration.HIGH),
        SeatHand(1, parse_cards("9h 9s"), 1),
    ]
    chances = win_chances(hands, preset("online"), rest(*(h.known for h in hands)))
    assert chances.chance(0, Target.LOW) == 0.0
    assert chances.chance(1, Target.LOW) == 1.0


def test_a_natural_takes_both_halves_where_naturals_take_the_pot() -> None:
    hands = [SeatHand(0, parse_cards("5h Ad As")), SeatHand(1, parse_cards("Tc 9d 8s"))]
    chances = win_chances(hands, preset("online"), rest(*(h.known for h in hands)))
    assert (chances.chance(0, Target.LOW), chances.chance(0, Target.HIGH)) == (1.0, 1.0)
    assert chances.naturals[0] == 1.0


def test_monte_carlo_is_repeatable_and_close_to_the_exact_answer() -> None:
    hands = [
        SeatHand(0, parse_cards("6c"), 1),
        SeatHand(1, parse_cards("Ah"), 1),
        SeatHand(2, parse_cards("9h"), 1),
    ]
    pool = rest(*(h.known for h in hands))
    exact = win_chances(hands, SEVEN, pool, samples=10_000)
    sampled = win_chances(hands, SEVEN, pool, samples=1500, seed=5)
    assert exact.exact and not sampled.exact
    assert sampled == win_chances(hands, SEVEN, pool, samples=1500, seed=5)
    for seat in (0, 1, 2):
        assert sampled.chance(seat, Target.LOW) == pytest.approx(exact.chance(seat, Target.LOW), abs=0.05)


def test_bad_input_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="at least one hand"):
        win_chances([], SEVEN, rest())
    with pytest.raises(ValueError, match="twice"):
        win_chances([SeatHand(0, ()), SeatHand(0, ())], SEVEN, rest())
    with pytest.raises(ValueError, match="only 1 cards"):
        win_chances([SeatHand(0, (), hidden=2)], SEVEN, rest()[:1])


def test_advice_is_fast_enough_to_refresh_on_every_change() -> None:
    """Six hands with a hidden card each (Monte Carlo) and the slowest drawing odds."""
    hands = [
        SeatHand(i, parse_cards(c), 1) for i, c in enumerate(["6c 2d", "9h Ks", "Ah 4d", "3c 3s", "Tc", "2h"])
    ]
    pool = rest(*(h.known for h in hands))
    start = time.perf_counter()
    win_chances(hands, preset("online"), pool)
    draw_advice((), 3, FIFTEEN, rest())
    assert time.perf_counter() - start < 2.0  # about 0.25 s on one core of the CI machine


def test_many_hidden_cards_are_sampled_repeatably_and_close_to_exact() -> None:
    hand = parse_cards("4c")
    pool = rest(hand)
    exact = draw_advice(hand, 3, SEVEN, pool, samples=1000)
    sampled = draw_advice(hand, 3, SEVEN, pool)
    assert exact.exact and not sampled.exact
    assert sampled == draw_advice(hand, 3, SEVEN, pool)
    assert sampled.low == pytest.approx(exact.low, abs=0.08)
    assert sampled.high == pytest.approx(exact.high, abs=0.08)
