"""The camera's questions for the dealer: confirm, correct or dismiss each one.

A :class:`~assistant.pipeline.referee.DealerQuery` is something the camera saw that the
rules did not allow (a card out of turn) or that it could not settle (chips it could not
count). Each is listed with what it would do; Confirm applies its proposed events
through the session (all or none: a refusal shows the engine's message and keeps the
question), Correct opens the card-correction dialog, Dismiss drops it.

The camera asks again, frame after frame, while what it sees stays wrong (the same card
in two places); a question already open is not listed twice, and one the dealer
dismissed is not asked again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from assistant.dashboard.live_table import apply_proposed
from assistant.engine import IllegalActionError, Session
from assistant.engine.actions import event_to_action
from assistant.pipeline.referee import DealerQuery

MAX_SHOWN = 6  # older questions beyond these are dropped (the newest matter)
SMALL_BUTTON = "QPushButton { font-size:11pt; padding:3px 8px; }"


def same_question(query: DealerQuery) -> tuple[str, str, tuple[object, ...]]:
    """What makes two questions the same, whatever frame they were asked at."""
    return (query.zone, query.message, query.proposed)


def proposal_text(query: DealerQuery) -> str:
    if not query.proposed:
        return "nothing to apply"
    return "; ".join(" ".join(str(part) for part in event_to_action(event)) for event in query.proposed)


@dataclass(frozen=True)
class Answer:
    """What became of a question: ``ok`` False when confirming it was refused."""

    ok: bool
    text: str


class QueryRow(QFrame):
    def __init__(self, panel: QueriesPanel, query: DealerQuery) -> None:
        super().__init__()
        self.query = query
        self.setStyleSheet("QFrame { background:#2a2416; border-radius:4px; } QLabel { color:#ffe9a8; }")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        self.text = QLabel(f"frame {query.frame} · {query.zone}: {query.message}")
        self.text.setWordWrap(True)
        layout.addWidget(self.text)
        self.proposal = QLabel(f"would apply: {proposal_text(query)}")
        self.proposal.setWordWrap(True)
        self.proposal.setStyleSheet("color:#c8c8c8; font-size:10pt;")
        layout.addWidget(self.proposal)
        row = QHBoxLayout()
        self.confirm = self._button(row, "Confirm", lambda: panel.confirm(self))
        self.confirm.setEnabled(bool(query.proposed))
        self.correct = self._button(row, "Correct…", lambda: panel.correct(self))
        self.dismiss = self._button(row, "Dismiss", lambda: panel.dismiss(self))
        row.addStretch(1)
        layout.addLayout(row)

    @staticmethod
    def _button(row: QHBoxLayout, text: str, slot: Callable[[], object]) -> QPushButton:
        button = QPushButton(text)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.setStyleSheet(SMALL_BUTTON)
        button.clicked.connect(lambda _=False: slot())
        row.addWidget(button)
        return button


class QueriesPanel(QWidget):
    """The open questions, newest last. ``answered`` carries an :class:`Answer`."""

    answered = Signal(object)

    def __init__(self, session: Session, correct: Callable[[], bool], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._correct = correct  # opens the correction dialog; True when the dealer applied one
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel()
        self.title.setStyleSheet("font-size:13pt; color:#ffd21f; font-weight:bold;")
        layout.addWidget(self.title)
        self.rows_box = QVBoxLayout()
        layout.addLayout(self.rows_box)
        self.rows: list[QueryRow] = []
        self.dismissed: set[tuple[str, str, tuple[object, ...]]] = set()
        self._show_title()

    @property
    def queries(self) -> list[DealerQuery]:
        return [row.query for row in self.rows]

    def add(self, query: DealerQuery) -> bool:
        """List a question; False when it is already open or was dismissed."""
        key = same_question(query)
        if key in self.dismissed or any(same_question(row.query) == key for row in self.rows):
            return False
        row = QueryRow(self, query)
        self.rows.append(row)
        self.rows_box.addWidget(row)
        while len(self.rows) > MAX_SHOWN:
            self._remove(self.rows[0])
        self._show_title()
        return True

    def _remove(self, row: QueryRow) -> None:
        if row in self.rows:
            self.rows.remove(row)
            self.rows_box.removeWidget(row)
            row.deleteLater()
        self._show_title()

    def _show_title(self) -> None:
        count = len(self.rows)
        self.title.setText(f"Camera questions ({count})" if count else "Camera questions: none")

    def confirm(self, row: QueryRow) -> Answer:
        try:
            apply_proposed(self.session, row.query.proposed)
        except IllegalActionError as error:
            answer = Answer(False, f"not applied: {error}")
        else:
            self._remove(row)
            answer = Answer(True, f"confirmed: {proposal_text(row.query)}")
        self.answered.emit(answer)
        return answer

    def correct(self, row: QueryRow) -> Answer:
        if self._correct():
            self._remove(row)
            answer = Answer(True, "corrected by hand")
        else:
            answer = Answer(True, "question kept: nothing corrected")
        self.answered.emit(answer)
        return answer

    def dismiss(self, row: QueryRow) -> Answer:
        self.dismissed.add(same_question(row.query))
        self._remove(row)
        answer = Answer(True, f"dismissed: {row.query.message}")
        self.answered.emit(answer)
        return answer
