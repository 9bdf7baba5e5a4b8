"""The real window, offscreen: keys and clicks -> engine -> views, for a whole hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from assistant.dashboard.main_window import DashboardWindow
from assistant.engine import Card, Phase, Rank, Session, Suit, parse_card
from assistant.store import SessionStore
from tests.dashboard.conftest import new_session
from tests.dashboard.test_presenter import SHOWDOWN_KEYS


def up_cards(session: Session, seat: int) -> tuple[Card, ...]:
    """``seat``'s face-up cards now."""
    return session.state.seats[seat].up_cards


def type_keys(qtbot: Any, window: DashboardWindow, keys: str) -> None:
    for key in keys:
        if key == " ":
            qtbot.keyClick(window, Qt.Key.Key_Space)
        else:
            qtbot.keyClicks(window, key)


def visible_buttons(window: DashboardWindow) -> set[str]:
    return {key for key, button in window.buttons.items() if button.isVisibleTo(window)}


def test_a_whole_hand_is_dealt_by_keyboard_through_the_window(qtbot: Any, window: DashboardWindow) -> None:
    session = window.session
    assert window.banner.text() == "Start the first deal"
    type_keys(qtbot, window, SHOWDOWN_KEYS[:13])  # deal: four unseen, four face up
    assert window.banner.text() == "Ben: check or bet 1-5"
    assert visible_buttons(window) >= {"check", "bet", "undo", "correct"}
    assert "fold" not in visible_buttons(window)  # nothing to call
    ben = window.table.seat_widgets[1]
    assert "6♣" in ben.cards.text() and "?" in ben.cards.text()
    type_keys(qtbot, window, "C2BC")
    assert window.banner.text() == "Anna: 2 to call — call, raise or fold"
    assert window.buttons["check"].text() == "Call 2 (C)"
    assert window.table.center.pot.text() == "POT 8"
    type_keys(qtbot, window, SHOWDOWN_KEYS[17:])
    assert session.state.phase is Phase.COMPLETE
    assert window.banner.text() == "Start the next deal"
    panel = window.panel.toPlainText()
    assert "low half 7 → Ben" in panel and "eliminated ('both' lost a half): Carla" in panel
    assert "<b>Ben</b> — WINS LOW" in window.table.seat_widgets[1].name.text()
    assert [s.stack for s in session.state.seats] == [47, 53, 46, 54]
    type_keys(qtbot, window, " ")
    assert session.state.hand_number == 2 and "Ben" in window.table.seat_widgets[1].name.text()
    assert "DEALER" in window.table.seat_widgets[1].name.text()  # the deal moved left


def test_an_illegal_key_shows_the_engines_message_in_red_and_changes_nothing(
    qtbot: Any, window: DashboardWindow
) -> None:
    type_keys(qtbot, window, SHOWDOWN_KEYS[:13])
    before = window.session.events
    type_keys(qtbot, window, "R")
    assert window.session.events == before
    assert window.message.text() == "there is no bet to raise: bet instead"
    assert "#ff5c5c" in window.message.styleSheet()


def test_clicks_drive_the_same_actions(qtbot: Any, window: DashboardWindow) -> None:
    session = window.session
    qtbot.mouseClick(window.buttons["next"], Qt.MouseButton.LeftButton)
    assert session.state.phase is Phase.DEALING
    for _ in range(4):
        qtbot.mouseClick(window.buttons["face_down"], Qt.MouseButton.LeftButton)
    assert window.picker.isVisibleTo(window)
    seven_of_hearts = window.picker.buttons[Card(Rank.SEVEN, Suit.HEARTS)]
    qtbot.mouseClick(seven_of_hearts, Qt.MouseButton.LeftButton)
    assert up_cards(session, 1) == (parse_card("7h"),)
    assert not seven_of_hearts.isEnabled()  # a card in play cannot be picked again
    qtbot.mouseClick(window.buttons["undo"], Qt.MouseButton.LeftButton)
    assert up_cards(session, 1) == ()
    assert seven_of_hearts.isEnabled()


