"""What the dashboard shows, computed from the engine's state (no Qt)."""

from __future__ import annotations

import doctest
import time

import pytest

import assistant.dashboard.dialogs
import assistant.dashboard.history_text
from assistant.dashboard.controller import DealerController
from assistant.dashboard.history_text import hand_history
from assistant.dashboard.presenter import present
from assistant.dashboard.table_widgets import card_label, tokens
from assistant.engine import Session, Stakes
from assistant.engine.autoplay import play_session
from assistant.engine.events import HandStarted
from assistant.engine.rules import preset
from assistant.engine.state import fold_events
from tests.dashboard.conftest import new_session
from tests.dashboard.test_controller import dealt, press

SHOWDOWN_KEYS = (
    " "
    + "    "
    + "6cKd9h3s"
    + "C2BCCC"
    + " N  "
    + "CCCC"
    + "NNN "
    + "CCCC"
    + "NN"
    + " N"
    + "CCCC"
    + "NNN"
    + "CCBFCC"
    + "LOH"
    + "AhQs5d8c7d2h"
)


def test_the_seat_on_turn_and_the_amount_to_call_are_shown(session: Session) -> None:
    controller = dealt(session)
    press(controller, "C2B")
    view = present(session.state)
    assert view.decision == "Dan: 2 to call — call, raise or fold"
    assert [s.on_turn for s in view.seats] == [False, False, False, True]
    assert view.pot == 4 + 2 and view.to_call == 2 and view.raises_left == "3 of 3"
    carla = view.seats[2]
    assert (carla.stack, carla.bet, carla.committed, carla.up_cards, carla.down_cards) == (
        47,
        2,
        3,
        ("Kd",),
        ("?",),
    )
    assert carla.values == "low ½ · high ½ + ?"
    assert carla.freeze == "refusals 0 of 3"
    assert carla.advice.startswith("next card improves low ")
    assert view.seats[0].dealer and not view.seats[1].dealer


def test_a_frozen_seat_shows_its_tokens_and_gets_no_drawing_advice(session: Session) -> None:
    controller = dealt(session)
    press(controller, "CCCC" + " N  " + "CCCC" + "NNN " + "CCCC" + "NN")
    carla = present(session.state).seats[2]
    assert carla.status == "FROZEN" and carla.freeze == "refusals 3 of 3"
    assert carla.advice == ""
    assert tokens(carla.freeze) == "●●●  refusals 3 of 3"
    assert tokens("refusals 1 of 2 in a row") == "●○  refusals 1 of 2 in a row"


def test_declaration_time_shows_each_seats_chance_of_winning_each_half(session: Session) -> None:
    controller = DealerController(session)
    press(controller, SHOWDOWN_KEYS.split("LOH")[0])
    view = present(session.state)
    assert session.state.phase.value == "declaring"
    live = [s for s in view.seats if s.live]
    assert all(s.advice.startswith("wins low ") for s in live)
    assert "wins low" not in view.seats[0].advice  # Anna folded


def test_the_scored_showdown_shows_halves_odd_chip_elimination_and_payments(session: Session) -> None:
    controller = DealerController(session)
    press(controller, SHOWDOWN_KEYS)
    view = present(session.state)
    assert view.showdown is not None
    lines = "\n".join(view.showdown.lines)
    assert "Carla declared both" in lines
    assert view.showdown.low_half == "low half 7 → Ben" and view.showdown.high_half == "high half 8 → Dan"
    assert "the odd chip between the halves goes to the high half" in lines
    assert "eliminated ('both' lost a half): Carla" in lines
    assert dict(view.showdown.awards) == {"Ben": 7, "Carla": 0, "Dan": 8}
    statuses = {s.name: s.status for s in view.seats}
    assert statuses == {"Anna": "folded", "Ben": "wins low", "Carla": "eliminated", "Dan": "wins high"}
    assert view.pot == 15
    assert view.seats[1].values == "low 7½ · high 17½"  # shown hands are valued whole


def test_an_uncontested_pot_is_described() -> None:
    session = new_session("seven-twenty-seven", players=2)
    controller = DealerController(session)
    press(controller, " " + "6c9h  " + "2BF")
    view = present(session.state)
    assert view.showdown is not None
    assert view.showdown.lines == ("Ben takes 4 uncontested: everyone else folded",)


def test_card_labels_use_suit_symbols() -> None:
    assert card_label("Th") == "10♥" and card_label("As") == "A♠" and card_label("?") == "?"


def test_hand_history_lists_every_hand_with_its_result() -> None:
    session = play_session(
        preset("online"), Stakes(), [("Anna", 30), ("Ben", 30), ("Carla", 30)], hands=4, seed=3
    )
    text = hand_history(session.events)
    hands = sum(isinstance(e, HandStarted) for e in session.events)
    assert text.count("\nHand ") == hands
    assert text.count("  stacks: ") == hands
    last = text.strip().splitlines()[-1]
    assert last == "  stacks: " + ", ".join(f"{s.name} {s.stack}" for s in session.state.seats)


def test_hand_history_of_the_showdown_names_the_winners(session: Session) -> None:
    press(DealerController(session), SHOWDOWN_KEYS)
    text = hand_history(session.events)
    assert "Carla refuses a card and is frozen" in text
    assert "  showdown: low Ben; high Dan" in text
    assert "  eliminated: Carla" in text
    assert "  pot 15: Ben 7, Dan 8" in text


def test_module_doctests_pass() -> None:
    for module in (assistant.dashboard.history_text, assistant.dashboard.dialogs):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["seven-twenty-seven", "online", "under", "over", "fifteen-thirty-five"])
def test_the_view_is_recomputed_fast_after_every_event_of_whole_sessions(rules: str) -> None:
    """Six players, two hands: the dashboard redraws after every event."""
    players = [(name, 60) for name in ("Anna", "Ben", "Carla", "Dan", "Eve", "Finn")]
    events = play_session(preset(rules), Stakes(), players, hands=2, seed=11).events
    state = fold_events(events[:1])
    slowest = 0.0
    for event in events[1:]:
        state.advance(event)
        start = time.perf_counter()
        present(state)
        slowest = max(slowest, time.perf_counter() - start)
    assert slowest < 1.5  # measured: at most about 0.17 s on a shared 2-core machine
