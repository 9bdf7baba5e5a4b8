"""More training designs from Debian's PySol card sets: one picture per card.

The Debian packages ``pysolfc-cardsets`` and ``pysolfc`` (trixie) ship about a hundred
French-suited card sets as one GIF or PNG per card, drawn by many hands. Most are historic
decks without corner indices, or redraw a design the renderer already has; the thirteen
of :data:`DESIGNS` print a rank and suit in the top-left and bottom-right corners and look
like none of the validation or held-out designs (checked by eye beside their A, 2, 7, 9,
10, J, Q and K). They are 54 to 363 px tall, so a camera finer than about 1.2 px per mm
sees most of them upsampled, as a cheap camera would.

:func:`write_designs` fetches the two packages from the Debian archive (pinned versions,
checked against their SHA-256) or takes them from ``debs``, and writes each design as a
folder ``deck scan`` could have written (``{card}.png`` faces with alpha, ``back.png``,
``design.json`` with its index box, split ``train``), so the renderer deals them with
``synth zones --deck scan:FOLDER``. Nothing of them is committed.
"""

from __future__ import annotations

import hashlib
import io
import json
import posixpath
import tarfile
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.staged import staged_folder
from assistant.engine.cards import Card, Rank, Suit
from assistant.synth.decks import SCAN_FILE, Split

Image = npt.NDArray[Any]

ARCHIVE = "http://deb.debian.org/debian/pool/main/p"
#: Where the card sets lie inside the packages.
CARDSETS = "usr/share/games/pysolfc"


class PysolDecksError(RuntimeError):
    """A package could not be fetched, is not the pinned one, or lacks a card set's file."""


@dataclass(frozen=True, slots=True)
class DebPackage:
    """One pinned Debian package: its file name in the archive's pool and its SHA-256."""

    name: str
    version: str
    sha256: str

    @property
    def file_name(self) -> str:
        return f"{self.name}_{self.version}_all.deb"

    @property
    def url(self) -> str:
        return f"{ARCHIVE}/{self.name}/{self.file_name.replace('+', '%2B')}"


CARDSETS_PACKAGE = DebPackage(
    "pysolfc-cardsets", "3.0+dfsg-1", "f2deadbb9e5f41aa3175bf4c2afd4e3898ee3ed11f0292b15b45ac8979fde24f"
)
PYSOLFC_PACKAGE = DebPackage(
    "pysolfc", "3.2.0-1", "8e4ce39d795ddd27b968b5ee890d7cfdea187946088e91c0a7795bb2c36712c7"
)


@dataclass(frozen=True, slots=True)
class PysolDesign:
    """A card set (``cardset-NAME`` in ``package``) and its top-left index box, as a
    fraction of the card's width and height ``(x0, y0, x1, y1)``."""

    name: str
    package: DebPackage
    index_box: tuple[float, float, float, float]

    @property
    def deck_name(self) -> str:
        return f"pysol-{self.name}"


