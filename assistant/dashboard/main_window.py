"""The dealer's window: the table, whose decision it is, the buttons, keys and camera.

The window observes the session (``Session.subscribe``) and redraws from the engine's
state after every change; every action goes through :class:`DealerController`, so an
illegal one is refused with the engine's message, shown in red.

A camera (:meth:`DashboardWindow.attach_camera`) adds its reads and its questions for the
dealer; the table's USB devices (:meth:`DashboardWindow.attach_devices`) add a panel with
their state and the shuffler's deal (key G). Both are optional: without them, and when
they fail, the dealer enters everything by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QCloseEvent, QKeyEvent, QKeySequence, QResizeEvent, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from assistant.dashboard.camera_view import CameraView, FrameFeed
from assistant.dashboard.controller import KEY_HELP, DealerController
from assistant.dashboard.dialogs import CardDialog
from assistant.dashboard.history_text import hand_history
from assistant.dashboard.presenter import TableView, present
from assistant.dashboard.queries_panel import Answer, QueriesPanel
from assistant.dashboard.table_widgets import CardPicker, TableWidget, card_label
from assistant.engine import Card, DecisionKind, Declaration, Event, Phase, Session, TableState

if TYPE_CHECKING:
    from assistant.dashboard.camera_pipeline import CameraPipeline
    from assistant.dashboard.devices_panel import DevicesPanel
    from assistant.devices.manager import DeviceManager
    from assistant.pipeline.referee import Applied
    from assistant.pipeline.replay import StackCounting, ZoneDetector
    from assistant.vision.calibration import Calibration
    from assistant.vision.sources import FrameSource

BUTTON_STYLE = "QPushButton { font-size:14pt; padding:6px 12px; }"
AMOUNT_BUTTONS = 10  # clickable bet amounts 1-10 (within the table's limits)


def help_html() -> str:
    rows = []
    for group, keys in KEY_HELP:
        rows.append(f'<tr><td colspan="2"><h3>{group}</h3></td></tr>')
        rows.extend(f"<tr><td><b>{key}</b>&nbsp;&nbsp;&nbsp;</td><td>{text}</td></tr>" for key, text in keys)
    return '<h2>Keys (F1, ? or Esc closes this help)</h2><table align="center">' + "".join(rows) + "</table>"


class HelpOverlay(QLabel):
    """The key reference, drawn over the whole window."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setText(help_html())
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setStyleSheet(
            "background: rgba(10, 12, 16, 235); color: #f0f0f0; font-size: 15pt; padding: 30px;"
        )
        self.hide()


