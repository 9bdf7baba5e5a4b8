"""Rendering SVG deck designs to pixels with QtSvg (PySide6, offscreen).

Card elements are named ``club_1`` .. ``spade_king`` (aisleriot) or ``1_club`` ..
``king_spade`` (KDE); the back is ``back``. Faces come out as BGRA ``uint8`` arrays
with the card's rounded corners transparent.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assistant.engine.cards import Card, Rank, Suit

Image = npt.NDArray[Any]  # uint8 pixels (cv2 returns loosely typed arrays)

SUIT_NAMES = {
    Suit.CLUBS: "club",
    Suit.DIAMONDS: "diamond",
    Suit.HEARTS: "heart",
    Suit.SPADES: "spade",
}
RANK_NAMES = {
    **{Rank(v): str(v) for v in range(1, 11)},
    Rank.JACK: "jack",
    Rank.QUEEN: "queen",
    Rank.KING: "king",
}

_APP: Any = None


def _qt_app() -> Any:
    """A QGuiApplication on the offscreen platform (needed by QPainter on images)."""
    global _APP
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance()
    if app is None:
        app = QGuiApplication(["dealer-assistant-synth"])
    _APP = app
    return app


def all_cards() -> list[Card]:
    return [Card(rank, suit) for suit in Suit for rank in Rank]


class SvgDeck:
    """One SVG deck file opened with QtSvg."""

    def __init__(self, path: Path) -> None:
        _qt_app()
        from PySide6.QtSvg import QSvgRenderer

        if not path.is_file():
            raise FileNotFoundError(f"deck file {path} does not exist")
        self.path = path
        self._renderer = QSvgRenderer(str(path))
        if not self._renderer.isValid():
            raise ValueError(f"QtSvg cannot read the deck file {path}")

    def element_id(self, card: Card | None) -> str:
        """The SVG element of ``card`` (None: the back)."""
        if card is None:
            return "back"
        suit, rank = SUIT_NAMES[card.suit], RANK_NAMES[card.rank]
        for candidate in (f"{suit}_{rank}", f"{rank}_{suit}"):
            if self._renderer.elementExists(candidate):
                return candidate
        raise KeyError(f"{self.path.name} has no element for {card}")

    def has_all_cards(self) -> bool:
        try:
            for card in all_cards():
                self.element_id(card)
        except KeyError:
            return False
        return bool(self._renderer.elementExists("back"))

    def aspect(self) -> float:
        """Width over height of the ace of spades element."""
        eid = self.element_id(Card(Rank.ACE, Suit.SPADES))
        bounds = self._renderer.transformForElement(eid).mapRect(self._renderer.boundsOnElement(eid))
        return float(bounds.width() / bounds.height())

    def render(self, card: Card | None, height: int, width: int | None = None) -> Image:
        """``card`` (None: the back) as a BGRA image ``height`` pixels tall."""
        from PySide6.QtCore import QRectF
        from PySide6.QtGui import QImage, QPainter

        if width is None:
            width = round(height * self.aspect())
        image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self._renderer.render(painter, self.element_id(card), QRectF(0, 0, width, height))
        painter.end()
        image = image.convertToFormat(QImage.Format.Format_RGBA8888)
        buffer = np.frombuffer(image.constBits(), dtype=np.uint8)
        rgba = buffer.reshape(height, image.bytesPerLine())[:, : width * 4].reshape(height, width, 4)
        return np.ascontiguousarray(rgba[:, :, [2, 1, 0, 3]])


def render_svg_file(path: Path, width: int, height: int) -> Image:
    """A whole SVG (e.g. a wallpaper) rendered to a BGR image of the given size."""
    _qt_app()
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(path))
    if not renderer.isValid():
        raise ValueError(f"QtSvg cannot read {path}")
    image = QImage(width, height, QImage.Format.Format_RGB888)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, width, height))
    painter.end()
    buffer = np.frombuffer(image.constBits(), dtype=np.uint8)
    rgb = buffer.reshape(height, image.bytesPerLine())[:, : width * 3].reshape(height, width, 3)
    return np.ascontiguousarray(rgb[:, :, ::-1])
