"""Advice the dealer may show players: drawing odds and the chance of winning each half.

Everything is computed from what the table has seen: each hand's known cards, how many
of its cards are still face down and unseen, and the cards nobody has seen yet
(:meth:`~assistant.engine.state.TableState.unseen_cards`). Unseen face-down cards are
averaged over, so the numbers are what a spectator could work out, not a peek.

* :func:`draw_advice` -- the chance that one more card improves a hand for each target
  (and, under bust rules, the chance that it busts). Exact: suits do not matter, so it
  sums over rank counts.
* :func:`win_chances` -- at declaration time, each hand's expected share of each half,
  exact when the unseen cards can be enumerated quickly and otherwise Monte Carlo with a
  fixed seed (the same table always gives the same numbers).

>>> from assistant.engine.cards import FULL_DECK, parse_cards
>>> from assistant.engine.rules import preset
>>> rules = preset("7/27")
>>> seen = parse_cards("6c 5h Ad As")
>>> unseen = [card for card in FULL_DECK if card not in seen]
>>> a = draw_advice(parse_cards("6c"), 0, rules, unseen)  # 2 Aces and 12 faces of 48 help low
>>> round(a.low, 3), a.exact
(0.292, True)
>>> w = win_chances([SeatHand(0, parse_cards("6c")), SeatHand(1, parse_cards("5h Ad As"))], rules, unseen)
>>> w.chance(1, Target.LOW), w.chance(1, Target.HIGH), w.exact
(1.0, 1.0, True)
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from assistant.engine.cards import Card, Rank, Suit
from assistant.engine.points import HalfPoints
from assistant.engine.rules import Rules
from assistant.engine.showdown import Declaration, _best_seats
from assistant.engine.valuation import (
    HandValue,
    Target,
    best_total,
    card_values,
    is_busted,
    rank_key,
    value_hand,
)

#: Sum over every rank pattern of the unseen face-down cards when there are at most this
#: many; otherwise sample this many deals.
DEFAULT_SAMPLES = 1000
#: The same for one hand's own face-down cards in :func:`draw_advice` (two hidden
#: cards have 91 rank patterns and are exact; three or more are sampled).
DRAW_SAMPLES = 200
DEFAULT_SEED = 727


# ---------------------------------------------------------------------- drawing odds


@dataclass(frozen=True)
class DrawAdvice:
    """What one more card would do to a hand, as probabilities between 0 and 1."""

    low: float  # improves the best total for the low target
    high: float  # improves the best total for the high target
    bust: float  # takes the hand over the high target for good (bust rules only)
    exact: bool = True

    def improves(self, target: Target) -> float:
        return self.low if target is Target.LOW else self.high


def _totals_plus(totals: frozenset[HalfPoints], rank: Rank, rules: Rules) -> frozenset[HalfPoints]:
    return frozenset(total + value for total in totals for value in card_values(rank, rules))


def _rank_multisets(counts: Counter[Rank], size: int) -> Iterator[tuple[tuple[Rank, ...], int]]:
    """Every multiset of ``size`` ranks drawn from ``counts``, with its number of card sets."""
    ranks = sorted(counts)
    for combo in itertools.combinations_with_replacement(ranks, size):
        ways = 1
        for rank, k in Counter(combo).items():
            ways *= math.comb(counts[rank], k)
        if ways:
            yield combo, ways


def draw_advice(
    known: Sequence[Card],
    hidden: int,
    rules: Rules,
    unseen: Iterable[Card],
    samples: int = DRAW_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> DrawAdvice:
    """The chance that one more card, from ``unseen``, improves the hand for each target.

    ``known`` are the hand's cards the table has seen; ``hidden`` more are face down and
    unseen, so they are among ``unseen`` too and are averaged over. A card that busts
    the hand never counts as an improvement. The next card is always summed over
    exactly; the hidden cards too when they have at most ``samples`` rank patterns,
    otherwise ``samples`` of them are drawn with ``seed``.

    >>> from assistant.engine.cards import FULL_DECK, parse_cards
    >>> from assistant.engine.rules import preset
    >>> def rest(seen): return [c for c in FULL_DECK if c not in seen]
    >>> hand = parse_cards("Tc 9d 8s")
    >>> draw_advice(hand, 0, preset("7/27"), rest(hand)).high  # 27 exactly: nothing improves it
    0.0
    >>> hand = parse_cards("Tc 9d")
    >>> b = draw_advice(hand, 0, preset("under"), rest(hand))
    >>> b.bust  # 19 + one of the three 9s or three 10s left goes over 27
    0.12
    """
    cards = list(unseen)
    pool = Counter(card.rank for card in cards)
    if hidden < 0:
        raise ValueError(f"a hand cannot have {hidden} hidden cards")
    if len(cards) <= hidden:
        return DrawAdvice(0.0, 0.0, 0.0)
    exact = math.comb(len(pool) + hidden - 1, hidden) <= samples
    holes: Iterable[tuple[tuple[Rank, ...], int]]
    if exact:
        holes = _rank_multisets(pool, hidden)
    else:
        rng = random.Random(seed)
        holes = ((tuple(card.rank for card in rng.sample(cards, hidden)), 1) for _ in range(samples))
    base = frozenset({0})
    for card in known:
        base = _totals_plus(base, card.rank, rules)
    Key = tuple[int, int] | None  # the rank key of the best total for a target (None: cannot win it)
    outcomes: dict[tuple[Rank, ...], tuple[bool, Key, Key]] = {}

    def outcome(extra: tuple[Rank, ...]) -> tuple[bool, Key, Key]:
        key = tuple(sorted(extra))
        found = outcomes.get(key)
        if found is None:
            totals = base
            for rank in key:
                totals = _totals_plus(totals, rank, rules)
            ordered = sorted(totals)
            low, high = (best_total(ordered, rules, target) for target in (Target.LOW, Target.HIGH))
            found = outcomes[key] = (
                is_busted(ordered, rules),
                None if low is None else rank_key(low, rules, Target.LOW),
                None if high is None else rank_key(high, rules, Target.HIGH),
            )
        return found

    good = {Target.LOW: 0, Target.HIGH: 0}
    busts = 0
    total = 0
    for hole, ways in holes:
        _, *before = outcome(hole)
        for rank, left in pool.items():
            count = left - hole.count(rank)
            if count <= 0:
                continue
            busted, *after = outcome((*hole, rank))
            weight = ways * count
            total += weight
            if busted:
                busts += weight
                continue
            for target, new, old in zip(Target, after, before, strict=True):
                if new is not None and (old is None or new < old):
                    good[target] += weight
    if not total:
        return DrawAdvice(0.0, 0.0, 0.0)
    return DrawAdvice(good[Target.LOW] / total, good[Target.HIGH] / total, busts / total, exact)


# ---------------------------------------------------------------------- winning chances


@dataclass(frozen=True)
class SeatHand:
    """One live hand as the table sees it."""

    seat: int
    known: tuple[Card, ...]
    hidden: int = 0  # face-down cards nobody has seen
    declaration: Declaration | None = None  # None: not declared (yet), or no declaration

    def contends(self, target: Target) -> bool:
        return self.declaration is None or self.declaration.covers(target)


@dataclass(frozen=True)
class WinChances:
    """Each seat's expected share (0 to 1) of each half; a tie counts as a share."""

    low: dict[int, float]
    high: dict[int, float]
    deals: int  # deals of the unseen cards counted (every one when exact)
    exact: bool
    note: str = ""
    naturals: dict[int, float] = field(default_factory=dict)  # chance of holding a natural

    def chance(self, seat: int, target: Target) -> float:
        return (self.low if target is Target.LOW else self.high).get(seat, 0.0)


