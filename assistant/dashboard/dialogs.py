"""Dialogs: starting a session, resuming one, correcting a card, showing a bust."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QSpinBox,
    QWidget,
)

from assistant.engine import (
    PRESETS,
    FaceValue,
    Player,
    Rules,
    RulesError,
    Stakes,
    TableState,
    TiePolicy,
    preset,
)


@dataclass(frozen=True)
class SessionSetup:
    rules: Rules
    stakes: Stakes
    players: tuple[Player, ...]
    dealer: int = 0


class SetupError(ValueError):
    """The session settings are not valid; the message says which."""


def parse_players(text: str, default_stack: int = 50) -> tuple[Player, ...]:
    """``"Anna 50, Ben:40"`` or one per line -> players; a missing stack is ``default_stack``.

    >>> parse_players("Anna 50, Ben:40\\nCarla")
    (Player(name='Anna', stack=50), Player(name='Ben', stack=40), Player(name='Carla', stack=50))
    """
    players = []
    for raw in text.replace("\n", ",").split(","):
        entry = raw.strip()
        if not entry:
            continue
        name, _, stack = entry.replace(":", " ").rpartition(" ")
        if not name:
            name, stack = stack, str(default_stack)
        if not stack.isdigit():
            raise SetupError(f"player {entry!r}: the stack must be a whole number of chips")
        players.append(Player(name.strip(), int(stack)))
    if len(players) < 2:
        raise SetupError("a session needs at least two players")
    if len({p.name for p in players}) != len(players):
        raise SetupError("two players have the same name")
    return tuple(players)


def build_setup(
    rules_name: str, options: dict[str, Any], stakes: dict[str, int], players: str, dealer: int = 0
) -> SessionSetup:
    """Validate everything through the engine's own checks."""
    try:
        rules = preset(rules_name).with_options(**options)
        money = Stakes(**stakes)
    except (RulesError, ValueError, TypeError) as error:  # RulesError covers Rules' own checks
        raise SetupError(str(error)) from None
    seats = parse_players(players)
    if not 0 <= dealer < len(seats):
        raise SetupError(f"the dealer must be one of seats 0-{len(seats) - 1}")
    return SessionSetup(rules, money, seats, dealer)


