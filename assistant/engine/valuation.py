"""What a hand is worth: every total, the best for each target, naturals, improvements.

Totals are in half points (see :mod:`assistant.engine.points`). An Ace counts 1 or 11
and picture cards ½ (or ½ or 10), chosen separately for each target.

>>> from assistant.engine.cards import parse_cards
>>> from assistant.engine.rules import preset
>>> v = value_hand(parse_cards("5h Ad As"), preset("seven-twenty-seven"))
>>> [format_points(t) for t in v.totals], v.natural
(['7', '17', '27'], True)
>>> format_points(value_hand(parse_cards("Ah Kd 5c"), preset("7/27")).best_high)
'16½'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from assistant.engine.cards import Card, Rank
from assistant.engine.points import HalfPoints, format_points, half_points
from assistant.engine.rules import FaceValue, Rules, TiePolicy


class Target(Enum):
    LOW = "low"
    HIGH = "high"


def card_values(card: Card | Rank, rules: Rules) -> tuple[HalfPoints, ...]:
    """The values a card may count, in half points."""
    rank = card.rank if isinstance(card, Card) else card
    if rank is Rank.ACE:
        return (2, 22)
    if rank.is_face:
        return (1, 20) if rules.faces is FaceValue.HALF_OR_TEN else (1,)
    return (half_points(int(rank)),)


def hand_totals(cards: Iterable[Card | Rank], rules: Rules) -> tuple[HalfPoints, ...]:
    """Every total the cards can make, ascending."""
    totals = {0}
    for card in cards:
        values = card_values(card, rules)
        totals = {total + value for total in totals for value in values}
    return tuple(sorted(totals))


def target_halves(rules: Rules, target: Target) -> HalfPoints:
    low, high = rules.targets
    return half_points(low if target is Target.LOW else high)


def rank_key(total: HalfPoints, rules: Rules, target: Target) -> tuple[int, int]:
    """Sort key of one total for one target: smaller is better.

    First the distance to the target; then, at equal distance, the rules' tie policy
    (under beats over, high beats low, or inside the two targets beats outside).
    """
    aim = target_halves(rules, target)
    distance = abs(total - aim)
    policy = rules.equal_distance
    if policy is TiePolicy.SPLIT or total == aim:
        side = 0
    elif policy is TiePolicy.LOW:
        side = 0 if total < aim else 1
    elif policy is TiePolicy.HIGH:
        side = 0 if total > aim else 1
    else:  # INSIDE: between the two targets
        inside = total > aim if target is Target.LOW else total < aim
        side = 0 if inside else 1
    return (distance, side)


def eligible(total: HalfPoints, rules: Rules, target: Target) -> bool:
    """Whether a total may win a target's half (over is out where over is bust)."""
    return not rules.bust or total <= target_halves(rules, target)


def best_total(totals: Sequence[HalfPoints], rules: Rules, target: Target) -> HalfPoints | None:
    """The best of the totals for a target, or ``None`` when none may win it."""
    candidates = [total for total in totals if eligible(total, rules, target)]
    if not candidates:
        return None
    return min(candidates, key=lambda total: (rank_key(total, rules, target), total))


@dataclass(frozen=True)
class Improvement:
    """What one more card of a rank would do to a hand."""

    rank: Rank
    best_low: HalfPoints | None
    best_high: HalfPoints | None
    improves_low: bool
    improves_high: bool
    busts: bool  # the hand would be over the high target with every count (bust rules)


@dataclass(frozen=True)
class HandValue:
    cards: tuple[Card, ...]
    totals: tuple[HalfPoints, ...]
    best_low: HalfPoints | None
    best_high: HalfPoints | None
    natural: bool
    busted: bool

    def best(self, target: Target) -> HalfPoints | None:
        return self.best_low if target is Target.LOW else self.best_high

    def describe(self) -> str:
        def show(total: HalfPoints | None) -> str:
            return "bust" if total is None else format_points(total)

        parts = [
            "totals " + ", ".join(format_points(t) for t in self.totals),
            f"best for low {show(self.best_low)}",
            f"best for high {show(self.best_high)}",
        ]
        if self.natural:
            parts.append("natural")
        if self.busted:
            parts.append("busted")
        return "; ".join(parts)


def is_natural(totals: Sequence[HalfPoints], rules: Rules) -> bool:
    """Exactly both targets at once (e.g. 5-A-A at 7/27, A-A-5-8 at 15/35)."""
    return target_halves(rules, Target.LOW) in totals and target_halves(rules, Target.HIGH) in totals


def is_busted(totals: Sequence[HalfPoints], rules: Rules) -> bool:
    """Under bust rules: over the high target whatever the cards count."""
    return rules.bust and bool(totals) and min(totals) > target_halves(rules, Target.HIGH)


def value_hand(cards: Sequence[Card], rules: Rules) -> HandValue:
    totals = hand_totals(cards, rules)
    return HandValue(
        cards=tuple(cards),
        totals=totals,
        best_low=best_total(totals, rules, Target.LOW),
        best_high=best_total(totals, rules, Target.HIGH),
        natural=is_natural(totals, rules),
        busted=is_busted(totals, rules),
    )


def _better(new: HalfPoints | None, old: HalfPoints | None, rules: Rules, target: Target) -> bool:
    if new is None:
        return False
    if old is None:
        return True
    return rank_key(new, rules, target) < rank_key(old, rules, target)


def improvements(cards: Sequence[Card], rules: Rules) -> tuple[Improvement, ...]:
    """For each rank, what drawing one more card of it would do."""
    current = value_hand(cards, rules)
    result = []
    for rank in Rank:
        totals = hand_totals([*cards, rank], rules)
        low = best_total(totals, rules, Target.LOW)
        high = best_total(totals, rules, Target.HIGH)
        result.append(
            Improvement(
                rank=rank,
                best_low=low,
                best_high=high,
                improves_low=_better(low, current.best_low, rules, Target.LOW),
                improves_high=_better(high, current.best_high, rules, Target.HIGH),
                busts=is_busted(totals, rules),
            )
        )
    return tuple(result)


def improvement_chance(cards: Sequence[Card], rules: Rules, unseen: Iterable[Card], target: Target) -> float:
    """Chance that one more card, drawn from ``unseen``, improves the hand for a target."""
    pool = list(unseen)
    if not pool:
        return 0.0
    by_rank = {imp.rank: imp for imp in improvements(cards, rules)}
    good = sum(
        1
        for card in pool
        if (by_rank[card.rank].improves_low if target is Target.LOW else by_rank[card.rank].improves_high)
        and not by_rank[card.rank].busts
    )
    return good / len(pool)
