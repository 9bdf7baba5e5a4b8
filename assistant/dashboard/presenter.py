"""What the dashboard shows, as plain text and numbers computed from the engine's state.

No Qt here: the widgets only lay out what :func:`present` returns, so what the dealer
reads (whose turn, the pot, the freeze tokens, the advice, the showdown) is tested
without a window.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from assistant.engine import (
    Card,
    Decision,
    DecisionKind,
    Phase,
    Rules,
    SeatState,
    TableState,
    Target,
    format_points,
    value_hand,
)
from assistant.engine.advice import DrawAdvice, SeatHand, WinChances, draw_advice, win_chances
from assistant.engine.showdown import divide

#: Phases in which a hand can still get cards, so drawing odds mean something (not while
#: dealing: a half-dealt hand's odds are noise, and cost time on every card).
DRAW_PHASES = frozenset(
    {
        Phase.EXPOSING,
        Phase.BETTING,
        Phase.DRAWING,
        Phase.TURN_DRAW,
        Phase.TURN_BET,
        Phase.MATCHING,
    }
)
WIN_PHASES = frozenset({Phase.DECLARING, Phase.SHOWDOWN})


@dataclass(frozen=True)
class SeatView:
    seat: int
    name: str
    stack: int
    bet: int
    committed: int
    up_cards: tuple[str, ...]
    down_cards: tuple[str, ...]  # "?" for a face-down card nobody saw
    status: str  # "", "folded", "busted", "frozen", "out", "all in"
    freeze: str  # "refusals 1 of 3", or "" when the rules never freeze
    declaration: str
    dealer: bool
    on_turn: bool
    live: bool
    values: str  # "low 6½ · high 16½" from the cards seen
    natural: bool
    advice: str  # drawing odds or winning chances
    award: int | None  # chips won in the last showdown


@dataclass(frozen=True)
class ShowdownView:
    lines: tuple[str, ...]
    low_half: str
    high_half: str
    awards: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class TableView:
    title: str  # rules and hand number
    phase: str
    decision: str  # "Ben: bet, 2 to call"
    decision_seat: int | None
    pot: int
    to_call: int
    raises_left: str
    seats: tuple[SeatView, ...]
    showdown: ShowdownView | None
    keys: str  # the keys that work for this decision


def percent(p: float) -> str:
    return f"{round(p * 100)}%"


@lru_cache(maxsize=512)
def _draw_advice(known: tuple[Card, ...], hidden: int, rules: Rules, unseen: tuple[Card, ...]) -> DrawAdvice:
    return draw_advice(known, hidden, rules, unseen)


@lru_cache(maxsize=64)
def _win_chances(hands: tuple[SeatHand, ...], rules: Rules, unseen: tuple[Card, ...]) -> WinChances:
    return win_chances(hands, rules, unseen)


def seat_hand(seat: SeatState) -> SeatHand:
    return SeatHand(seat.seat, seat.known_cards, seat.unknown_count, seat.declaration)


def table_chances(state: TableState) -> WinChances | None:
    """Each live hand's chance of winning each half (declaration time and showdown)."""
    live = state.live_seats
    if state.phase not in WIN_PHASES or len(live) < 2:
        return None
    return _win_chances(tuple(seat_hand(s) for s in live), state.rules, tuple(state.unseen_cards()))


def seat_draw_advice(state: TableState, seat: SeatState) -> DrawAdvice | None:
    if state.phase not in DRAW_PHASES or not seat.live or seat.frozen:
        return None
    return _draw_advice(seat.known_cards, seat.unknown_count, state.rules, tuple(state.unseen_cards()))


def _values(state: TableState, seat: SeatState) -> tuple[str, bool]:
    cards = seat.known_cards if seat.shown or state.hand_done else seat.up_cards
    if not cards:
        return "", False
    value = value_hand(cards, state.rules)
    parts = []
    for target, label in ((Target.LOW, "low"), (Target.HIGH, "high")):
        best = value.best(target)
        parts.append(f"{label} {'bust' if best is None else format_points(best)}")
    text = " · ".join(parts)
    if seat.unknown_count or (seat.down_count and not seat.shown and not state.hand_done):
        text += " + ?"
    if value.busted:
        text += " · BUST"
    return text, value.natural


def _status(seat: SeatState) -> str:
    if seat.out:
        return "out"
    if not seat.in_hand:
        return ""
    if seat.busted:
        return "busted"
    if seat.folded:
        return "folded"
    if seat.frozen:
        return "FROZEN"
    if seat.all_in:
        return "all in"
    return ""


