"""Engine glue: seat lights follow the game; the shuffler's deals become engine events.

Neither ever blocks or corrupts the game: lights are pushed from a worker thread (the
newest state wins), and a deal is recorded in the engine only if the shuffler really
dealt the card and the game still expects exactly that card.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assistant.devices.link import DeviceError
from assistant.devices.protocol import SeatLight
from assistant.devices.shuffler import Shuffler
from assistant.engine import (
    Decision,
    DecisionKind,
    Event,
    IllegalActionError,
    Phase,
    Session,
    TableState,
    parse_card,
)


def seat_lights(state: TableState, lost: bool = False) -> list[SeatLight]:
    """The light for each seat: whose decision it is, refusals, frozen, folded, winners.

    ``lost`` (the camera lost track of the table) turns every light to LOST.
    """
    if lost:
        return [SeatLight.LOST] * len(state.seats)
    decision = state.decision
    turn = decision.seat if decision is not None else None
    between_hands = state.phase in (Phase.WAITING, Phase.COMPLETE, Phase.FINISHED)
    winners = set()
    if state.phase is Phase.COMPLETE and state.result is not None:
        winners = {seat for seat, chips in state.result.awards.items() if chips > 0}
    freezes = state.rules.freeze_after > 0
    lights: list[SeatLight] = []
    for seat in state.seats:
        if seat.seat in winners:
            light = SeatLight.WINNER
        elif seat.out or (not between_hands and not seat.in_hand):
            light = SeatLight.OFF
        elif between_hands:
            light = SeatLight.WAITING
        elif seat.folded:
            light = SeatLight.FOLDED
        elif seat.seat == turn:
            light = SeatLight.TURN
        elif seat.frozen:
            light = SeatLight.FROZEN
        elif freezes and (seat.refusals_in_a_row if state.rules.freeze_consecutive else seat.refusals):
            light = SeatLight.REFUSED
        else:
            light = SeatLight.WAITING
        lights.append(light)
    return lights


class TableLights:
    """Keeps seat lights in step with a session through ``show`` (e.g. a DeviceManager's
    ``show_lights``). Device I/O runs on a worker thread: the game never waits on it."""

    def __init__(self, session: Session, show: Callable[[Sequence[SeatLight]], object]) -> None:
        self._show = show
        self._lost = False
        self._state = session.state
        self._pending: list[SeatLight] | None = seat_lights(self._state)
        self._wake = threading.Condition()
        self._closed = False
        self.shown: list[SeatLight] | None = None
        self._unsubscribe = session.subscribe(self._on_change)
        self._worker = threading.Thread(target=self._run, name="table-lights", daemon=True)
        self._worker.start()

    def set_lost(self, lost: bool) -> None:
        """The assistant lost (or regained) track of the game."""
        self._lost = lost
        self._queue(seat_lights(self._state, lost))

    def refresh(self) -> None:
        """Send the current lights again (after a reconnect, say)."""
        self._queue(seat_lights(self._state, self._lost))

    def close(self) -> None:
        self._unsubscribe()
        with self._wake:
            self._closed = True
            self._wake.notify()
        self._worker.join(timeout=5)

    def _on_change(self, _event: Event | None, state: TableState) -> None:
        self._state = state
        self._queue(seat_lights(state, self._lost))

    def _queue(self, lights: list[SeatLight]) -> None:
        with self._wake:
            self._pending = lights
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._pending is None and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                lights = self._pending
                self._pending = None
                if lights is None:
                    continue
            try:
                self._show(lights)
                self.shown = lights
            except (DeviceError, ValueError):
                continue  # the device's trouble is reported by its manager


@dataclass(frozen=True, slots=True)
class DealReport:
    """What happened when the shuffler was asked for the next card."""

    recorded: bool  # an engine event was applied
    seat: int | None
    card: str | None  # as read by the shuffler (face-down cards included)
    message: str  # for the dealer


class ShufflerDealer:
    """Deals the card the game asks for next with the shuffler and records it: at a DEAL
    decision the next card of the deal, at a DRAW decision the card the player takes.

    ``deal_next`` blocks for the shuffler's motor time; call it where the session is used.
    Face-down cards go into the engine as unknown cards unless ``record_down_cards``.
    """

    def __init__(
        self,
        session: Session,
        shuffler: Callable[[], Shuffler | None],
        record_down_cards: bool = False,
    ) -> None:
        self.session = session
        self._shuffler = shuffler
        self.record_down_cards = record_down_cards

    def deal_next(self) -> DealReport:
        decision = self.session.decision
        if decision is None or decision.kind not in (DecisionKind.DEAL, DecisionKind.DRAW):
            return DealReport(False, None, None, "the game is not waiting for a card")
        if decision.seat is None:
            return DealReport(False, None, None, "the game is not waiting for a card")
        shuffler = self._shuffler()
        if shuffler is None:
            return DealReport(False, decision.seat, None, "no shuffler connected: deal by hand")
        try:
            dealt = shuffler.deal(decision.seat, decision.face_up)
        except DeviceError as error:
            return DealReport(False, decision.seat, None, f"shuffler: {error}; nothing dealt")
        return self._record(decision, dealt.card)

    def _record(self, decision: Decision, read: str | None) -> DealReport:
        seat = decision.seat
        assert seat is not None
        now = self.session.decision
        if now != decision:
            return DealReport(False, seat, read, f"card dealt to seat {seat} but the game moved on: check it")
        known = decision.face_up or self.record_down_cards
        try:
            card = parse_card(read) if known and read is not None else None
            if decision.kind is DecisionKind.DEAL:
                self.session.deal(seat, card)
            else:
                self.session.take(seat, card)
        except (IllegalActionError, ValueError) as error:
            return DealReport(False, seat, read, f"card dealt to seat {seat} not recorded: {error}")
        shown = read if known and read else "a card"
        return DealReport(True, seat, read, f"dealt {shown} to seat {seat}")
