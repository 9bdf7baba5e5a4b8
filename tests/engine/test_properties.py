"""Properties over random legal sessions: chips are conserved, replay and undo are exact."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.engine import PRESETS, Session, Stakes
from assistant.engine.autoplay import play_session
from assistant.engine.history import events_from_list, events_to_list

rules_strategy = st.builds(
    lambda rules, bust, freeze, faces: rules.with_options(
        bust=bust or rules.bust,
        freeze_after=freeze or rules.freeze_after,
        faces=faces or rules.faces.value,
    ),
    st.sampled_from(PRESETS),
    st.booleans(),
    st.integers(0, 3),
    st.sampled_from([None, "half", "half-or-ten"]),
)
session_strategy = st.builds(
    lambda rules, seed, players, stack, ante: play_session(
        rules,
        Stakes(ante=ante, min_bet=1, max_bet=5, max_raises=3),
        [(f"P{i}", stack) for i in range(players)],
        hands=3,
        seed=seed,
    ),
    rules_strategy,
    st.integers(0, 2**31),
    st.integers(2, 10),
    st.integers(3, 40),
    st.integers(0, 2),
)
settings.register_profile(
    "engine", deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("engine")


def snapshot(session: Session) -> tuple[object, ...]:
    state = session.state
    return (
        state.phase,
        state.dealer,
        state.pot,
        tuple(
            (s.stack, s.bet, s.committed, tuple(s.cards), s.folded, s.frozen, s.refusals, s.declaration)
            for s in state.seats
        ),
        None if state.result is None else state.result.awards,
        session.decision,
    )


@given(session_strategy)
def test_chips_are_conserved_in_every_random_legal_session(session: Session) -> None:
    state = session.state
    assert sum(s.stack for s in state.seats) + state.pot == state.total_chips
    assert all(s.stack >= 0 for s in state.seats)


@given(session_strategy)
def test_a_session_rebuilt_from_its_saved_events_is_identical(session: Session) -> None:
    rebuilt = Session(events_from_list(events_to_list(session.events)))
    assert snapshot(rebuilt) == snapshot(session)


@given(session_strategy, st.integers(1, 30))
def test_undo_then_redo_returns_to_the_same_state(session: Session, steps: int) -> None:
    steps = min(steps, len(session.events) - 1)
    before = snapshot(session)
    removed = session.undo(steps)
    for event in removed:
        session.apply(event)
    assert snapshot(session) == before


@given(session_strategy)
def test_every_event_round_trips_through_its_action_form(session: Session) -> None:
    from assistant.engine.actions import action_to_event, event_to_action

    for event in session.events[1:]:
        assert action_to_event(event_to_action(event)) == event
