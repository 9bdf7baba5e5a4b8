"""The deck designs the renderer draws from, and where the packages put them.

Nothing of the decks is committed: ``decks.json`` (next to this module) records, per
design, where its package installs it, what it looks like (checked by eye on a contact
sheet) and in which split it belongs, so that detector accuracy can be measured on
designs it never saw in training.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from importlib import resources
from pathlib import Path

from assistant.engine.cards import Card, Rank, Suit

#: Where ``kdegames-card-data-kf5`` and ``gnome-cards-data`` put their decks.
DECK_ROOTS: dict[str, Path] = {
    "kdegames-card-data-kf5": Path("/usr/share/carddecks"),
    "gnome-cards-data": Path("/usr/share/aisleriot/cards"),
}

INSTALL_HINT = "apt-get install kdegames-card-data-kf5 gnome-cards-data"

#: Decks that come from the npm registry (``package`` "npm:NAME@VERSION") as one SVG file
#: per card. They are extra training designs: a run draws them only when asked
#: (``synth zones --decks``), so the recorded datasets render as they always have.
NPM_PREFIX = "npm:"
EXTRA_INSTALL_HINT = (
    "dealer-assistant synth fetch-decks (needs npm, and rsvg-convert: apt-get install librsvg2-bin)"
)


def extra_decks_root() -> Path:
    """Where ``synth fetch-decks`` unpacks the npm decks (``$DEALER_DECKS``, default
    ``~/.cache/dealer-assistant/decks``)."""
    env = os.environ.get("DEALER_DECKS")
    return Path(env) if env else Path.home() / ".cache" / "dealer-assistant" / "decks"


def npm_folder(package: str) -> str:
    """The folder an npm package is unpacked into: ``npm:@a/b@1.0`` -> ``a-b-1.0``."""
    spec = package.removeprefix(NPM_PREFIX).lstrip("@")
    return spec.replace("/", "-").replace("@", "-")


class DeckSet(Enum):
    """Which decks a run draws from: the packages' (the recorded datasets), the extra
    (npm) training designs alone, or both."""

    STANDARD = "standard"
    EXTRA = "extra"
    ALL = "all"

    def admits(self, record: DeckRecord) -> bool:
        return self is DeckSet.ALL or (self is DeckSet.EXTRA) == record.extra


#: The four corners of a card, in the card's own frame (upright face).
CORNERS: tuple[str, ...] = ("tl", "tr", "br", "bl")


#: A design made by ``dealer-assistant deck scan`` from photos of a real deck: a folder of
#: face pictures (``Ah.png`` .. ``Ks.png``, ``back.png``; BGRA) and ``design.json``. Its
#: deck id is ``scan:`` and the folder's absolute path, so that a rendering process finds it.
SCAN_PACKAGE = "scan"
SCAN_PREFIX = "scan:"
SCAN_FILE = "design.json"


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
    ``faces`` is set for a deck of one SVG file per card: ``path`` is then their folder
    and ``faces`` the file name with ``{rank}``/``{num}`` and ``{suit}``/``{SUIT}`` in it;
    ``back`` names the back's file there ("" for a back drawn for the deck). ``extra``
    decks (from npm) are drawn only where a run asks for them.
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
    faces: str = ""
    back: str = ""

    @property
    def extra(self) -> bool:
        return self.package.startswith(NPM_PREFIX)

    @property
    def scanned(self) -> bool:
        """A design ``deck scan`` made from photos of a real deck (its faces are PNG files)."""
        return self.package == SCAN_PACKAGE

    @property
    def usable(self) -> bool:
        """French-suited, renders cleanly in QtSvg and prints at least one index."""
        return self.french_suited and self.renders_cleanly and bool(self.index_corners)

    def file(self) -> Path:
        """The deck's SVG file, or for a deck of one file per card their folder."""
        if self.extra:
            return extra_decks_root() / npm_folder(self.package) / self.path
        if self.scanned:
            return Path(self.path)
        return DECK_ROOTS[self.package] / self.path

    def card_file(self, card: Card | None) -> Path | None:
        """A per-card deck's file of ``card`` (None: its back; None when it has no back
        file); raises ValueError for a deck of one file."""
        if not self.faces:
            raise ValueError(f"deck {self.id} is one SVG file, not one per card")
        if card is None:
            return self.file() / self.back if self.back else None
        # {rank}: A, 2-9, T, J, Q, K; {num}: 1-13; {suit}: c, d, h, s; {SUIT}: C, D, H, S
        suit = card.suit.value
        name = self.faces.format(rank=card.rank.symbol, num=int(card.rank), suit=suit, SUIT=suit.upper())
        return self.file() / name

    def installed(self) -> bool:
        """Its file is there (for a per-card deck: every card's and the back's; for a
        scanned one, every face's picture and the back's)."""
        if self.scanned:
            names = [*(f"{Card(rank, suit)}.png" for suit in Suit for rank in Rank), "back.png"]
            return all((self.file() / name).is_file() for name in names)
        if not self.faces:
            return self.file().is_file()
        files = [self.card_file(Card(rank, suit)) for suit in Suit for rank in Rank]
        files.append(self.card_file(None))
        return all(f is None or f.is_file() for f in files)

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
        } | ({"faces": self.faces, "back": self.back} if self.faces else {})

    @classmethod
    def from_json(cls, data: dict[str, object]) -> DeckRecord:
        box = data["index_box"]
        corners = data["index_corners"]
        assert isinstance(box, list) and len(box) == 4
        assert isinstance(corners, list)
        for corner in corners:
            if corner not in CORNERS:
                raise ValueError(f"deck {data['id']}: unknown corner {corner!r}")
        faces = str(data.get("faces", ""))
        try:
            faces.format(rank="A", num=1, suit="s", SUIT="S")
        except (KeyError, IndexError, ValueError) as error:
            raise ValueError(f"deck {data['id']}: faces pattern {faces!r} names {error}") from error
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
            faces=faces,
            back=str(data.get("back", "")),
        )


