"""Card faces rendered once per deck and kept on disk, so scenes only warp pixels.

QtSvg is slow for the big decks (seconds per face for some), so every face and the back
of a deck are rendered once at :data:`FACE_HEIGHT` pixels and cached as PNG files under
``$DEALER_SYNTH_CACHE`` (default ``~/.cache/dealer-assistant/synth``). A scene then
picks the smallest mip level at least as large as the card will appear and warps it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from assistant.engine.cards import Card
from assistant.synth.decks import DeckRecord
from assistant.synth.svgdeck import all_cards

Image = npt.NDArray[np.uint8]

FACE_HEIGHT = 360
CACHE_VERSION = 1


def cache_root() -> Path:
    env = os.environ.get("DEALER_SYNTH_CACHE")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "dealer-assistant" / "synth"


def _deck_dir(record: DeckRecord, height: int) -> Path:
    return cache_root() / f"v{CACHE_VERSION}" / f"{record.id}-h{height}"


def _face_name(card: Card | None) -> str:
    return "back" if card is None else str(card)


def ensure_cached(record: DeckRecord, height: int = FACE_HEIGHT) -> Path:
    """Render ``record``'s 52 faces and back into the cache unless already there."""
    directory = _deck_dir(record, height)
    if (directory / "complete").is_file():
        return directory
    from assistant.synth.svgdeck import SvgDeck

    deck = SvgDeck(record.file())
    width = round(height * deck.aspect())
    directory.mkdir(parents=True, exist_ok=True)
    for card in [*all_cards(), None]:
        image = deck.render(card, height, width)
        target = directory / f"{_face_name(card)}.png"
        partial = target.with_suffix(".tmp.png")
        if not cv2.imwrite(str(partial), image):
            raise OSError(f"cannot write {partial}")
        partial.replace(target)
    (directory / "complete").write_text(str(record.file()) + "\n")
    return directory


@dataclass
class DeckFaces:
    """The cached faces of one deck, with mip levels made on demand."""

    record: DeckRecord
    faces: dict[str, Image]
    _mips: dict[tuple[str, int], Image] = field(default_factory=dict)

    @classmethod
    def load(cls, record: DeckRecord, height: int = FACE_HEIGHT) -> DeckFaces:
        directory = ensure_cached(record, height)
        faces: dict[str, Image] = {}
        for card in [*all_cards(), None]:
            name = _face_name(card)
            image = cv2.imread(str(directory / f"{name}.png"), cv2.IMREAD_UNCHANGED)
            if image is None or image.ndim != 3 or image.shape[2] != 4:
                raise OSError(f"cached face {directory / name}.png is unreadable; delete {directory}")
            faces[name] = image
        return cls(record, faces)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of a full-size face in pixels."""
        h, w = self.faces["back"].shape[:2]
        return w, h

    def face(self, card: Card | None, min_height: float | None = None) -> Image:
        """The face of ``card`` (None: back), at the smallest mip >= ``min_height``."""
        name = _face_name(card)
        full = self.faces[name]
        if min_height is None:
            return full
        level = 0
        height = full.shape[0]
        while height // 2 >= max(min_height, 8) and level < 4:
            height //= 2
            level += 1
        if level == 0:
            return full
        key = (name, level)
        mip = self._mips.get(key)
        if mip is None:
            w = max(2, round(full.shape[1] * height / full.shape[0]))
            mip = cv2.resize(full, (w, height), interpolation=cv2.INTER_AREA)
            self._mips[key] = mip
        return mip