class SetupDialog(QDialog):
    """Players, seats, stacks, preset, house-rule switches and limits of a new session."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New session")
        form = QFormLayout(self)
        self.players = QPlainTextEdit("Anna 50\nBen 50\nCarla 50\nDan 50")
        self.players.setToolTip("one player per line, in seat order clockwise: name and stack")
        form.addRow("Players (seat order)", self.players)
        self.rules = QComboBox()
        self.rules.addItems([r.name for r in PRESETS])
        self.rules.currentTextChanged.connect(self._load_preset)
        form.addRow("Rules", self.rules)
        self.bust = QCheckBox("over the high target is bust")
        self.declaration = QCheckBox("players declare low / high / both")
        self.freeze_after = QSpinBox()
        self.freeze_after.setRange(0, 9)
        self.freeze_after.setSpecialValueText("never")
        self.consecutive = QCheckBox("count only refusals in a row")
        form.addRow("Bust", self.bust)
        form.addRow("Declaration", self.declaration)
        form.addRow("Freeze after refusals", self.freeze_after)
        form.addRow("", self.consecutive)
        self.draws_face_up = QCheckBox("draws are dealt face up")
        self.under_beats_over = QCheckBox("under beats over at equal distance")
        self.fewer_cards_win = QCheckBox("fewer cards win a tie")
        self.faces = QComboBox()
        self.faces.addItems([f.value for f in FaceValue])
        self.tie = QComboBox()
        self.tie.addItems([t.value for t in TiePolicy])
        self.low_target, self.high_target = QSpinBox(), QSpinBox()
        for spin in (self.low_target, self.high_target):
            spin.setRange(1, 99)
        form.addRow("Draws", self.draws_face_up)
        form.addRow("Ties", self.under_beats_over)
        form.addRow("", self.fewer_cards_win)
        form.addRow("Equal distance", self.tie)
        form.addRow("J, Q, K count", self.faces)
        form.addRow("Low target", self.low_target)
        form.addRow("High target", self.high_target)
        self.spins: dict[str, QSpinBox] = {}
        for key, label, value in (
            ("ante", "Ante", 1),
            ("min_bet", "Minimum bet", 1),
            ("max_bet", "Maximum bet", 5),
            ("max_raises", "Raises per round", 3),
        ):
            spin = QSpinBox()
            spin.setRange(0, 10_000)
            spin.setValue(value)
            self.spins[key] = spin
            form.addRow(label, spin)
        self.dealer = QSpinBox()
        self.dealer.setRange(0, 9)
        form.addRow("First dealer (seat)", self.dealer)
        self.error = QLabel()
        self.error.setStyleSheet("color:#c0182c;")
        self.error.setWordWrap(True)
        form.addRow(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.setup: SessionSetup | None = None
        self._load_preset(self.rules.currentText())

    def _load_preset(self, name: str) -> None:
        rules = preset(name)
        self.bust.setChecked(rules.bust)
        self.declaration.setChecked(rules.declaration)
        self.freeze_after.setValue(rules.freeze_after)
        self.consecutive.setChecked(rules.freeze_consecutive)
        self.draws_face_up.setChecked(rules.draws_face_up)
        self.under_beats_over.setChecked(rules.under_beats_over)
        self.fewer_cards_win.setChecked(rules.fewer_cards_win)
        self.faces.setCurrentText(rules.faces.value)
        self.tie.setCurrentText(rules.tie.value)
        self.low_target.setValue(rules.targets[0])
        self.high_target.setValue(rules.targets[1])

    def accept(self) -> None:
        options: dict[str, Any] = {
            "bust": self.bust.isChecked(),
            "declaration": self.declaration.isChecked(),
            "freeze_after": self.freeze_after.value(),
            "freeze_consecutive": self.consecutive.isChecked() and self.freeze_after.value() > 0,
            "draws_face_up": self.draws_face_up.isChecked(),
            "under_beats_over": self.under_beats_over.isChecked(),
            "fewer_cards_win": self.fewer_cards_win.isChecked(),
            "faces": self.faces.currentText(),
            "tie": self.tie.currentText(),
            "targets": [self.low_target.value(), self.high_target.value()],
        }
        try:
            self.setup = build_setup(
                self.rules.currentText(),
                options,
                {key: spin.value() for key, spin in self.spins.items()},
                self.players.toPlainText(),
                self.dealer.value(),
            )
        except SetupError as error:
            self.setup = None
            self.error.setText(str(error))
            return
        super().accept()


def ask_resume(parent: QWidget | None, description: str) -> bool:
    """Ask whether to resume the saved session; True to resume."""
    answer = QMessageBox.question(
        parent,
        "Resume session?",
        f"A saved session was found:\n{description}\n\nResume it? (No starts a new session.)",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.Yes,
    )
    return answer == QMessageBox.StandardButton.Yes


class CardDialog(QDialog):
    """Pick a seat, one of its cards (or several cards for a bust), and type the card(s)."""

    def __init__(
        self, state: TableState, title: str, several: bool = False, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.state = state
        form = QFormLayout(self)
        self.seat = QComboBox()
        for s in state.seats:
            if s.in_hand:
                self.seat.addItem(f"{s.seat}: {s.name}", s.seat)
        form.addRow("Seat", self.seat)
        self.index = QComboBox()
        if not several:
            form.addRow("Card", self.index)
        self.text = QLineEdit()
        self.text.setPlaceholderText("e.g. 7h  (several: Kd 5c)" if several else "e.g. 7h")
        form.addRow("Is really" if not several else "Face-down cards", self.text)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.seat.currentIndexChanged.connect(self._fill_cards)
        self._fill_cards()

    def _fill_cards(self) -> None:
        self.index.clear()
        seat = self.seat.currentData()
        if seat is None:
            return
        for i, held in enumerate(self.state.seats[seat].cards):
            shown = "unseen" if held.card is None else str(held.card)
            self.index.addItem(f"card {i + 1}: {shown} ({'up' if held.face_up else 'down'})", i)

    def selection(self) -> tuple[int, int, str]:
        seat = self.seat.currentData()
        index = self.index.currentData()
        return (
            int(seat) if seat is not None else -1,
            int(index) if index is not None else -1,
            self.text.text().strip(),
        )
