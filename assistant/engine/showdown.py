"""The showdown: who wins each half of a pot, and how the chips are divided.

Conventions where the rule texts are silent (kept stable for outside checks):

* the odd chip between the two halves goes to the high half;
* inside a shared half, odd chips go one by one to the tied winners in seat order,
  clockwise from the dealer's left;
* a 'both' declarer who loses or ties either half is eliminated, and only the others
  who declared that half may win it;
* a half nobody may win goes to the winners of the other half; if nobody may win
  either half, the pot is shared by everyone in the showdown;
* where naturals take the pot, two or more naturals share it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from assistant.engine.cards import Card
from assistant.engine.errors import IllegalActionError
from assistant.engine.points import HalfPoints
from assistant.engine.rules import Rules
from assistant.engine.valuation import HandValue, Target, rank_key, value_hand


class Declaration(Enum):
    """What a player plays for, in the rule sets that have a declaration."""

    LOW = "low"
    HIGH = "high"
    BOTH = "both"

    def covers(self, target: Target) -> bool:
        return self is Declaration.BOTH or self.value == target.value


class ShowdownError(IllegalActionError):
    """The showdown cannot be scored as given."""


@dataclass(frozen=True)
class ShowdownHand:
    seat: int
    cards: tuple[Card, ...]
    declaration: Declaration | None = None


@dataclass(frozen=True)
class ShowdownResult:
    """Who won what. ``awards`` holds every chip of the pot."""

    pot: int
    values: dict[int, HandValue]
    awards: dict[int, int]
    low_winners: tuple[int, ...] = ()
    high_winners: tuple[int, ...] = ()
    naturals: tuple[int, ...] = ()
    eliminated: tuple[int, ...] = ()
    declarations: dict[int, Declaration] = field(default_factory=dict)
    note: str = ""


def seat_order(seats: Iterable[int], dealer_seat: int) -> list[int]:
    """Seats clockwise, starting on the dealer's left (seats are numbered clockwise)."""
    ordered = sorted(set(seats))
    return [s for s in ordered if s > dealer_seat] + [s for s in ordered if s <= dealer_seat]


def divide(amount: int, winners: Sequence[int], dealer_seat: int) -> dict[int, int]:
    """Share chips equally; odd chips one each, clockwise from the dealer's left.

    >>> divide(7, [4, 1], dealer_seat=2)
    {4: 4, 1: 3}
    """
    order = seat_order(winners, dealer_seat)
    share, odd = divmod(amount, len(order))
    return {seat: share + (1 if index < odd else 0) for index, seat in enumerate(order)}


def _best_seats(
    contenders: Iterable[int], values: dict[int, HandValue], rules: Rules, target: Target
) -> tuple[int, ...]:
    """The seats that win a half among ``contenders`` (all of them when tied)."""
    scored: list[tuple[tuple[int, int], HalfPoints, int, int]] = []
    for seat in contenders:
        total = values[seat].best(target)
        if total is not None:
            scored.append((rank_key(total, rules, target), total, len(values[seat].cards), seat))
    if not scored:
        return ()
    best_key = min(entry[0] for entry in scored)
    winners = [entry for entry in scored if entry[0] == best_key]
    if rules.fewer_cards_win:
        fewest: dict[HalfPoints, int] = {}
        for _, total, count, _ in winners:
            fewest[total] = min(count, fewest.get(total, count))
        winners = [entry for entry in winners if entry[2] == fewest[entry[1]]]
    return tuple(sorted(entry[3] for entry in winners))


def _add(awards: dict[int, int], shares: dict[int, int]) -> None:
    for seat, chips in shares.items():
        awards[seat] = awards.get(seat, 0) + chips


