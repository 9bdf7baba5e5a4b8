"""Dividing a hand's chips: the main pot and side pots, each scored at the showdown.

A player who is all in can win only what every other player matched of their chips.
The chips are layered by how much each player put in; each layer is a pot that the
players who reached it contest, scored by :func:`~assistant.engine.showdown.score_showdown`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assistant.engine.showdown import ShowdownHand, ShowdownResult, score_showdown

if TYPE_CHECKING:
    from assistant.engine.state import TableState


@dataclass(frozen=True)
class Pot:
    amount: int
    seats: tuple[int, ...]  # the players who may win it


@dataclass(frozen=True)
class HandResult:
    """How a hand ended: every chip of ``pot`` is in ``awards``."""

    pot: int
    awards: dict[int, int]
    pots: tuple[Pot, ...]
    showdowns: tuple[ShowdownResult, ...]  # one per pot that was contested
    uncontested: int | None = None  # the seat left alone when everyone else folded
    returned: dict[int, int] = field(default_factory=dict)  # chips nobody still in matched

    @property
    def main(self) -> ShowdownResult | None:
        return self.showdowns[0] if self.showdowns else None


def layer_pots(committed: dict[int, int], live: set[int]) -> tuple[tuple[Pot, ...], dict[int, int]]:
    """Split the chips put in into a main pot and side pots, and what goes back.

    Chips above what any player still in put in cannot be won by anyone: they go back
    to whoever put them in.

    >>> layer_pots({0: 10, 1: 30, 2: 30, 3: 5}, live={0, 1, 2})
    ((Pot(amount=35, seats=(0, 1, 2)), Pot(amount=40, seats=(1, 2))), {})
    >>> layer_pots({0: 4, 1: 24, 2: 24}, live={0})
    ((Pot(amount=12, seats=(0,)),), {1: 20, 2: 20})
    """
    levels = sorted({committed[s] for s in live})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(chips, level) - min(chips, previous) for chips in committed.values())
        seats = tuple(sorted(s for s in live if committed[s] >= level))
        if amount:
            if pots and pots[-1].seats == seats:
                pots[-1] = Pot(pots[-1].amount + amount, seats)
            else:
                pots.append(Pot(amount, seats))
        previous = level
    returned = {seat: chips - previous for seat, chips in committed.items() if chips > previous}
    return tuple(pots), returned


def settle(state: TableState, uncontested: int | None = None) -> HandResult:
    """Score the hand in ``state`` and say who gets which chips."""
    committed = {s.seat: s.committed for s in state.seats if s.in_hand}
    total = sum(committed.values())
    live = {uncontested} if uncontested is not None else {s.seat for s in state.live_seats}
    pots, returned = layer_pots(committed, live)
    awards: dict[int, int] = {seat: 0 for seat in sorted(live)}
    for seat, chips in returned.items():
        awards[seat] = awards.get(seat, 0) + chips
    showdowns = []
    for pot in pots:
        if len(pot.seats) == 1:
            awards[pot.seats[0]] += pot.amount
            continue
        hands = [
            ShowdownHand(
                seat,
                state.seats[seat].known_cards,
                state.seats[seat].declaration if state.rules.declaration else None,
            )
            for seat in pot.seats
        ]
        result = score_showdown(state.rules, pot.amount, state.dealer, hands)
        showdowns.append(result)
        for seat, chips in result.awards.items():
            awards[seat] += chips
    return HandResult(
        pot=total,
        awards=awards,
        pots=pots,
        showdowns=tuple(showdowns),
        uncontested=uncontested,
        returned=returned,
    )
