"""The dealer's keys and actions (no Qt): every one goes through the Session."""

from __future__ import annotations

from assistant.dashboard.controller import DealerController
from assistant.engine import DecisionKind, Phase, Session, parse_card
from tests.dashboard.conftest import new_session
from tests.helpers import phase_of


def press(controller: DealerController, keys: str) -> None:
    for key in keys:
        controller.key(key)


def dealt(session: Session) -> DealerController:
    """Online 7/27, four players, the deal done: Ben has the first bet."""
    controller = DealerController(session)
    press(controller, " " + "    " + "6cKd9h3s")
    return controller


def test_typing_a_card_deals_it_to_the_seat_on_turn(session: Session) -> None:
    controller = DealerController(session)
    press(controller, " ")  # the first deal
    press(controller, " ")  # Ben's face-down card, unseen
    assert session.state.seats[1].unknown_count == 1
    press(controller, "   ")
    press(controller, "10h")  # Ben's face-up card: rank then suit
    assert session.state.seats[1].up_cards == (parse_card("Th"),)
    assert controller.message == "Ben is dealt Th"


def test_an_illegal_action_is_refused_with_the_engines_message_and_changes_nothing(session: Session) -> None:
    controller = dealt(session)
    before = session.events
    outcome = controller.key("F")  # Ben has nothing to call: folding is allowed, raising is not
    assert outcome is not None and outcome.ok
    outcome = controller.key("R")  # Carla: there is no bet to raise
    assert outcome is not None and not outcome.ok
    assert outcome.text == "there is no bet to raise: bet instead"
    assert session.events == (*before, session.events[-1])


def test_digits_set_the_bet_and_c_calls_it(session: Session) -> None:
    controller = dealt(session)
    press(controller, "C3B")  # Ben checks, Carla bets 3
    assert session.state.seats[2].bet == 3
    decision = session.decision
    assert decision is not None and decision.seat == 3 and decision.to_call == 3
    press(controller, "C")
    assert session.state.seats[3].bet == 3


def test_a_bet_over_the_limit_is_refused(session: Session) -> None:
    controller = dealt(session)
    outcome = controller.bet(9)
    assert not outcome.ok and "1-5 chips" in outcome.text
    assert session.state.seats[1].bet == 0


def test_n_refuses_and_the_third_refusal_freezes(session: Session) -> None:
    controller = dealt(session)
    press(controller, "CCCC")  # everyone checks: the first draw round
    assert session.decision is not None and session.decision.kind is DecisionKind.DRAW
    press(controller, " N  " + "CCCC" + "NN")
    assert session.state.seats[2].refusals == 2 and not session.state.seats[2].frozen
    press(controller, "  " + "CCCC" + "NN")
    assert session.state.seats[2].frozen
    assert controller.message == "Carla refuses: frozen"


def test_u_undoes_the_last_action(session: Session) -> None:
    controller = dealt(session)
    press(controller, "2B")
    assert session.state.seats[1].bet == 2
    press(controller, "U")
    assert session.state.seats[1].bet == 0
    assert controller.message.startswith("undone")


def test_undo_at_the_start_is_refused() -> None:
    controller = DealerController(new_session())
    outcome = controller.undo()
    assert not outcome.ok and "cannot undo" in outcome.text


def test_showdown_cards_are_typed_one_after_another() -> None:
    session = new_session(players=2)
    controller = DealerController(session)
    press(controller, " " + "  " + "6c9h")  # Ben then Anna: one face down, one up
    press(controller, "CC" + "NN")  # checks; nobody draws: the last betting round
    press(controller, "CC")
    assert phase_of(session) is Phase.DECLARING
    press(controller, "LH")
    assert session.decision is not None and session.decision.kind is DecisionKind.SHOW
    press(controller, "Ah")
    assert session.state.seats[1].shown
    press(controller, "9s")
    assert phase_of(session) is Phase.COMPLETE
    assert session.state.result is not None and session.state.result.awards == {0: 1, 1: 1}


def test_a_card_already_on_the_table_is_refused(session: Session) -> None:
    controller = DealerController(session)
    press(controller, " " + "    " + "6c")
    outcome = controller.card_action("6c")
    assert not outcome.ok and outcome.text == "6c is already on the table"


def test_a_misread_card_is_corrected(session: Session) -> None:
    controller = dealt(session)
    assert controller.correct(1, 1, "7c").ok
    assert session.state.seats[1].up_cards == (parse_card("7c"),)
    bad = controller.correct(1, 1, "Zz")
    assert not bad.ok and "unknown card" in bad.text


def test_keys_that_mean_nothing_now_are_ignored(session: Session) -> None:
    controller = DealerController(session)
    assert controller.key("Q") is None  # waiting for the first deal
    assert session.state.hand_number == 0
