"""Card faces rendered once per deck and kept on disk, so scenes only warp pixels.

QtSvg is slow for the big decks (seconds per face for some), so every face and the back
of a deck are rendered once at :data:`FACE_HEIGHT` pixels and cached as PNG files under
``$DEALER_SYNTH_CACHE`` (default ``~/.cache/dealer-assistant/synth``). A scene then
picks the smallest mip level at least as large as the card will appear and warps it.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.engine.cards import Card
from assistant.synth.decks import DeckRecord
from assistant.synth.svgdeck import all_cards

Image = npt.NDArray[Any]  # uint8 pixels (cv2 returns loosely typed arrays)

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
    if record.scanned:  # its faces are pictures already, in its own folder
        if not record.installed():
            raise OSError(f"the scanned deck in {record.file()} lacks face pictures; scan it again")
        return record.file()
    directory = _deck_dir(record, height)
    if (directory / "complete").is_file():
        return directory
    render = _card_files_renderer(record, height) if record.faces else _svg_renderer(record, height)
    directory.mkdir(parents=True, exist_ok=True)
    for card in [*all_cards(), None]:
        image = render(card)
        target = directory / f"{_face_name(card)}.png"
        partial = target.with_name(f"{target.stem}.{os.getpid()}.tmp.png")
        if not cv2.imwrite(str(partial), image):
            raise OSError(f"cannot write {partial}")
        partial.replace(target)
    (directory / "complete").write_text(str(record.file()) + "\n")
    return directory


def _svg_renderer(record: DeckRecord, height: int) -> Callable[[Card | None], Image]:
    from assistant.synth.svgdeck import SvgDeck

    deck = SvgDeck(record.file())
    width = round(height * deck.aspect())
    return lambda card: deck.render(card, height, width)


def _card_files_renderer(record: DeckRecord, height: int) -> Callable[[Card | None], Image]:
    """A deck of one SVG file per card (the npm decks), drawn by rsvg-convert at the ace of
    spades' aspect; a deck with no back file gets a back drawn for it, the same each time."""
    from assistant.engine.cards import Rank, Suit
    from assistant.synth.backs import drawn_back
    from assistant.synth.npm_decks import render_file, svg_aspect

    ace = record.card_file(Card(Rank.ACE, Suit.SPADES))
    assert ace is not None
    width = round(height * svg_aspect(ace))

    def render(card: Card | None) -> Image:
        path = record.card_file(card)
        if path is not None:
            return render_file(path, width, height)
        rng = np.random.default_rng(zlib.crc32(record.id.encode()))
        return drawn_back(rng, render_file(ace, width, height))

    return render


SMALL_DIVISOR = 4  # the small copy of each face, for cards seen from afar


def _small_copy(full: Image) -> Image:
    """A face's small copy (mip level 2): ``SMALL_DIVISOR`` times smaller."""
    h, w = full.shape[:2]
    size = (max(2, round(w / SMALL_DIVISOR)), max(2, round(h / SMALL_DIVISOR)))
    return np.asarray(cv2.resize(full, size, interpolation=cv2.INTER_AREA))


@dataclass
class DeckFaces:
    """The cached faces of one deck, decoded on first use, with mip levels made on demand."""

    record: DeckRecord
    directory: Path
    _images: dict[tuple[str, int], Image] = field(default_factory=dict)

    @classmethod
    def load(cls, record: DeckRecord, height: int = FACE_HEIGHT) -> DeckFaces:
        return cls(record, ensure_cached(record, height))

    def _read(self, name: str, small: bool) -> Image:
        path = self.directory / (f"{name}.small.png" if small else f"{name}.png")
        image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED) if path.is_file() else None
        if image is None and small:
            image = _small_copy(self._level(name, 0))
            partial = path.with_name(f"{path.stem}.{os.getpid()}.tmp.png")
            if cv2.imwrite(str(partial), image):
                partial.replace(path)
        if image is None or image.ndim != 3 or image.shape[2] != 4:
            fix = "scan the deck again" if self.record.scanned else f"delete {self.directory}"
            raise OSError(f"face {path} is unreadable; {fix}")
        return np.asarray(image, dtype=np.uint8)

    def _level(self, name: str, level: int) -> Image:
        """Mip ``level`` of a face: 0 full size, each level half the one before."""
        key = (name, level)
        image = self._images.get(key)
        if image is not None:
            return image
        if level == 0:
            image = self._read(name, small=False)
        elif level == 2:
            image = self._read(name, small=True)
        else:
            above = self._level(name, level - 1)
            h, w = above.shape[:2]
            image = cv2.resize(above, (max(2, w // 2), max(2, h // 2)), interpolation=cv2.INTER_AREA)
        self._images[key] = image
        return image

    def with_back(self, back: Image) -> DeckFaces:
        """These faces with ``back`` (BGRA, the size of the deck's own back) for their back,
        at every mip level (:func:`assistant.synth.backs.drawn_back`); the deck's cache on
        disk is untouched."""
        images = {key: image for key, image in self._images.items() if key[0] != "back"}
        full = np.ascontiguousarray(back, dtype=np.uint8)
        # the levels :meth:`_level` reads from disk; the others it halves from the level above
        images[("back", 0)], images[("back", 2)] = full, _small_copy(full)
        return DeckFaces(self.record, self.directory, images)

    @property
    def faces(self) -> dict[str, Image]:
        """Every full-size face by name (``Ah`` .. ``back``), decoding what is not yet."""
        return {_face_name(c): self._level(_face_name(c), 0) for c in [*all_cards(), None]}

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of a full-size face in pixels."""
        h, w = self._level("back", 0).shape[:2]
        return w, h

    def face(self, card: Card | None, min_height: float | None = None) -> Image:
        """The face of ``card`` (None: back), at the smallest mip >= ``min_height``."""
        name = _face_name(card)
        if min_height is None:
            return self._level(name, 0)
        _, height = self.size
        level = 0
        while height // 2 >= max(min_height, 8) and level < 5:
            height //= 2
            level += 1
        return self._level(name, level)