@lru_cache(maxsize=1)
def load_records() -> tuple[DeckRecord, ...]:
    """Every deck recorded in ``decks.json``, usable or not."""
    text = resources.files("assistant.synth").joinpath("decks.json").read_text("utf-8")
    return tuple(DeckRecord.from_json(item) for item in json.loads(text)["decks"])


def save_records(records: Iterable[DeckRecord], path: Path) -> None:
    payload = {
        "about": "Deck designs of kdegames-card-data-kf5 and gnome-cards-data, and extra training "
        "designs from npm (one SVG file per card; synth fetch-decks), checked by eye on contact "
        "sheets (scripts/synth_contact_sheets.py).",
        "decks": [record.to_json() for record in records],
    }
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", "utf-8")


def designs(
    records: Sequence[DeckRecord] | None = None,
    *,
    split: Split | None = None,
    decks: DeckSet = DeckSet.STANDARD,
) -> tuple[DeckRecord, ...]:
    """The usable decks of ``split`` (all splits when None) in ``decks``, installed or not."""
    records = load_records() if records is None else records
    return tuple(r for r in records if r.usable and decks.admits(r) and (split is None or r.split is split))


def installed_decks(
    records: Sequence[DeckRecord] | None = None,
    *,
    split: Split | None = None,
    decks: DeckSet = DeckSet.STANDARD,
) -> tuple[DeckRecord, ...]:
    """The usable decks of ``split`` (all splits when None) in ``decks`` that are installed.

    Raises :class:`DecksMissingError` with the command to run when none is installed.
    """
    chosen = designs(records, split=split, decks=decks)
    present = [r for r in chosen if r.installed()]
    if chosen and not present:
        if all(r.extra for r in chosen):
            raise DecksMissingError(
                f"no extra (npm) card decks found under {extra_decks_root()}; "
                f"fetch them with: {EXTRA_INSTALL_HINT}"
            )
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
    """The deck of ``decks.json`` named ``deck_id``, or the scanned design that a
    ``scan:FOLDER`` id names; KeyError for neither."""
    if deck_id.startswith(SCAN_PREFIX):
        try:
            return scanned_record(Path(deck_id.removeprefix(SCAN_PREFIX)))
        except ValueError as error:
            raise KeyError(str(error)) from error
    records = load_records() if records is None else records
    for record in records:
        if record.id == deck_id:
            return record
    known = ", ".join(r.id for r in records if r.usable)
    raise KeyError(f"unknown deck {deck_id!r}; known decks: {known}")


def scanned_id(folder: Path) -> str:
    """The deck id of the scanned design in ``folder``."""
    return SCAN_PREFIX + str(folder.resolve())


def scanned_record(folder: Path) -> DeckRecord:
    """The design ``deck scan`` wrote into ``folder``, as the renderer draws it: its
    ``design.json`` says where its indices lie and on which split's surfaces its hands are
    dealt. Raises ValueError for a folder that holds no scanned design, or a damaged one."""
    path = folder / SCAN_FILE
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError as error:
        raise ValueError(
            f"{folder} holds no scanned deck ({SCAN_FILE}); make one with: dealer-assistant deck scan"
        ) from error
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} cannot be read: {error}") from error
    try:
        if not isinstance(data, dict):
            raise TypeError("not a JSON object")
        box = tuple(float(v) for v in data["index_box"])
        if len(box) != 4 or not (0 <= box[0] < box[2] <= 0.5 and 0 <= box[1] < box[3] <= 0.5):
            raise ValueError(f"index_box {list(box)} is not a top-left corner's box (fractions of the card)")
        corners = tuple(str(c) for c in data["index_corners"])
        if not corners or any(c not in CORNERS for c in corners):
            raise ValueError(f"index_corners {list(corners)} must name corners of {list(CORNERS)}")
        return DeckRecord(
            id=scanned_id(folder),
            name=str(data.get("name") or folder.resolve().name),
            package=SCAN_PACKAGE,
            path=str(folder.resolve()),
            french_suited=True,
            renders_cleanly=True,
            court_letters=str(data.get("court_letters", "JQK")),
            suit_colours=int(data.get("suit_colours", 2)),
            index_corners=corners,
            index_box=(box[0], box[1], box[2], box[3]),
            split=Split(str(data.get("split", Split.HELD_OUT.value))),
            notes="scanned from photos of a real deck",
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{path} is damaged: {error}") from error
