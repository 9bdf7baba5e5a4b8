"""Seat lights follow the engine; shuffler deals become engine events."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from assistant.devices.link import DeviceLink
from assistant.devices.protocol import SeatLight
from assistant.devices.shuffler import Shuffler
from assistant.devices.sim import LedCore, PtySimulator, ShufflerCore
from assistant.devices.table_glue import ShufflerDealer, TableLights, seat_lights
from assistant.engine import (
    FULL_DECK,
    Card,
    DecisionKind,
    Declaration,
    Phase,
    Session,
    Stakes,
    parse_card,
    preset,
)

from .peers import wait_for

L = SeatLight


def new_session(rules: str = "online-seven-twenty-seven") -> Session:
    players = [("Anna", 100), ("Ben", 100), ("Carla", 100)]
    return Session.new(preset(rules), Stakes(ante=1, min_bet=1, max_bet=5, max_raises=3), players)


def play(session: Session, deck: list[Card], until: Callable[[Session], bool], fold: bool = True) -> None:
    """Seat 0 bets, seat 1 folds to a bet (if ``fold``), seat 2 refuses every card, the
    others take cards up to five; stop as soon as ``until`` holds."""
    for _ in range(300):
        if until(session):
            return
        d = session.decision
        assert d is not None and (d.seat is not None or d.kind is DecisionKind.NEXT_HAND)
        if d.seat is None:  # the next hand: nobody acts
            return
        seat = session.state.seats[d.seat]
        if d.kind is DecisionKind.DEAL:
            session.deal(d.seat, deck.pop())
        elif d.kind is DecisionKind.EXPOSE and seat:
            session.expose(d.seat, next(h.card for h in seat.cards if not h.face_up and h.card))
        elif d.kind is DecisionKind.DRAW and seat:
            if d.seat == 2 or len(seat.cards) >= 5:
                session.refuse(d.seat)
            else:
                session.take(d.seat, deck.pop())
        elif d.kind in (DecisionKind.BET, DecisionKind.MATCH):
            if fold and d.seat == 1 and d.to_call:
                session.fold(d.seat)
            elif d.seat == 0 and d.can_bet:
                session.bet(d.seat, d.min_bet)
            elif d.can_check:
                session.check(d.seat)
            else:
                session.call(d.seat)
        elif d.kind is DecisionKind.DECLARE:
            session.declare(d.seat, Declaration.HIGH)
        elif d.kind is DecisionKind.SHOW and seat:
            session.show(d.seat, [h.card for h in seat.cards if not h.face_up and h.card])
        else:
            return
    raise AssertionError("the hand did not get there")


@pytest.fixture
def deck() -> list[Card]:
    cards = list(FULL_DECK)
    random.Random(4).shuffle(cards)
    return cards


def test_lights_show_turn_refusal_freeze_fold_and_winner(deck: list[Card]) -> None:
    session = new_session()
    assert seat_lights(session.state) == [L.WAITING] * 3
    session.start_hand()
    first = session.decision
    assert first is not None and first.kind is DecisionKind.DEAL
    assert seat_lights(session.state)[first.seat or 0] is L.TURN

    def after_seat_2(count: int) -> Callable[[Session], bool]:
        def check(s: Session) -> bool:
            decision = s.decision
            return s.state.seats[2].refusals == count and decision is not None and decision.seat != 2

        return check

    play(session, deck, after_seat_2(1), fold=False)
    assert seat_lights(session.state)[2] is L.REFUSED
    play(session, deck, after_seat_2(3), fold=False)
    assert session.state.seats[2].frozen
    assert seat_lights(session.state)[2] is L.FROZEN
    play(session, deck, lambda s: s.state.seats[1].folded)
    assert seat_lights(session.state)[1] is L.FOLDED
    play(session, deck, lambda s: s.state.phase is Phase.COMPLETE)
    result = session.state.result
    assert result is not None
    lights = seat_lights(session.state)
    for seat, chips in result.awards.items():
        assert (lights[seat] is L.WINNER) == (chips > 0)
    assert seat_lights(session.state, lost=True) == [L.LOST] * 3


def test_lights_controller_follows_session_events_and_undo() -> None:
    core = LedCore("61E00001")
    with PtySimulator(core) as simulator:
        link = DeviceLink.open(simulator.path)
        from assistant.devices.led import LedController

        controller = LedController(link)
        session = new_session()
        lights = TableLights(session, controller.show)
        try:
            session.start_hand()
            expected = seat_lights(session.state)
            assert wait_for(lambda: core.shown()[:3] == expected, 2.0)
            lights.set_lost(True)
            assert wait_for(lambda: core.shown()[:3] == [L.LOST] * 3, 2.0)
            lights.set_lost(False)
            session.undo()
            assert wait_for(lambda: core.shown()[:3] == [L.WAITING] * 3, 2.0)
        finally:
            lights.close()
            link.close()


def test_a_broken_light_device_never_blocks_or_breaks_the_game(deck: list[Card]) -> None:
    calls: list[list[SeatLight]] = []

    def failing_show(lights: object) -> None:
        from assistant.devices.link import DeviceGone

        calls.append(list(lights))  # type: ignore[call-overload]
        raise DeviceGone("unplugged")

    session = new_session()
    lights = TableLights(session, failing_show)
    try:
        session.start_hand()
        play(session, deck, lambda s: s.state.phase is Phase.COMPLETE)
        assert wait_for(lambda: len(calls) >= 1, 2.0)
    finally:
        lights.close()


def test_shuffler_deals_become_engine_deal_events_with_face_up_cards_known() -> None:
    core = ShufflerCore("DEA10001", deal_s=0.005, shuffle_s=0.01, seed=9)
    with PtySimulator(core) as simulator:
        link = DeviceLink.open(simulator.path)
        try:
            shuffler = Shuffler(link)
            shuffler.shuffle()
            session = new_session()
            dealer = ShufflerDealer(session, lambda: shuffler)
            idle = dealer.deal_next()  # no hand yet: nothing to deal, nothing dealt
            assert not idle.recorded and "not waiting" in idle.message and not core.dealt
            session.start_hand()
            reports = []
            while session.decision and session.decision.kind is DecisionKind.DEAL:
                reports.append(dealer.deal_next())
            assert reports and all(report.recorded for report in reports)
            assert len(core.dealt) == len(reports)
            for seat_number, face_up, card in core.dealt:
                seat = session.state.seats[seat_number]
                if face_up:
                    assert parse_card(card) in seat.up_cards
            assert sum(s.down_count for s in session.state.seats) == sum(
                not face_up for _, face_up, _ in core.dealt
            )
        finally:
            link.close()


def test_jammed_or_missing_shuffler_leaves_the_game_unchanged() -> None:
    core = ShufflerCore("DEA10002", deal_s=0.005, shuffle_s=0.01, seed=9)
    with PtySimulator(core) as simulator:
        link = DeviceLink.open(simulator.path)
        try:
            shuffler = Shuffler(link)
            shuffler.shuffle()
            session = new_session()
            session.start_hand()
            before = session.events
            core.jam_next = True
            report = ShufflerDealer(session, lambda: shuffler).deal_next()
            assert not report.recorded and "JAM" in report.message
            assert session.events == before
            missing = ShufflerDealer(session, lambda: None).deal_next()
            assert not missing.recorded and "no shuffler" in missing.message
            assert session.events == before
        finally:
            link.close()