#: The index boxes were measured on the ink in the top-left corner of each set's aces,
#: twos and threes (whose pips lie in the middle column) and checked on a contact sheet;
#: jacoby's, where the measure missed the pip under the rank, was drawn by hand.
DESIGNS: tuple[PysolDesign, ...] = (
    PysolDesign("aisleriot", CARDSETS_PACKAGE, (0.042, 0.0218, 0.1955, 0.2375)),
    PysolDesign("cardmage", CARDSETS_PACKAGE, (0.0343, 0.0357, 0.1911, 0.3081)),
    PysolDesign("gpl", CARDSETS_PACKAGE, (0.0331, 0.0249, 0.1861, 0.305)),
    PysolDesign("greywyvern", CARDSETS_PACKAGE, (0.0364, 0.0236, 0.2413, 0.2727)),
    PysolDesign("jacoby", CARDSETS_PACKAGE, (0.029, 0.023, 0.2, 0.3)),
    PysolDesign("me-uk", CARDSETS_PACKAGE, (0.042, 0.0297, 0.1413, 0.2262)),
    PysolDesign("neo", PYSOLFC_PACKAGE, (0.04, 0.0271, 0.14, 0.2319)),
    PysolDesign("oxymoron", PYSOLFC_PACKAGE, (0.0331, 0.0249, 0.1861, 0.305)),
    PysolDesign("spaced", CARDSETS_PACKAGE, (0.042, 0.0357, 0.2567, 0.3227)),
    PysolDesign("spider", CARDSETS_PACKAGE, (0.0426, 0.0509, 0.1726, 0.2987)),
    PysolDesign("sylly", CARDSETS_PACKAGE, (0.0405, 0.0302, 0.2604, 0.2379)),
    PysolDesign("warwick", CARDSETS_PACKAGE, (0.0325, 0.0357, 0.1702, 0.256)),
    PysolDesign("xpat2-nox-large", CARDSETS_PACKAGE, (0.0363, 0.0428, 0.1852, 0.2743)),
)


def fetch(package: DebPackage, folder: Path, *, log: Callable[[str], None] = print) -> bytes:
    """The package's ``.deb`` (its bytes), from ``folder`` where a file with the pinned
    SHA-256 is there, else downloaded from the Debian archive and kept there."""
    target = folder / package.file_name
    if target.is_file():
        data = target.read_bytes()
        if _sha256(data) == package.sha256:
            return data
    log(f"downloading {package.url}")
    try:
        with urllib.request.urlopen(package.url, timeout=120) as reply:
            data = bytes(reply.read())
    except OSError as error:
        raise PysolDecksError(f"cannot download {package.url}: {error}") from error
    _check(package, data, package.url)
    folder.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.write_bytes(data)
    partial.replace(target)
    return data


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check(package: DebPackage, data: bytes, where: object) -> None:
    if _sha256(data) != package.sha256:
        raise PysolDecksError(f"{where} is not {package.file_name} (its SHA-256 differs from the pinned one)")


def deb_members(data: bytes, prefixes: Iterable[str]) -> dict[str, bytes]:
    """The files of a ``.deb``'s ``data.tar.*`` whose paths start with one of ``prefixes``
    (paths without the leading ``./``). A ``.deb`` is an ``ar`` archive holding that tar."""
    if not data.startswith(b"!<arch>\n"):
        raise PysolDecksError("not a Debian package (no ar archive header)")
    wanted = tuple(prefixes)
    at = 8
    while at + 60 <= len(data):
        header = data[at : at + 60]
        name = header[:16].decode("ascii", errors="replace").strip().rstrip("/")
        try:
            size = int(header[48:58].decode("ascii").strip())
        except ValueError as error:
            raise PysolDecksError("damaged Debian package (an ar member's size is unreadable)") from error
        body = data[at + 60 : at + 60 + size]
        if len(body) < size:
            raise PysolDecksError(f"damaged Debian package ({name} is cut short: a partial download?)")
        if name.startswith("data.tar"):
            try:
                with tarfile.open(fileobj=io.BytesIO(body)) as tar:
                    members = {m.name.removeprefix("./"): m for m in tar.getmembers()}
                    found: dict[str, bytes] = {}
                    for path in members:
                        if path.startswith(wanted):
                            member = _followed(members, path)
                            handle = tar.extractfile(member) if member is not None else None
                            if handle is not None:
                                found[path] = handle.read()
                    return found
            except (tarfile.TarError, EOFError, OSError) as error:
                raise PysolDecksError(f"damaged Debian package ({name}: {error})") from error
        at += 60 + size + (size % 2)
    raise PysolDecksError("damaged Debian package (no data.tar member)")


