"""A session's hand history as plain text, written from its events (no Qt).

Each event is replayed on a copy of the state, so every line says what happened with the
names, amounts and results the engine derived at that moment.
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.engine import Event, TableState, format_points, value_hand
from assistant.engine.events import (
    BetMade,
    BustShown,
    Called,
    CardCorrected,
    CardDealt,
    CardExposed,
    CardRefused,
    CardTaken,
    Checked,
    Declared,
    Folded,
    HandShown,
    HandStarted,
    Raised,
    SessionStarted,
)
from assistant.engine.state import Phase, fold_events


def _line(event: Event, before: TableState, after: TableState) -> list[str]:
    def name(seat: int) -> str:
        return after.seats[seat].name

    if isinstance(event, HandStarted):
        antes = ", ".join(f"{s.name} {s.committed}" for s in after.seats if s.in_hand)
        return [
            "",
            f"Hand {after.hand_number} · {after.rules.name} · dealer {after.seats[after.dealer].name}",
            f"  antes: {antes} (pot {after.pot})",
        ]
    if isinstance(event, CardDealt | CardTaken):
        verb = "is dealt" if isinstance(event, CardDealt) else "takes"
        held = after.seats[event.seat].cards
        up = bool(held) and held[-1].face_up
        card = "a card face down" if event.card is None else f"{event.card} {'up' if up else 'down'}"
        return [f"  {name(event.seat)} {verb} {card}"]
    if isinstance(event, CardExposed):
        return [f"  {name(event.seat)} turns up {event.card}"]
    if isinstance(event, CardRefused):
        frozen = after.seats[event.seat].frozen and not before.seats[event.seat].frozen
        return [f"  {name(event.seat)} refuses a card" + (" and is frozen" if frozen else "")]
    if isinstance(event, Checked):
        return [f"  {name(event.seat)} {'checks' if before.phase is Phase.BETTING else 'passes'}"]
    if isinstance(event, BetMade):
        return [f"  {name(event.seat)} bets {event.amount}"]
    if isinstance(event, Called):
        paid = after.seats[event.seat].committed - before.seats[event.seat].committed
        return [f"  {name(event.seat)} calls {paid}"]
    if isinstance(event, Raised):
        return [f"  {name(event.seat)} raises {event.amount}"]
    if isinstance(event, Folded):
        return [f"  {name(event.seat)} folds"]
    if isinstance(event, Declared):
        return [f"  {name(event.seat)} declares {event.declaration.value}"]
    if isinstance(event, HandShown | BustShown):
        seat = after.seats[event.seat]
        value = value_hand(seat.known_cards, after.rules)
        totals = ", ".join(format_points(t) for t in value.totals)
        cards = " ".join(str(c) for c in seat.known_cards)
        tail = ": bust, folds" if isinstance(event, BustShown) else ""
        return [f"  {seat.name} shows {cards} (totals {totals}){tail}"]
    if isinstance(event, CardCorrected):
        return [f"  correction: {name(event.seat)}'s card {event.index + 1} is {event.card}"]
    return []


def _result(state: TableState) -> list[str]:
    result = state.result
    if result is None:
        return []
    names = {s.seat: s.name for s in state.seats}
    lines = []
    main = result.main
    if main is not None:
        low = ", ".join(names[s] for s in main.low_winners) or "nobody"
        high = ", ".join(names[s] for s in main.high_winners) or "nobody"
        lines.append(f"  showdown: low {low}; high {high}")
        if main.eliminated:
            lines.append(f"  eliminated: {', '.join(names[s] for s in main.eliminated)}")
    won = ", ".join(f"{names[s]} {chips}" for s, chips in sorted(result.awards.items()) if chips)
    lines.append(f"  pot {result.pot}: {won}")
    lines.append("  stacks: " + ", ".join(f"{s.name} {s.stack}" for s in state.seats))
    return lines


def hand_history(events: Sequence[Event]) -> str:
    """The whole session as text, one line per action, a result per finished hand.

    >>> from assistant.engine import Session, Stakes, preset
    >>> s = Session.new(preset("7/27"), Stakes(ante=1), [("Anna", 20), ("Ben", 20)])
    >>> s.start_hand(); s.deal(1, "6c"); s.deal(0, "9h"); s.deal(1); s.deal(0); s.bet(1, 2); s.fold(0)
    >>> print(hand_history(s.events))
    Session: seven-twenty-seven · ante 1, bets 1-5, 3 raises · Anna 20, Ben 20
    <BLANKLINE>
    Hand 1 · seven-twenty-seven · dealer Anna
      antes: Anna 1, Ben 1 (pot 2)
      Ben is dealt 6c up
      Anna is dealt 9h up
      Ben is dealt a card face down
      Anna is dealt a card face down
      Ben bets 2
      Anna folds
      pot 4: Ben 4
      stacks: Anna 19, Ben 21
    <BLANKLINE>
    """
    if not events or not isinstance(events[0], SessionStarted):
        raise ValueError("a hand history needs a session's events, starting with SessionStarted")
    start = events[0]
    stakes = start.stakes
    players = ", ".join(f"{p.name} {p.stack}" for p in start.players)
    lines = [
        f"Session: {start.rules.name} · ante {stakes.ante}, bets {stakes.min_bet}-{stakes.max_bet}, "
        f"{stakes.max_raises} raises · {players}"
    ]
    state = fold_events(events[:1])
    for event in events[1:]:
        before = state.copy()
        state.advance(event)
        lines.extend(_line(event, before, state))
        if state.hand_done and not before.hand_done:
            lines.extend(_result(state))
    return "\n".join(lines) + "\n"
