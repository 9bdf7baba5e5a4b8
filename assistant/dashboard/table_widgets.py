"""The table as the players sit: seat panels around an oval, the pot in the middle.

The widgets only lay out a :class:`~assistant.dashboard.presenter.TableView`; they never
look at the engine themselves.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from assistant.dashboard.presenter import SeatView, TableView
from assistant.engine import FULL_DECK, Card

SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
RED_SUITS = frozenset("dh")
DEALER_BADGE = (
    ' <span style="background-color:#ffd21f; color:#000000; font-size:12pt;">&nbsp;DEALER&nbsp;</span>'
)


def card_label(text: str) -> str:
    """``"Th"`` -> ``"10♥"``; ``"?"`` stays ``"?"``."""
    if text == "?" or len(text) < 2:
        return text
    rank = "10" if text[0] == "T" else text[0]
    return rank + SUIT_SYMBOLS.get(text[-1], text[-1])


def card_html(text: str, face_up: bool = True) -> str:
    if text == "?":
        return '<span style="background-color:#34506b; color:#9fb6cc;">&nbsp;?&nbsp;</span>'
    color = "#c0182c" if text[-1] in RED_SUITS else "#111111"
    background = "#ffffff" if face_up else "#d9e4ef"
    return (
        f'<span style="background-color:{background}; color:{color};">&nbsp;{card_label(text)}&nbsp;</span>'
    )


def tokens(freeze: str) -> str:
    """``"refusals 2 of 3"`` -> ``"●●○ refusals 2 of 3"`` (the freeze tokens)."""
    words = freeze.split()
    if len(words) < 4 or not (words[1].isdigit() and words[3].isdigit()):
        return freeze
    used, limit = int(words[1]), int(words[3])
    return "●" * min(used, limit) + "○" * max(0, limit - used) + "  " + freeze


class SeatWidget(QFrame):
    """One seat: name, stack, bet, cards, freeze tokens, values and advice."""

    def __init__(self, seat: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.seat = seat
        self.setObjectName(f"seat{seat}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)
        self.name = QLabel()
        self.name.setTextFormat(Qt.TextFormat.RichText)
        self.money = QLabel()
        self.cards = QLabel()
        self.cards.setTextFormat(Qt.TextFormat.RichText)
        self.values = QLabel()
        self.freeze = QLabel()
        self.advice = QLabel()
        self.advice.setWordWrap(True)
        for label, size, bold in (
            (self.name, 17, True),
            (self.money, 14, False),
            (self.cards, 20, True),
            (self.values, 14, True),
            (self.freeze, 13, False),
            (self.advice, 11, False),
        ):
            font = label.font()
            font.setPointSize(size)
            font.setBold(bold)
            label.setFont(font)
            layout.addWidget(label)
        self.view: SeatView | None = None

    def show_seat(self, view: SeatView) -> None:
        self.view = view
        name = f"<b>{escape(view.name)}</b>"
        if view.dealer:
            name += DEALER_BADGE
        if view.status:
            name += f" — {escape(view.status.upper())}"
        self.name.setText(name)
        money = f"stack {view.stack}"
        if view.award is not None:
            money += f" · won {view.award}" if view.award else " · won nothing"
        elif view.live:
            money += (f" · bet {view.bet}" if view.bet else "") + f" · in pot {view.committed}"
        self.money.setText(money)
        up = " ".join(card_html(c) for c in view.up_cards)
        down = " ".join(card_html(c, face_up=False) for c in view.down_cards)
        self.cards.setText(" ".join(part for part in (up, down) if part) or "&nbsp;")
        self.values.setText(view.values + ("  NATURAL" if view.natural else ""))
        tags = [tokens(view.freeze)] if view.freeze else []
        if view.declaration:
            tags.append(f"declared {view.declaration.upper()}")
        self.freeze.setText(" · ".join(tags))
        self.freeze.setVisible(bool(tags))
        self.advice.setText(view.advice)
        self.advice.setVisible(bool(view.advice))
        if view.on_turn:
            style = "background:#3d3a12; border:4px solid #ffd21f; border-radius:10px;"
        elif view.award:
            style = "background:#1f4a2a; border:4px solid #7ee08a; border-radius:10px;"
        elif view.status == "FROZEN":
            style = "background:#14304a; border:3px solid #6fc3ff; border-radius:10px;"
        elif not view.live:
            style = "background:#26282b; border:1px solid #444; border-radius:10px;"
        else:
            style = "background:#173224; border:2px solid #3c7a55; border-radius:10px;"
        color = "#8a8f94" if not view.live and view.award is None else "#f2f2f2"
        self.setStyleSheet(
            f"SeatWidget {{{style}}} QLabel {{ color:{color}; border:none; background:transparent; }}"
        )


class CenterWidget(QFrame):
    """The middle of the table: pot, amount to call, raise cap, phase."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        self.pot = QLabel()
        self.details = QLabel()
        self.phase = QLabel()
        for label, size in ((self.pot, 26), (self.details, 14), (self.phase, 13)):
            font = label.font()
            font.setPointSize(size)
            font.setBold(label is self.pot)
            label.setFont(font)
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setWordWrap(True)
            layout.addWidget(label)
        self.setStyleSheet("QLabel { color:#f5f0d0; background:transparent; }")

    def show_table(self, view: TableView) -> None:
        self.pot.setText(f"POT {view.pot}")
        details = []
        if view.to_call:
            details.append(f"to call {view.to_call}")
        if view.raises_left:
            details.append(f"raises left {view.raises_left}")
        if view.showdown is not None and view.showdown.low_half:
            details.append(view.showdown.low_half)
            details.append(view.showdown.high_half)
        self.details.setText("\n".join(details))
        self.phase.setText(view.phase)