def test_f1_shows_the_keys_over_the_window(qtbot: Any, window: DashboardWindow) -> None:
    assert not window.help.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_F1)
    assert window.help.isVisible()
    assert "refuses the card" in window.help.text() and "Ctrl+Z" in window.help.text()
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert not window.help.isVisible()


def test_the_session_is_saved_as_it_goes_and_resumes(qtbot: Any, tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    session = new_session()
    store = SessionStore(path)
    store.attach(session, store.create(session, "friday"))
    window = DashboardWindow(session)
    qtbot.addWidget(window)
    type_keys(qtbot, window, SHOWDOWN_KEYS[:20] + "U")
    window.close()
    store.close()
    resumed = SessionStore(path).resume()
    assert resumed.events == session.events
    assert resumed.state.seats[3].committed == session.state.seats[3].committed


def test_export_writes_the_hand_history(qtbot: Any, window: DashboardWindow, tmp_path: Path) -> None:
    type_keys(qtbot, window, SHOWDOWN_KEYS)
    target = window.export_history(tmp_path / "history.txt")
    text = target.read_text(encoding="utf-8")
    assert "Hand 1 · online-seven-twenty-seven · dealer Anna" in text
    assert "  pot 15: Ben 7, Dan 8" in text
    assert window.message.text() == f"hand history written to {target}"


def test_a_correction_goes_through_the_engine(qtbot: Any, window: DashboardWindow) -> None:
    type_keys(qtbot, window, SHOWDOWN_KEYS[:13])
    window.controller.correct(1, 1, "Kd")  # Carla holds Kd
    assert window.message.text() == "Kd is already on the table"
    window.controller.correct(1, 0, "2s")  # Ben's unseen face-down card, now seen
    assert window.session.state.seats[1].known_cards == (parse_card("2s"), parse_card("6c"))
    assert "2♠" in window.table.seat_widgets[1].cards.text()


def test_a_bust_is_shown_through_the_engine(qtbot: Any) -> None:
    window = DashboardWindow(new_session("under-seven-twenty-seven", players=3))
    qtbot.addWidget(window)
    type_keys(qtbot, window, " " + "   ")  # one unseen face-down card each
    assert "bust" in visible_buttons(window)
    window.controller.show_bust(1, ["5c"])
    assert window.message.text() == "seat 1 (Ben) is not over 27"
    assert not window.session.state.seats[1].folded


def test_e_opens_the_correction_dialog_and_the_card_is_entered_by_hand(
    qtbot: Any, window: DashboardWindow
) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from assistant.dashboard.dialogs import CardDialog

    type_keys(qtbot, window, SHOWDOWN_KEYS[:13])

    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, CardDialog)
        dialog.seat.setCurrentIndex(2)  # Carla
        dialog.index.setCurrentIndex(0)  # her unseen face-down card
        dialog.text.setText("qh")
        dialog.accept()

    QTimer.singleShot(100, fill)
    type_keys(qtbot, window, "E")
    assert window.session.state.seats[2].known_cards == (parse_card("Qh"), parse_card("Kd"))
    assert window.message.text() == "Carla's card 1 is now Qh"


def test_a_bet_of_any_amount_can_be_made_by_clicks(qtbot: Any, window: DashboardWindow) -> None:
    type_keys(qtbot, window, SHOWDOWN_KEYS[:13])
    shown = visible_buttons(window)
    assert {f"amount{n}" for n in range(1, 6)} <= shown and "amount6" not in shown  # limits 1-5
    qtbot.mouseClick(window.buttons["amount4"], Qt.MouseButton.LeftButton)
    assert window.buttons["bet"].text() == "Bet 4 (B)" and window.buttons["amount4"].isChecked()
    qtbot.mouseClick(window.buttons["bet"], Qt.MouseButton.LeftButton)
    assert window.session.state.seats[1].bet == 4
    assert window.buttons["check"].text() == "Call 4 (C)"  # Carla now
