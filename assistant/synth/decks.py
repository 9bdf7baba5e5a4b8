"""The deck designs the renderer draws from, and where the packages put them.

Nothing of the decks is committed: ``decks.json`` (next to this module) records, per
design, where its package installs it, what it looks like (checked by eye on a contact
sheet) and in which split it belongs, so that detector accuracy can be measured on
designs it never saw in training.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from importlib import resources
from pathlib import Path

#: Where ``kdegames-card-data-kf5`` and ``gnome-cards-data`` put their decks.
DECK_ROOTS: dict[str, Path] = {
    "kdegames-card-data-kf5": Path("/usr/share/carddecks"),
    "gnome-cards-data": Path("/usr/share/aisleriot/cards"),
}

INSTALL_HINT = "apt-get install kdegames-card-data-kf5 gnome-cards-data"

#: The four corners of a card, in the card's own frame (upright face).
CORNERS: tuple[str, ...] = ("tl", "tr", "br", "bl")


class DecksMissingError(RuntimeError):
    """The SVG deck packages are not installed."""


class Split(Enum):
    TRAIN = "train"
    VAL = "val"
    HELD_OUT = "held_out"


@dataclass(frozen=True)
class DeckRecord:
    """What one deck design is, as recorded in ``decks.json``.

    ``index_box`` is the top-left index (rank glyph and suit pip) as a fraction of the
    card's width and height ``(x0, y0, x1, y1)``; an index in another corner is the same
    box mirrored into that corner. ``index_corners`` lists the corners that print one;
    ``court_index`` is False where the court cards print no index at all, and
    ``index_has_suit`` False where the index is the rank alone (no suit pip beside it).
    """

    id: str
    name: str
    package: str
    path: str
    french_suited: bool
    renders_cleanly: bool
    court_letters: str
    suit_colours: int
    index_corners: tuple[str, ...]
    index_box: tuple[float, float, float, float]
    split: Split
    notes: str = ""
    court_index: bool = True
    index_has_suit: bool = True

    @property
    def usable(self) -> bool:
        """French-suited, renders cleanly in QtSvg and prints at least one index."""
        return self.french_suited and self.renders_cleanly and bool(self.index_corners)

    def file(self) -> Path:
        return DECK_ROOTS[self.package] / self.path

    def index_box_at(self, corner: str) -> tuple[float, float, float, float]:
        """The index box mirrored into ``corner`` (fractions of width and height)."""
        x0, y0, x1, y1 = self.index_box
        if corner in ("tr", "br"):
            x0, x1 = 1.0 - x1, 1.0 - x0
        if corner in ("bl", "br"):
            y0, y1 = 1.0 - y1, 1.0 - y0
        return (x0, y0, x1, y1)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "package": self.package,
            "path": self.path,
            "french_suited": self.french_suited,
            "renders_cleanly": self.renders_cleanly,
            "court_letters": self.court_letters,
            "suit_colours": self.suit_colours,
            "index_corners": list(self.index_corners),
            "index_box": [round(v, 4) for v in self.index_box],
            "split": self.split.value,
            "notes": self.notes,
            "court_index": self.court_index,
            "index_has_suit": self.index_has_suit,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> DeckRecord:
        box = data["index_box"]
        corners = data["index_corners"]
        assert isinstance(box, list) and len(box) == 4
        assert isinstance(corners, list)
        for corner in corners:
            if corner not in CORNERS:
                raise ValueError(f"deck {data['id']}: unknown corner {corner!r}")
        return cls(
            id=str(data["id"]),
            name=str(data["name"]),
            package=str(data["package"]),
            path=str(data["path"]),
            french_suited=bool(data["french_suited"]),
            renders_cleanly=bool(data["renders_cleanly"]),
            court_letters=str(data["court_letters"]),
            suit_colours=int(str(data["suit_colours"])),
            index_corners=tuple(str(c) for c in corners),
            index_box=(float(box[0]), float(box[1]), float(box[2]), float(box[3])),
            split=Split(str(data["split"])),
            notes=str(data.get("notes", "")),
            court_index=bool(data.get("court_index", True)),
            index_has_suit=bool(data.get("index_has_suit", True)),
        )


@lru_cache(maxsize=1)
def load_records() -> tuple[DeckRecord, ...]:
    """Every deck recorded in ``decks.json``, usable or not."""
    text = resources.files("assistant.synth").joinpath("decks.json").read_text("utf-8")
    return tuple(DeckRecord.from_json(item) for item in json.loads(text)["decks"])


def save_records(records: Iterable[DeckRecord], path: Path) -> None:
    payload = {
        "about": "Deck designs of kdegames-card-data-kf5 and gnome-cards-data, checked by "
        "eye on contact sheets (scripts/synth_contact_sheets.py).",
        "decks": [record.to_json() for record in records],
    }
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", "utf-8")


def installed_decks(
    records: Sequence[DeckRecord] | None = None, *, split: Split | None = None
) -> tuple[DeckRecord, ...]:
    """The usable decks of ``split`` (all splits when None) that are installed.

    Raises :class:`DecksMissingError` with the command to run when none is installed.
    """
    records = load_records() if records is None else records
    chosen = [r for r in records if r.usable and (split is None or r.split is split)]
    present = [r for r in chosen if r.file().is_file()]
    if chosen and not present:
        raise DecksMissingError(
            f"no SVG card decks found under {', '.join(map(str, DECK_ROOTS.values()))}; "
            f"install them with: {INSTALL_HINT}"
        )
    return tuple(present)


def discover_files() -> list[tuple[str, Path]]:
    """Every SVG deck file the packages installed, as ``(package, path)``."""
    found: list[tuple[str, Path]] = []
    for package, root in DECK_ROOTS.items():
        if root.is_dir():
            found.extend((package, p) for p in sorted(root.rglob("*.svgz")))
            found.extend((package, p) for p in sorted(root.rglob("*.svg")))
    return found


def deck_by_id(deck_id: str, records: Sequence[DeckRecord] | None = None) -> DeckRecord:
    records = load_records() if records is None else records
    for record in records:
        if record.id == deck_id:
            return record
    known = ", ".join(r.id for r in records if r.usable)
    raise KeyError(f"unknown deck {deck_id!r}; known decks: {known}")