def _followed(members: dict[str, tarfile.TarInfo], path: str) -> tarfile.TarInfo | None:
    """The regular file ``path`` names in the package, following symbolic links (card sets
    share backs and faces by linking to another set's files); None for a folder, a link
    that leads nowhere in the package, or a loop."""
    for _ in range(8):
        member = members.get(path)
        if member is None or member.isfile():
            return member
        if not member.issym():
            return None
        path = posixpath.normpath(posixpath.join(posixpath.dirname(path), member.linkname))
    return None


def decode(data: bytes, where: str) -> Image:
    """A card set's GIF or PNG picture as BGRA pixels (transparent where the set's picture
    is: the rounded corners)."""
    from PIL import Image as PilImage  # reads GIF palettes with their transparent colour

    try:
        with PilImage.open(io.BytesIO(data)) as picture:
            rgba = np.asarray(picture.convert("RGBA"))
    except (OSError, ValueError) as error:
        raise PysolDecksError(f"{where} is not a readable picture: {error}") from error
    return np.ascontiguousarray(rgba[:, :, [2, 1, 0, 3]])


def _config(files: dict[str, bytes], folder: str) -> tuple[str, str]:
    """A card set's file extension and default back file, from its ``config.txt``."""
    try:
        lines = files[f"{folder}/config.txt"].decode("utf-8", errors="replace").splitlines()
        return lines[0].split(";")[2].strip(), lines[4].strip()
    except (KeyError, IndexError) as error:
        raise PysolDecksError(f"{folder}/config.txt is missing or not a PySol card set's") from error


def write_design(design: PysolDesign, files: dict[str, bytes], out: Path) -> Path:
    """Write one card set as a scanned-deck folder ``out/NAME``; returns it. Staged beside
    it and renamed once whole, so a failure leaves no half-written design."""
    folder = f"{CARDSETS}/cardset-{design.name}"
    ext, back = _config(files, folder)
    pictures: dict[str, Image] = {}
    for suit in Suit:
        for rank in Rank:
            path = f"{folder}/{int(rank):02d}{suit.value}{ext}"
            if path not in files:
                raise PysolDecksError(f"{design.package.file_name} lacks {path}")
            pictures[str(Card(rank, suit))] = decode(files[path], path)
    if f"{folder}/{back}" not in files:
        raise PysolDecksError(f"{design.package.file_name} lacks {folder}/{back}")
    pictures["back"] = decode(files[f"{folder}/{back}"], f"{folder}/{back}")
    record = {
        "name": design.deck_name,
        "index_box": list(design.index_box),
        "index_corners": ["tl", "br"],
        "court_letters": "JQK",
        "suit_colours": 2,
        "split": Split.TRAIN.value,
        "source": f"Debian {design.package.name} {design.package.version}, cardset-{design.name}",
    }
    target = out / design.name
    with staged_folder(target, "partial", replace=True) as staging:
        for name, image in pictures.items():
            if not cv2.imwrite(str(staging / f"{name}.png"), image):
                raise PysolDecksError(f"cannot write {staging / name}.png")
        (staging / SCAN_FILE).write_text(json.dumps(record, indent=1) + "\n", "utf-8")
    return target


def write_designs(
    out: Path,
    *,
    debs: Path | None = None,
    designs: Iterable[PysolDesign] = DESIGNS,
    log: Callable[[str], None] = print,
) -> list[Path]:
    """Write every design of ``designs`` into ``out`` (one folder each); the packages are
    taken from ``debs`` where they are there with the pinned SHA-256, else downloaded into
    it (``out/debs`` when None)."""
    chosen = list(designs)
    debs = out / "debs" if debs is None else debs
    written: list[Path] = []
    for package in dict.fromkeys(d.package for d in chosen):
        data = fetch(package, debs, log=log)
        mine = [d for d in chosen if d.package == package]
        files = deb_members(data, [f"{CARDSETS}/cardset-{d.name}/" for d in mine])
        for design in mine:
            written.append(write_design(design, files, out))
            log(f"{design.deck_name}: {written[-1]}")
    return written