class DashboardWindow(QMainWindow):
    def __init__(self, session: Session, title: str = "dealer-assistant") -> None:
        super().__init__()
        self.session = session
        self.controller = DealerController(session)
        self.setWindowTitle(title)
        self.log: list[str] = []
        self.feed: FrameFeed | None = None
        self.pipeline: CameraPipeline | None = None
        self.devices: DevicesPanel | None = None
        self.history_dir = Path.cwd()
        central = QWidget()
        central.setObjectName("central")
        central.setStyleSheet("#central { background:#101418; } QLabel { color:#f2f2f2; }")
        self.setCentralWidget(central)
        outer = QVBoxLayout(central)

        self.banner = QLabel()
        self.banner.setStyleSheet("font-size:24pt; font-weight:bold; color:#ffd21f;")
        self.title = QLabel()
        self.title.setStyleSheet("font-size:13pt; color:#b8c4cf;")
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setMinimumHeight(34)
        self.typed = QLabel()
        self.typed.setStyleSheet("font-size:18pt; color:#7fd4ff;")
        top = QHBoxLayout()
        top.addWidget(self.banner, 1)
        top.addWidget(self.typed)
        outer.addLayout(top)
        outer.addWidget(self.title)

        middle = QHBoxLayout()
        self.table = TableWidget(len(session.state.seats))
        middle.addWidget(self.table, 2)
        side = self.side = QVBoxLayout()
        self.camera = CameraView()
        side.addWidget(self.camera, 2)
        self.queries = QueriesPanel(session, self.correct_dialog)
        self.queries.answered.connect(self._answered)
        self.queries.hide()
        side.addWidget(self.queries)
        self.panel = QPlainTextEdit()
        self.panel.setReadOnly(True)
        self.panel.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.panel.setStyleSheet("font-size:13pt; background:#181d22; color:#f2f2f2;")
        side.addWidget(self.panel, 3)
        middle.addLayout(side, 1)
        outer.addLayout(middle, 1)

        outer.addWidget(self.message)
        self.buttons_row = QHBoxLayout()
        outer.addLayout(self.buttons_row)
        self.picker = CardPicker(self._picked)
        outer.addWidget(self.picker)
        self.keys = QLabel()
        self.keys.setStyleSheet("font-size:12pt; color:#b8c4cf;")
        # long texts wrap rather than widen the window past the screen
        for label in (self.banner, self.title, self.keys):
            label.setWordWrap(True)
            label.setMinimumWidth(0)
        outer.addWidget(self.keys)

        self.buttons: dict[str, QPushButton] = {}
        self.amount_buttons: list[QPushButton] = []
        self._make_buttons()
        self.help = HelpOverlay(central)
        QShortcut(QKeySequence("Ctrl+Z"), self, self.controller.undo)
        QShortcut(QKeySequence("Ctrl+S"), self, self.export_dialog)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._unsubscribe: Callable[[], None] | None = session.subscribe(self._on_event)
        self.controller.listeners.append(self.refresh)
        self.resize(1600, 960)
        self.refresh()

    # ------------------------------------------------------------------ building

    def _button(self, key: str, text: str, slot: Callable[[], object]) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(f"button_{key}")
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.setStyleSheet(BUTTON_STYLE)
        button.clicked.connect(lambda _=False: slot())
        self.buttons_row.addWidget(button)
        self.buttons[key] = button
        return button

    def _make_buttons(self) -> None:
        c = self.controller
        self._button("face_down", "Face down, unseen (Space)", lambda: c.card_action(None))
        self._button("refuse", "Refuse (N)", c.refuse)
        self._button("check", "Check (C)", c.check_or_call)
        for chips in range(1, AMOUNT_BUTTONS + 1):
            button = self._button(f"amount{chips}", str(chips), partial(c.set_amount, chips))
            button.setCheckable(True)
            button.setStyleSheet(
                BUTTON_STYLE + "QPushButton { padding:6px 8px; min-width:28px; }"
                "QPushButton:checked { background:#ffd21f; color:#000; }"
            )
        self._button("bet", "Bet (B)", c.bet)
        self._button("raise", "Raise (R)", c.raise_)
        self._button("fold", "Fold (F)", c.fold)
        self._button("low", "Low (L)", lambda: c.declare(Declaration.LOW))
        self._button("high", "High (H)", lambda: c.declare(Declaration.HIGH))
        self._button("both", "Both (O)", lambda: c.declare(Declaration.BOTH))
        self._button("next", "Next deal (Space)", c.next_hand)
        self.buttons_row.addStretch(1)
        self._button("correct", "Correct card (E)", self.correct_dialog)
        self._button("bust", "Bust (X)", self.bust_dialog)
        self._button("undo", "Undo (U)", c.undo)
        self._button("export", "Export history", self.export_dialog)
        self._button("help", "Keys (F1)", self.toggle_help)

    def _picked(self, card: Card) -> None:
        self.controller.card_action(card)

    # ------------------------------------------------------------------ updating

    def _on_event(self, event: Event | None, state: TableState) -> None:
        self.refresh()

    def refresh(self) -> None:
        state = self.session.state
        view = present(state)
        self.table.show_table(view)
        self.banner.setText(view.decision)
        self.title.setText(f"{view.title} · {view.phase}")
        typed = self.controller.typed
        shown = " ".join(card_label(str(c)) for c in self.controller.show_cards)
        self.typed.setText(" ".join(part for part in (shown, typed) if part))
        if self.controller.message:
            color = "#9be59b" if self.controller.message_ok else "#ff5c5c"
            self.message.setStyleSheet(f"font-size:15pt; color:{color}; font-weight:bold;")
            self.message.setText(self.controller.message)
            if self.controller.message_ok and (not self.log or self.log[-1] != self.controller.message):
                self.log.append(self.controller.message)
                self.log = self.log[-40:]
        self.keys.setText("Keys: " + view.keys + " · E correct · F1 all keys")
        self._show_buttons(view, state)
        self._show_panel(view)

    def _show_buttons(self, view: TableView, state: TableState) -> None:
        decision = self.session.decision
        kind = decision.kind if decision is not None else None
        wanted = {"correct", "undo", "export", "help"}
        if state.rules.bust and not state.hand_done:
            wanted.add("bust")
        if kind is DecisionKind.DEAL and decision is not None and not decision.face_up:
            wanted.add("face_down")
        if kind is DecisionKind.DRAW and decision is not None:
            wanted |= {"refuse"} | ({"face_down"} if not decision.face_up else set())
        if kind in (DecisionKind.BET, DecisionKind.MATCH) and decision is not None:
            wanted |= {"check"}
            if kind is DecisionKind.MATCH or decision.to_call:
                wanted.add("fold")
            if decision.can_bet:
                wanted.add("bet")
            if decision.can_raise:
                wanted.add("raise")
            if kind is DecisionKind.MATCH:
                label = f"Match {decision.to_call} (C)"
            elif decision.to_call:
                label = f"Call {decision.to_call} (C)"
            else:
                label = "Pass (C)" if state.phase is Phase.TURN_BET else "Check (C)"
            self.buttons["check"].setText(label)
            amount = self.controller.amount(decision.min_bet)
            self.buttons["bet"].setText(f"Bet {amount} (B)")
            self.buttons["raise"].setText(f"Raise {amount} (R)")
            if state.phase is Phase.BETTING and (decision.can_bet or decision.can_raise):
                for chips in range(decision.min_bet, min(decision.max_bet, AMOUNT_BUTTONS) + 1):
                    wanted.add(f"amount{chips}")
                    self.buttons[f"amount{chips}"].setChecked(chips == amount)
        if kind is DecisionKind.DECLARE:
            wanted |= {"low", "high", "both"}
        if kind is DecisionKind.NEXT_HAND:
            wanted.add("next")
            self.buttons["next"].setText(
                "First deal (Space)" if state.hand_number == 0 else "Next deal (Space)"
            )
        # hide first: with this decision's buttons shown beside the last one's, the row
        # would be wider than the window for a moment, and the window would grow for good
        for key, button in self.buttons.items():
            if key not in wanted:
                button.hide()
        for key, button in self.buttons.items():
            if key in wanted:
                button.show()
        needs_card = kind in (DecisionKind.DEAL, DecisionKind.DRAW, DecisionKind.EXPOSE, DecisionKind.SHOW)
        self.picker.setVisible(needs_card)
        if needs_card:
            self.picker.set_in_play(state.cards_in_play() | set(self.controller.show_cards))

    def _show_panel(self, view: TableView) -> None:
        if view.showdown is not None:
            lines = ["SHOWDOWN", *view.showdown.lines, "", "Chips paid this hand:"]
            lines += [f"  {name}: {chips}" for name, chips in view.showdown.awards]
        else:
            lines = ["Last actions:", *reversed(self.log[-14:])]
        text = "\n".join(lines)
        if self.panel.toPlainText() != text:
            self.panel.setPlainText(text)

    # ------------------------------------------------------------------ keys and dialogs

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_F1, Qt.Key.Key_Question) or event.text() == "?":
            self.toggle_help()
            return
        if self.help.isVisible() and key == Qt.Key.Key_Escape:
            self.help.hide()
            return
        if key == Qt.Key.Key_Escape:
            self.controller.clear_typing()
            return
        if key == Qt.Key.Key_Backspace:
            self.controller.backspace()
            return
        text = event.text()
        if event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
            super().keyPressEvent(event)
            return
        if text.upper() == "E":
            self.correct_dialog()
            return
        if text.upper() == "X":
            self.bust_dialog()
            return
        if text.upper() == "G" and self.devices is not None:
            self.devices.deal_next()
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            text = "\r"
        if text and self.controller.key(text) is not None:
            return
        super().keyPressEvent(event)

    def rect_of_central(self) -> QRect:
        central = self.centralWidget()
        return central.rect() if central is not None else self.rect()

    def toggle_help(self) -> None:
        self.help.setGeometry(self.rect_of_central())
        self.help.setVisible(not self.help.isVisible())
        self.help.raise_()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        screen = self.screen()
        if screen is not None:  # never grow past the screen when a row of buttons changes
            self.setMaximumSize(screen.availableGeometry().size())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.help.setGeometry(self.rect_of_central())

    def correct_dialog(self) -> bool:
        """Ask for a correction; True when one was applied."""
        dialog = CardDialog(self.session.state, "Correct or enter a card", parent=self)
        if dialog.exec():
            seat, index, text = dialog.selection()
            return self.controller.correct(seat, index, text).ok
        return False

    def bust_dialog(self) -> None:
        dialog = CardDialog(self.session.state, "A player shows a bust", several=True, parent=self)
        if dialog.exec():
            seat, _, text = dialog.selection()
            self.controller.show_bust(seat, list(text.replace(",", " ").split()))

    def export_history(self, path: str | Path) -> Path:
        target = Path(path)
        target.write_text(hand_history(self.session.events), encoding="utf-8")
        self.controller.message, self.controller.message_ok = f"hand history written to {target}", True
        self.refresh()
        return target

    def export_dialog(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self, "Export hand history", str(self.history_dir / "hand-history.txt"), "Text (*.txt)"
        )
        if name:
            try:
                self.export_history(name)
            except OSError as error:
                self.controller.message, self.controller.message_ok = f"cannot write {name}: {error}", False
                self.refresh()

    # ------------------------------------------------------------------ camera

    def attach_feed(self, feed: FrameFeed) -> None:
        if self.feed is not None:
            self.feed.stop()
        self.feed = feed
        feed.start()

    def say(self, ok: bool, text: str) -> None:
        """Show a message from the camera or a device as the controller's own are shown."""
        self.controller.message, self.controller.message_ok = text, ok
        self.refresh()

    def _answered(self, answer: Answer) -> None:
        self.say(answer.ok, answer.text)

    def _camera_applied(self, applied: Applied) -> None:
        from assistant.dashboard.camera_pipeline import describe

        self.log.append(describe(applied))
        self.log = self.log[-40:]
        self.refresh()

    def attach_camera(
        self,
        source: FrameSource,
        calibration: Calibration | None = None,
        detector: ZoneDetector | None = None,
        *,
        note: str = "",
        hold_s: float = 0.1,
        interval_ms: int | None = None,
        watch_bumps: bool = True,
        bump_interval: int = 15,
        retry_s: float = 1.0,
        start: bool = True,
        counter: StackCounting | None = None,
    ) -> CameraPipeline:
        """Show ``source``; with a calibration and a detector, read its frames into the game
        (with a stack counter, chip stacks the camera sees from the side are counted)."""
        from assistant.dashboard.camera_pipeline import CameraPipeline
        from assistant.dashboard.live_table import LiveTable

        if self.pipeline is not None:
            self.pipeline.stop()
        if calibration is not None and len(calibration.layout.seats) != len(self.session.state.seats):
            seats, players = len(calibration.layout.seats), len(self.session.state.seats)
            mismatch = f"the calibration's layout has {seats} seats for {players} players: check the seating"
            note = f"{note}; {mismatch}" if note else mismatch
        if calibration is not None and detector is not None:
            from assistant.vision.sampling import sampling_warning

            coarse = sampling_warning(calibration)
            if coarse:
                note = f"{note}; {coarse}" if note else coarse
        if calibration is None:
            pipeline = CameraPipeline(
                self.camera,
                source,
                self.queries,
                note=note or "no calibration: the camera is shown, not read",
                interval_ms=interval_ms,
                retry_s=retry_s,
            )
        elif detector is None:
            pipeline = CameraPipeline.zones_only(
                self.camera,
                source,
                self.queries,
                calibration,
                note or "no detector: enter cards by hand",
                interval_ms=interval_ms,
                retry_s=retry_s,
            )
        else:
            live = LiveTable(
                self.session,
                calibration,
                detector,
                hold_s=hold_s,
                watch_bumps=watch_bumps,
                bump_interval=bump_interval,
                counter=counter,
            )
            pipeline = CameraPipeline(
                self.camera, source, self.queries, live, note=note, interval_ms=interval_ms, retry_s=retry_s
            )
            self.queries.show()
        self.side.insertWidget(self.side.indexOf(self.camera) + 1, pipeline.bar)
        pipeline.show_alert()
        pipeline.applied.connect(self._camera_applied)
        pipeline.lost.connect(self._camera_lost)
        self.pipeline = pipeline
        if start:
            pipeline.start()
        return pipeline

    def _camera_lost(self, lost: bool) -> None:
        if self.devices is not None:
            self.devices.lights.set_lost(lost)

    def attach_devices(
        self, manager: DeviceManager, ports: list[str] | None = None, search: bool = True
    ) -> DevicesPanel:
        """Show the manager's devices; lights follow the game; G deals from the shuffler.
        ``ports``: where to look (None: every port); ``search``: look now, in the background."""
        from assistant.dashboard.devices_panel import DevicesPanel

        panel = DevicesPanel(self.session, manager, ports)
        panel.report.connect(self.say)
        self.side.addWidget(panel)
        self.devices = panel
        if search:
            panel.search()
        return panel

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.feed is not None:
            self.feed.stop()
        if self.pipeline is not None:
            self.pipeline.stop()
        if self.devices is not None:
            self.devices.close_devices()
            self.devices = None
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        super().closeEvent(event)