class TableWidget(QWidget):
    """Seats placed clockwise around an oval, seat 0 at the bottom, as the players sit."""

    def __init__(self, seats: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.seat_widgets = [SeatWidget(i, self) for i in range(seats)]
        self.center = CenterWidget(self)
        self.setMinimumSize(900, 560)

    def show_table(self, view: TableView) -> None:
        for widget, seat in zip(self.seat_widgets, view.seats, strict=True):
            widget.show_seat(seat)
        self.center.show_table(view)

    def seat_rects(self) -> list[QRect]:
        """Seats clockwise around an oval, as large as they can be without overlapping.

        Seat 0 is at the bottom; with an even number of seats the oval is turned half a
        step when that leaves room for larger panels.
        """
        n = len(self.seat_widgets)
        w, h = self.width(), self.height()
        best: list[QRect] = []
        best_area = -1
        for offset in (0.0, 0.5) if n % 2 == 0 else (0.0,):
            scale = 1.0
            while True:
                seat_w, seat_h = int(min(380, w / 2.7) * scale), int(min(215, h / 3.0) * scale)
                rects = []
                for index in range(n):
                    angle = math.pi / 2 + 2 * math.pi * (index + offset) / n  # clockwise on screen
                    cx = w / 2 + (w - seat_w) / 2 * math.cos(angle)
                    cy = h / 2 + (h - seat_h) / 2 * math.sin(angle)
                    rects.append(QRect(int(cx - seat_w / 2), int(cy - seat_h / 2), seat_w, seat_h))
                overlap = any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1 :])
                if not overlap or scale <= 0.35:
                    break
                scale -= 0.05
            if seat_w * seat_h > best_area:
                best, best_area = rects, seat_w * seat_h
        return best

    def resizeEvent(self, event: QResizeEvent) -> None:
        for widget, rect in zip(self.seat_widgets, self.seat_rects(), strict=True):
            widget.setGeometry(rect)
        cw, ch = int(self.width() * 0.34), int(self.height() * 0.30)
        self.center.setGeometry((self.width() - cw) // 2, (self.height() - ch) // 2, cw, ch)
        super().resizeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        margin_x, margin_y = self.width() * 0.12, self.height() * 0.16
        oval = QRectF(margin_x, margin_y, self.width() - 2 * margin_x, self.height() - 2 * margin_y)
        painter.setPen(QPen(QColor(90, 60, 30), 14))
        painter.setBrush(QColor(18, 92, 52))
        painter.drawEllipse(oval)
        painter.end()


class CardPicker(QWidget):
    """52 buttons, one per card, for entering a card by click; cards in play are disabled."""

    def __init__(self, on_card: Callable[[Card], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setSpacing(2)
        grid.setContentsMargins(0, 0, 0, 0)
        self.buttons: dict[Card, QPushButton] = {}
        for index, card in enumerate(FULL_DECK):
            button = QPushButton(card_label(str(card)))
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setFixedHeight(27)
            button.setMinimumWidth(42)
            # share the width evenly instead of asking for the text's width: 13 columns
            # must fit beside the action buttons on a 1280-px screen
            button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            color = "#c0182c" if card.suit.value in RED_SUITS else "#111"
            button.setStyleSheet(
                f"QPushButton {{ color:{color}; background:#fafafa; font-size:13pt; font-weight:bold; }}"
                "QPushButton:disabled { color:#bbb; background:#555; }"
            )
            button.clicked.connect(lambda _=False, c=card: on_card(c))
            grid.addWidget(button, index // 13, index % 13)
            self.buttons[card] = button

    def set_in_play(self, cards: set[Card]) -> None:
        for card, button in self.buttons.items():
            button.setEnabled(card not in cards)