def _weighted_rank_deals(counts: Counter[Rank], size: int) -> Iterator[tuple[tuple[Rank, ...], int]]:
    """Every ordered tuple of ``size`` ranks from ``counts``, with how many card deals give it."""
    for ranks in itertools.product(sorted(counts), repeat=size):
        weight = 1
        used: Counter[Rank] = Counter()
        for rank in ranks:
            weight *= counts[rank] - used[rank]
            used[rank] += 1
        if weight > 0:
            yield ranks, weight


def win_chances(
    hands: Sequence[SeatHand],
    rules: Rules,
    unseen: Iterable[Card],
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> WinChances:
    """Each hand's expected share of each half, over the ways the unseen cards can lie.

    A hand contends for a half when it declared that half (or both) or has not declared;
    ties share the half; where a natural takes the pot, naturals share both halves. The
    elimination of a 'both' declarer who does not win both outright is left to the
    showdown itself. Suits do not matter, so it is exact (summed over ranks) when at most
    ``samples`` rank patterns are possible, otherwise ``samples`` deals drawn with ``seed``.

    >>> from assistant.engine.cards import FULL_DECK, parse_cards
    >>> from assistant.engine.rules import preset
    >>> rules = preset("7/27")
    >>> seen = parse_cards("6c Kd Ah")
    >>> pool = [c for c in FULL_DECK if c not in seen]
    >>> w = win_chances([SeatHand(0, parse_cards("6c Kd")), SeatHand(1, parse_cards("Ah"), hidden=1)],
    ...                 rules, pool)
    >>> w.exact, w.deals, w.chance(0, Target.LOW)  # 6½ loses low only to A-6 (three 6s left)
    (True, 49, 0.9387755102040817)
    """
    if not hands:
        raise ValueError("win chances need at least one hand")
    if len({hand.seat for hand in hands}) != len(hands):
        raise ValueError("a seat is listed twice")
    pool = list(unseen)
    hidden = sum(hand.hidden for hand in hands)
    if hidden > len(pool):
        raise ValueError(f"{hidden} face-down cards are unseen but only {len(pool)} cards are left")
    counts = Counter(card.rank for card in pool)
    exact = len(counts) ** hidden <= samples
    deals: Iterable[tuple[Sequence[Rank], int]]
    if exact:
        deals = _weighted_rank_deals(counts, hidden)
    else:
        rng = random.Random(seed)
        deals = (([card.rank for card in rng.sample(pool, hidden)], 1) for _ in range(samples))

    cache: dict[tuple[Rank, ...], HandValue] = {}

    def valued(ranks: Sequence[Rank]) -> HandValue:
        key = tuple(sorted(ranks))
        value = cache.get(key)
        if value is None:  # totals depend on ranks only: stand-in suits are never shown
            value = cache[key] = value_hand([Card(rank, Suit.CLUBS) for rank in key], rules)
        return value

    contenders = {target: [h.seat for h in hands if h.contends(target)] for target in Target}
    shares = {target: dict.fromkeys((h.seat for h in hands), 0.0) for target in Target}
    naturals = dict.fromkeys((h.seat for h in hands), 0.0)
    known = {hand.seat: tuple(card.rank for card in hand.known) for hand in hands}
    count = 0
    for deal, weight in deals:
        count += weight
        values: dict[int, HandValue] = {}
        start = 0
        for hand in hands:
            values[hand.seat] = valued((*known[hand.seat], *deal[start : start + hand.hidden]))
            start += hand.hidden
        natural = [seat for seat, value in values.items() if value.natural]
        for seat in natural:
            naturals[seat] += weight
        for target in Target:
            if rules.natural_takes_pot and natural and len(hands) > 1:
                winners: Sequence[int] = natural
            else:
                winners = _best_seats(contenders[target], values, rules, target)
            for seat in winners:
                shares[target][seat] += weight / len(winners)
    if not count:
        raise ValueError("no deal of the unseen cards is possible")
    note = "exact" if exact else f"{count} simulated deals (seed {seed})"
    deals_seen = count if not exact else math.perm(len(pool), hidden)
    return WinChances(
        low={seat: share / count for seat, share in shares[Target.LOW].items()},
        high={seat: share / count for seat, share in shares[Target.HIGH].items()},
        deals=deals_seen,
        exact=exact,
        note=note,
        naturals={seat: n / count for seat, n in naturals.items()},
    )