def _result_status(state: TableState, seat: SeatState) -> str:
    """After the showdown: which half (or the pot) the seat won."""
    result = state.result
    if result is None or not state.hand_done or not result.awards.get(seat.seat):
        return ""
    if result.uncontested == seat.seat:
        return "wins the pot"
    won = [
        label
        for showdown in result.showdowns
        for label, winners in (("low", showdown.low_winners), ("high", showdown.high_winners))
        if seat.seat in winners
    ]
    if "low" in won and "high" in won:
        return "wins both halves"
    return f"wins {won[0]}" if won else "wins a share"


def _freeze(rules: Rules, seat: SeatState) -> str:
    if not rules.freeze_after:
        return ""
    count = seat.refusals_in_a_row if rules.freeze_consecutive else seat.refusals
    kind = " in a row" if rules.freeze_consecutive else ""
    return f"refusals {count} of {rules.freeze_after}{kind}"


def _advice(state: TableState, seat: SeatState, chances: WinChances | None) -> str:
    if chances is not None and seat.live:
        low, high = chances.chance(seat.seat, Target.LOW), chances.chance(seat.seat, Target.HIGH)
        exact = "" if chances.exact else " ~"
        return f"wins low {percent(low)} · high {percent(high)}{exact}"
    draw = seat_draw_advice(state, seat)
    if draw is None:
        return ""
    text = f"next card improves low {percent(draw.low)} · high {percent(draw.high)}"
    if state.rules.bust:
        text += f" · busts {percent(draw.bust)}"
    return text


def describe_decision(state: TableState, decision: Decision | None) -> str:
    if decision is None:
        return "The game is over: fewer than two players can pay the ante"
    if decision.seat is None:
        return "Start the next deal" if state.hand_number else "Start the first deal"
    name = state.seats[decision.seat].name
    kind = decision.kind
    if kind is DecisionKind.DEAL:
        return f"Deal {name} a card {'face up' if decision.face_up else 'face down'}"
    if kind is DecisionKind.EXPOSE:
        return f"{name}: turn up one face-down card"
    if kind is DecisionKind.DRAW:
        return f"{name}: take a card {'face up' if decision.face_up else 'face down'} or refuse"
    if kind is DecisionKind.MATCH:
        return f"{name}: match the bet of {decision.to_call} or fold"
    if kind is DecisionKind.BET:
        if state.phase is Phase.TURN_BET:
            return f"{name}: bet {decision.min_bet} or pass"
        if decision.to_call:
            options = "call, raise or fold" if decision.can_raise else "call or fold"
            return f"{name}: {decision.to_call} to call — {options}"
        return f"{name}: check or bet {decision.min_bet}-{decision.max_bet}"
    if kind is DecisionKind.DECLARE:
        return f"{name}: declare low, high or both"
    if kind is DecisionKind.SHOW:
        return f"{name}: show the face-down cards"
    return str(kind.value)


KEY_HINTS = {
    DecisionKind.DEAL: "type the card (7 H) · Space: face down, unseen · U undo",
    DecisionKind.EXPOSE: "type the card turned up · U undo",
    DecisionKind.DRAW: "type the card taken · Space: take face down · N refuse · U undo",
    DecisionKind.BET: "C check/call · digits+B bet · digits+R raise · F fold · U undo",
    DecisionKind.MATCH: "C match · F fold · U undo",
    DecisionKind.DECLARE: "L low · H high · O both · U undo",
    DecisionKind.SHOW: "type the face-down cards · U undo",
    DecisionKind.NEXT_HAND: "Space: next deal · U undo · Ctrl+S export history",
}


def _odd_chips(amount: int, winners: tuple[int, ...], dealer: int, names: dict[int, str]) -> list[str]:
    """Who gets the odd chips of a shared half, by the engine's own division."""
    if len(winners) < 2 or not amount % len(winners):
        return []
    shares = divide(amount, winners, dealer)
    base = amount // len(winners)
    extra = [names[seat] for seat, chips in shares.items() if chips > base]
    return [f"odd chip of the shared {amount}: {', '.join(extra)}"]


