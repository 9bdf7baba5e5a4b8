"""Turning stable changes on the table into engine events, or into questions.

The referee knows whose decision it is (from the engine) and reads each stable change
in that light: a card arriving at the seat being dealt to is that deal; a card arriving
at a later seat during a draw round means the seats in between refused; chips pushed
into the bet zone of the player to act are a bet, a call or a raise; a hand pushed
away is a fold; hidden cards turned up at the showdown are that player's show. Whatever
the rules forbid (a card to a frozen player, the same card in two places, a card out
of turn) or the camera cannot know (a stack it could not count, a card named otherwise
than read because another place holds the name read) becomes a :class:`DealerQuery` and is
never applied on its own. Between hands cards and chips are
gathered and nothing is read, but cards that come to a seat then are asked about: a
deal begun before the dealer started the hand would otherwise go uncounted unnoticed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from assistant.engine.cards import Card
from assistant.engine.errors import IllegalActionError
from assistant.engine.events import (
    BetMade,
    BustShown,
    Called,
    CardDealt,
    CardExposed,
    CardRefused,
    CardTaken,
    Event,
    Folded,
    HandShown,
    Raised,
)
from assistant.engine.session import Session
from assistant.engine.state import DecisionKind, Phase
from assistant.pipeline.observations import ZoneRead
from assistant.pipeline.stability import ZoneChange


@dataclass(frozen=True)
class Applied:
    """An event that went into the game, the frame it was seen at and who said it."""

    event: Event
    frame: int
    source: str = "camera"  # or "dealer"


@dataclass(frozen=True)
class DealerQuery:
    """Something seen that the rules do not allow, or that the camera cannot settle."""

    frame: int
    zone: str
    message: str
    proposed: tuple[Event, ...] = ()


Outcome = Applied | DealerQuery


def _seat_of(zone: str) -> tuple[int, str] | None:
    if not zone.startswith("seat") or "." not in zone:
        return None
    number, _, kind = zone[4:].partition(".")
    return (int(number), kind) if number.isdigit() else None


def _added(before: Iterable[Card], after: Iterable[Card]) -> list[Card]:
    return list((Counter(after) - Counter(before)).elements())


def _dealt_early(hand: int) -> str:
    """The question for cards that come to a seat while no hand is running: the camera
    cannot count them towards a deal that has not started, and the dealer would
    otherwise find them missing only later. One question for the table (each seat's
    card asks the same), and a new one for each hand."""
    return (
        f"cards are being dealt, but hand {hand} is not started: gather them, start the deal, "
        "and deal again (cards dealt before the start are not counted)"
    )


class Referee:
    """Feeds stable table changes into a :class:`Session`."""

    def __init__(self, session: Session, infer_refusals: bool = True, read_bets: bool = True) -> None:
        self.session = session
        self.infer_refusals = infer_refusals
        self.read_bets = read_bets  # False: the dealer enters bets, chips seen are not read
        self.log: list[Outcome] = []
        # while set, what a change would apply is put to the dealer with this question instead
        self._confirm: str | None = None

    # ------------------------------------------------------------------ entry points

    def on_changes(
        self, changes: Iterable[ZoneChange], table: dict[str, ZoneRead] | None = None
    ) -> list[Outcome]:
        """Apply a frame's stable changes in the order they happened at the table."""
        order = {seat: rank for rank, seat in enumerate(self._clockwise())}
        outcomes: list[Outcome] = []
        for change in sorted(changes, key=lambda c: (c.since_frame, self._zone_rank(c.zone, order))):
            outcomes.extend(self._on_change(change))
        if table is not None:
            outcomes.extend(self._check_duplicates(table, max((c.frame for c in changes), default=0)))
        self.log.extend(outcomes)
        return outcomes

    def dealer(self, event: Event, frame: int) -> Applied:
        """An action the dealer entered (or a sidecar file held); illegal ones raise."""
        self.session.apply(event)
        applied = Applied(event, frame, "dealer")
        self.log.append(applied)
        return applied

    # ------------------------------------------------------------------ helpers

    def _clockwise(self) -> list[int]:
        state = self.session.state
        return state.clockwise_from(state.dealer)

    @staticmethod
    def _zone_rank(zone: str, order: dict[int, int]) -> int:
        parsed = _seat_of(zone)
        return order.get(parsed[0], 99) if parsed else 99

    def _try(self, events: list[Event], frame: int, zone: str, why: str = "") -> list[Outcome]:
        """Apply events one by one; the first refused one and the rest become a query.
        While a change's cards need the dealer's word (``_confirm``), none is applied: they
        are all proposed with its question."""
        if self._confirm is not None:
            return [DealerQuery(frame, zone, f"{why}{self._confirm}", tuple(events))]
        outcomes: list[Outcome] = []
        for index, event in enumerate(events):
            try:
                self.session.apply(event)
            except IllegalActionError as error:
                message = f"{why}{error}" if why else str(error)
                outcomes.append(DealerQuery(frame, zone, message, tuple(events[index:])))
                return outcomes
            outcomes.append(Applied(event, frame))
        return outcomes

    def _query(self, change: ZoneChange, message: str, proposed: tuple[Event, ...] = ()) -> list[Outcome]:
        return [DealerQuery(change.frame, change.zone, message, proposed)]

    # ------------------------------------------------------------------ reading one change

    def _on_change(self, change: ZoneChange) -> list[Outcome]:
        parsed = _seat_of(change.zone)
        if parsed is None:
            return []  # the pot and the deck hold no decisions
        seat, kind = parsed
        state = self.session.state
        if seat >= len(state.seats):
            return self._query(change, f"something changed in {change.zone}, but there is no seat {seat}")
        if state.phase in (Phase.WAITING, Phase.COMPLETE, Phase.FINISHED):
            more = change.after.card_count > change.before.card_count
            if kind == "cards" and more and state.phase is not Phase.FINISHED:
                return [DealerQuery(change.frame, "table", _dealt_early(state.hand_number + 1))]
            return []  # cards and chips being gathered between hands
        if kind == "cards":
            renamed = [(new, old) for new, old in change.after.renamed if new not in change.before.face_up]
            if not renamed:
                return self._on_cards(seat, change)
            # a card named apart from another zone's: the camera read another name there
            self._confirm = "; ".join(
                f"{new} read as {old}, which another place at the table holds: is it {new}?"
                for new, old in renamed
            )
            try:
                return self._on_cards(seat, change)
            finally:
                self._confirm = None
        if kind == "bet" and self.read_bets:
            return self._on_chips(seat, change)
        return []

    def _on_cards(self, seat: int, change: ZoneChange) -> list[Outcome]:
        before, after = change.before, change.after
        name = self.session.state.seats[seat].name
        new_up = after.in_layout_order(_added(before.face_up, after.face_up))
        still_seen = [card for card, _ in after.unsure]  # read unsurely now, but there
        lost_up = [c for c in _added(after.face_up, before.face_up) if c not in still_seen]
        pushed_away = after.card_count == 0 and not still_seen and before.card_count > 0
        turned_over = bool(before.face_up) and not after.face_up and not still_seen and after.face_down > 0
        if pushed_away or turned_over:
            how = "pushed away" if pushed_away else "turned face down"
            return self._try([Folded(seat)], change.frame, change.zone, f"{name}'s cards were {how}: ")
        down_delta = after.face_down - before.face_down
        if down_delta == 0:
            # a card the game already has face up (or shown) here is no arrival: the
            # dealer confirmed it before the camera read it surely
            held = self.session.state.seats[seat]
            settled = {h.card for h in held.cards if h.card is not None and (h.face_up or held.shown)}
            new_up = [c for c in new_up if c not in settled]
        if lost_up:
            shown = ", ".join(str(c) for c in lost_up)
            return self._query(
                change, f"{shown} disappeared from {name}'s cards: a misread, or a card taken back?"
            )
        if not new_up and down_delta == 0:
            return []
        if down_delta < 0 and len(new_up) == -down_delta:
            events = self._turn_up_events(seat, new_up)
            if events is None:
                phase = self.session.state.phase.value
                return self._query(change, f"{name} turned up {', '.join(map(str, new_up))} during {phase}")
            return self._try(events, change.frame, change.zone)
        if down_delta < 0:
            return self._turned_up_unread(seat, change, new_up, -down_delta)
        arrivals: list[Card | None] = [*new_up, *([None] * down_delta)]
        return self._on_arrivals(seat, arrivals, change)

    def _turn_up_events(self, seat: int, cards: list[Card]) -> list[Event] | None:
        """What turning ``cards`` face up means now, or None when it means nothing."""
        phase = self.session.state.phase
        if phase is Phase.EXPOSING:
            return [CardExposed(seat, c) for c in cards]
        if phase in (Phase.SHOWDOWN, Phase.DECLARING):
            return [HandShown(seat, tuple(self._shown_cards(seat, cards)))]
        if self.session.rules.bust:
            return [BustShown(seat, tuple(cards))]
        return None

    def _turned_up_unread(
        self, seat: int, change: ZoneChange, new_up: list[Card], gone: int
    ) -> list[Outcome]:
        """Backs went but fewer cards were read face up: ask, offering any unsure reads
        (and, where they make up the difference, the events they would mean)."""
        name = self.session.state.seats[seat].name
        seen = f"only {', '.join(map(str, new_up))}" if new_up else "nothing"
        message = f"{name} has {gone} face-down card(s) fewer but {seen} new face up"
        guesses = [
            (card, p)
            for card, p in change.after.unsure
            if card not in change.before.face_up and card not in new_up
        ][: gone - len(new_up)]
        if not guesses:
            return self._query(change, message)
        message += "; read unsurely: " + ", ".join(f"{card} ({p:.0%})" for card, p in guesses)
        proposed: tuple[Event, ...] = ()
        if len(new_up) + len(guesses) == gone:
            proposed = tuple(self._turn_up_events(seat, [*new_up, *(card for card, _ in guesses)]) or ())
        return self._query(change, message, proposed)

    def _shown_cards(self, seat: int, new_up: list[Card]) -> list[Card]:
        """At the showdown the engine wants all hidden cards: known ones plus those turned up."""
        held = self.session.state.seats[seat].cards
        known_hidden = [h.card for h in held if not h.face_up and h.card is not None]
        return [*known_hidden, *[c for c in new_up if c not in known_hidden]]

    def _on_arrivals(self, seat: int, arrivals: list[Card | None], change: ZoneChange) -> list[Outcome]:
        session = self.session
        decision = session.decision
        name = session.state.seats[seat].name
        if decision is None:
            return self._query(change, f"a card came to {name}, but the game is over")
        if decision.kind is DecisionKind.DEAL:
            up = [c for c in arrivals if c is not None]
            faces = self._deal_faces(seat, len(arrivals))  # the deal's order: which face first
            if faces.count(True) != len(up):
                return self._query(
                    change,
                    f"{name} should get {faces.count(True)} face-up and {faces.count(False)} face-down"
                    f" card(s) now, but the camera sees {len(up)} face up"
                    f" and {len(arrivals) - len(up)} face down",
                )
            events: list[Event] = [CardDealt(seat, up.pop(0) if face_up else None) for face_up in faces]
            return self._try(events, change.frame, change.zone, f"dealing to {name}: ")
        if decision.kind is DecisionKind.DRAW:
            events = []
            if decision.seat != seat and not session.state.seats[seat].frozen:
                skipped = self._skipped_drawers(seat)
                if skipped is None or not self.infer_refusals:
                    return self._query(
                        change,
                        f"a card came to {name}, but it is {self._name(decision.seat)}'s draw",
                        tuple(CardTaken(seat, c) for c in arrivals),
                    )
                events.extend(CardRefused(s) for s in skipped)
            events.extend(CardTaken(seat, c) for c in arrivals)
            return self._try(events, change.frame, change.zone, f"a card to {name}: ")
        return self._query(
            change,
            f"a card came to {name} while it is {self._name(decision.seat)}'s {decision.kind.value} decision",
            tuple(CardTaken(seat, c) for c in arrivals),
        )

    def _deal_faces(self, seat: int, count: int) -> list[bool]:
        state = self.session.state
        faces = [face for s, face in zip(state.queue, state.deal_faces, strict=False) if s == seat]
        return faces[:count] + [False] * max(0, count - len(faces))

    def _skipped_drawers(self, seat: int) -> list[int] | None:
        """The seats asked before ``seat`` in this draw round (they refused), or None."""
        state = self.session.state
        if state.phase is not Phase.DRAWING or seat not in state.queue:
            return None
        return state.queue[: state.queue.index(seat)]

    def _name(self, seat: int | None) -> str:
        return "nobody" if seat is None else self.session.state.seats[seat].name

    def _on_chips(self, seat: int, change: ZoneChange) -> list[Outcome]:
        before, after = change.before.chips, change.after.chips
        name = self.session.state.seats[seat].name
        decision = self.session.decision
        if after is None or before is None:
            return self._query(change, f"chips moved in front of {name}: how many?")
        added = after - before
        if added <= 0:
            return []  # chips gathered into the pot
        if (
            decision is None
            or decision.seat != seat
            or decision.kind not in (DecisionKind.BET, DecisionKind.MATCH)
        ):
            return self._query(change, f"{name} put in {added} chips, but it is not their turn to bet")
        event: Event
        stack = self.session.state.seats[seat].stack
        if decision.to_call and added == min(decision.to_call, stack):
            event = Called(seat)
        elif decision.kind is DecisionKind.BET and decision.to_call and added > decision.to_call:
            event = Raised(seat, added - decision.to_call)
        elif decision.kind is DecisionKind.BET and not decision.to_call:
            event = BetMade(seat, added)
        else:
            return self._query(
                change, f"{name} put in {added} chips, but {decision.to_call} are needed to call"
            )
        return self._try([event], change.frame, change.zone, f"{name}'s chips: ")

    def _check_duplicates(self, table: dict[str, ZoneRead], frame: int) -> list[Outcome]:
        seen: dict[Card, str] = {}
        queries: list[Outcome] = []
        for zone, read in sorted(table.items()):
            for card in read.face_up:
                if card in seen:
                    queries.append(DealerQuery(frame, zone, f"{card} is seen in {seen[card]} and in {zone}"))
                else:
                    seen[card] = zone
        return queries