def score_showdown(rules: Rules, pot: int, dealer_seat: int, hands: Sequence[ShowdownHand]) -> ShowdownResult:
    """Score a showdown between the players still in and divide ``pot``.

    >>> from assistant.engine.cards import parse_cards
    >>> from assistant.engine.rules import preset
    >>> hands = [ShowdownHand(1, parse_cards("3c 2d Kh")), ShowdownHand(2, parse_cards("6c Jd")),
    ...          ShowdownHand(3, parse_cards("10s 8h Ac 7d")), ShowdownHand(4, parse_cards("9c 9d 8s 2h"))]
    >>> score_showdown(preset("7/27"), 40, 4, hands).awards
    {1: 0, 2: 20, 3: 10, 4: 10}
    """
    if pot < 0:
        raise ShowdownError(f"the pot cannot be negative ({pot})")
    if not hands:
        raise ShowdownError("a showdown needs at least one player")
    seats = [hand.seat for hand in hands]
    if len(set(seats)) != len(seats):
        raise ShowdownError("a seat is listed twice")
    seen: set[Card] = set()
    for hand in hands:
        if not hand.cards:
            raise ShowdownError(f"seat {hand.seat} has no cards")
        for card in hand.cards:
            if card in seen:
                raise ShowdownError(f"card {card} appears twice")
            seen.add(card)
    values = {hand.seat: value_hand(hand.cards, rules) for hand in hands}
    awards = {seat: 0 for seat in seat_order(seats, dealer_seat)}
    naturals = tuple(sorted(seat for seat, value in values.items() if value.natural))
    # where a natural takes the pot, it is claimed before anyone declares
    natural_claimed = rules.natural_takes_pot and bool(naturals) and len(hands) > 1
    declarations: dict[int, Declaration] = {}
    for hand in hands:
        if not rules.declaration:
            if hand.declaration is not None:
                raise ShowdownError(f"seat {hand.seat} declared, but these rules have no declaration")
        elif hand.declaration is not None:
            declarations[hand.seat] = hand.declaration
        elif not natural_claimed and len(hands) > 1:
            raise ShowdownError(f"seat {hand.seat} has no declaration, which {rules.name} requires")

    def result(**kwargs: object) -> ShowdownResult:
        return ShowdownResult(
            pot=pot,
            values=values,
            awards=awards,
            naturals=naturals,
            declarations=declarations,
            **kwargs,  # type: ignore[arg-type]
        )

    if len(hands) == 1:
        _add(awards, {seats[0]: pot})
        return result(note="the last player in takes the pot")
    if natural_claimed:
        _add(awards, divide(pot, naturals, dealer_seat))
        return result(low_winners=naturals, high_winners=naturals, note="a natural takes the pot")

    def contenders(target: Target, out: Iterable[int] = ()) -> list[int]:
        excluded = set(out)
        return [
            seat
            for seat in seats
            if seat not in excluded and (not rules.declaration or declarations[seat].covers(target))
        ]

    eliminated: list[int] = []
    for seat, declaration in declarations.items():
        if declaration is Declaration.BOTH:
            for target in Target:
                if _best_seats(contenders(target), values, rules, target) != (seat,):
                    eliminated.append(seat)
                    break
    low = _best_seats(contenders(Target.LOW, eliminated), values, rules, Target.LOW)
    high = _best_seats(contenders(Target.HIGH, eliminated), values, rules, Target.HIGH)

    note = ""
    if low and high:
        low_amount = pot // 2
        _add(awards, divide(low_amount, low, dealer_seat))
        _add(awards, divide(pot - low_amount, high, dealer_seat))
    elif low or high:
        _add(awards, divide(pot, low or high, dealer_seat))
        note = "nobody may win the other half: the whole pot goes to one half's winners"
    else:
        sharing = [seat for seat in seats if not values[seat].busted] or seats
        _add(awards, divide(pot, sharing, dealer_seat))
        note = "nobody may win either half: the pot is shared by everyone in the showdown"
    return result(low_winners=low, high_winners=high, eliminated=tuple(sorted(eliminated)), note=note)