def _showdown(state: TableState) -> ShowdownView | None:
    result = state.result
    if result is None:
        return None
    names = {s.seat: s.name for s in state.seats}
    awards = tuple((names[seat], chips) for seat, chips in sorted(result.awards.items()))
    if result.uncontested is not None:
        line = f"{names[result.uncontested]} takes {result.pot} uncontested: everyone else folded"
        return ShowdownView((line,), "", "", awards)
    lines: list[str] = []
    low_half = high_half = ""
    for index, (pot, showdown) in enumerate(zip(result.pots, result.showdowns, strict=False)):
        label = "Main pot" if index == 0 else f"Side pot {index}"
        lines.append(f"{label}: {pot.amount} between {', '.join(names[s] for s in pot.seats)}")
        for seat, declaration in sorted(showdown.declarations.items()):
            lines.append(f"  {names[seat]} declared {declaration.value}")
        low = ", ".join(names[s] for s in showdown.low_winners) or "nobody"
        high = ", ".join(names[s] for s in showdown.high_winners) or "nobody"
        odd: list[str] = []
        if showdown.low_winners and showdown.high_winners and not showdown.naturals:
            low_amount = pot.amount // 2  # the engine's convention: the odd chip goes high
            half_text = (f"low half {low_amount} → {low}", f"high half {pot.amount - low_amount} → {high}")
            if pot.amount % 2:
                odd.append("the odd chip between the halves goes to the high half")
            for amount, winners in (
                (low_amount, showdown.low_winners),
                (pot.amount - low_amount, showdown.high_winners),
            ):
                odd.extend(_odd_chips(amount, winners, state.dealer, names))
        else:
            half_text = (f"low → {low}", f"high → {high}")
        lines.extend(f"  {text}" for text in half_text)
        lines.extend(f"  {text}" for text in odd)
        if index == 0:
            low_half, high_half = half_text
        if showdown.naturals:
            lines.append(f"  natural: {', '.join(names[s] for s in showdown.naturals)}")
        if showdown.eliminated:
            out = ", ".join(names[s] for s in showdown.eliminated)
            lines.append(f"  eliminated ('both' lost a half): {out}")
        if showdown.note:
            lines.append(f"  {showdown.note}")
        if len(result.showdowns) > 1:
            paid = [f"{names[s]} {c}" for s, c in showdown.awards.items() if c]
            lines.append(f"  paid from this pot: {', '.join(paid) or 'nobody'}")
    return ShowdownView(tuple(lines), low_half, high_half, awards)


def present(state: TableState) -> TableView:
    """Everything the dashboard shows for ``state``."""
    decision = state.decision
    chances = table_chances(state)
    awards = state.result.awards if state.result is not None else {}
    eliminated = {
        seat for showdown in (state.result.showdowns if state.result else ()) for seat in showdown.eliminated
    }
    seats = []
    for s in state.seats:
        values, natural = _values(state, s)
        seats.append(
            SeatView(
                seat=s.seat,
                name=s.name,
                stack=s.stack,
                bet=s.bet,
                committed=s.committed,
                up_cards=tuple(str(h.card) for h in s.cards if h.face_up and h.card is not None),
                down_cards=tuple("?" if h.card is None else str(h.card) for h in s.cards if not h.face_up),
                status=_result_status(state, s) or ("eliminated" if s.seat in eliminated else _status(s)),
                freeze=_freeze(state.rules, s) if s.in_hand else "",
                declaration=s.declaration.value if s.declaration is not None else "",
                dealer=s.seat == state.dealer,
                on_turn=decision is not None and decision.seat == s.seat,
                live=s.live,
                values=values,
                natural=natural,
                advice=_advice(state, s, chances),
                award=awards.get(s.seat) if awards else None,
            )
        )
    phase = state.phase.value.replace("-", " ")
    rounds = []
    if state.phase in (Phase.DRAWING, Phase.TURN_DRAW, Phase.TURN_BET, Phase.MATCHING) and state.draw_rounds:
        rounds.append(f"round {state.draw_rounds}")
    if state.phase is Phase.BETTING and state.betting_rounds:
        rounds.append(f"round {state.betting_rounds}" + (", the last" if state.final_round else ""))
    raises_left = ""
    if decision is not None and decision.kind is DecisionKind.BET and state.phase is Phase.BETTING:
        raises_left = f"{decision.raises_left} of {state.stakes.max_raises}"
    to_call = decision.to_call if decision is not None else 0
    title = f"{state.rules.name} · hand {state.hand_number}" if state.hand_number else state.rules.name
    return TableView(
        title=title,
        phase=phase + (f" · {rounds[0]}" if rounds and not state.hand_done else ""),
        decision=describe_decision(state, decision),
        decision_seat=decision.seat if decision is not None else None,
        pot=state.result.pot if state.hand_done and state.result is not None else state.pot,
        to_call=to_call,
        raises_left=raises_left,
        seats=tuple(seats),
        showdown=_showdown(state),
        keys=KEY_HINTS.get(decision.kind, "") if decision is not None else "U undo",
    )
