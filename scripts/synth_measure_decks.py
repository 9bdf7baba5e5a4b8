"""Draft ``assistant/synth/decks.json`` from the installed deck packages.

Finds every SVG deck, renders it with QtSvg (into the face cache), measures the top-left
corner index box from how the corner differs between cards, and writes a draft record
per deck. The draft is then checked by eye on the contact sheets
(``scripts/synth_contact_sheets.py decks``) and corrected by hand; records already in
``decks.json`` keep their hand-checked fields unless ``--remeasure`` is given.

    nice python scripts/synth_measure_decks.py [--remeasure]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.engine.cards import Card, Rank, Suit
from assistant.synth.decks import DeckRecord, Split, discover_files, save_records
from assistant.synth.facecache import DeckFaces
from assistant.synth.svgdeck import SvgDeck

JSON_PATH = Path(__file__).resolve().parents[1] / "assistant" / "synth" / "decks.json"
TRANSLIT = {"Атласные": "atlasnye-cyrillic"}


def deck_id(package: str, path: Path) -> str:
    if package == "kdegames-card-data-kf5":
        return "kde-" + path.parent.name.removeprefix("svg-")
    stem = path.name.split(".")[0]
    return "gnome-" + TRANSLIT.get(stem, stem).replace("_", "-")


def _gray(faces: DeckFaces, card: Card, corner: str) -> np.ndarray:
    """The card in gray, flipped so that ``corner`` is at the top left."""
    face = faces.face(card).astype(np.float32)
    alpha = face[:, :, 3:4] / 255.0
    gray = (face[:, :, :3] * alpha + 255.0 * (1.0 - alpha)).mean(axis=2)
    if corner == "tr":
        gray = gray[:, ::-1]
    return np.asarray(gray)


def _bbox(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    ys, xs = np.nonzero(mask)
    if len(xs) < 12:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def measure_corner(faces: DeckFaces, corner: str) -> tuple[float, float, float, float] | None:
    """The index box in ``corner`` (mirrored to top-left fractions), None if none.

    The rank glyph is where A, 2 and 3 of one suit differ; the suit pip is where the
    four 2s differ just below it; the box is then widened to where 10, J, Q and K differ
    from the 2 in the rank glyph's rows.
    """
    w, h = faces.size
    rw, rh = int(0.24 * w), int(0.36 * h)
    kernel = np.ones((2, 2), np.uint8)
    rank_spread = []
    for suit in Suit:
        stack = [_gray(faces, Card(r, suit), corner)[:rh, :rw] for r in (Rank.ACE, Rank.TWO, Rank.THREE)]
        rank_spread.append(np.std(np.stack(stack), axis=0))
    rank_mask = cv2.morphologyEx((np.mean(rank_spread, axis=0) > 30).astype(np.uint8), cv2.MORPH_OPEN, kernel)
    # keep the component nearest the corner
    count, labels, stats, _ = cv2.connectedComponentsWithStats(rank_mask)
    if count <= 1:
        return None
    best = min(range(1, count), key=lambda i: stats[i, 0] + stats[i, 1] if stats[i, 4] >= 6 else 1e9)
    if stats[best, 4] < 6:
        return None
    near = np.zeros_like(rank_mask)
    bx, by, bw, bh = stats[best, :4]
    # the glyph may be several components (e.g. "10"): take those overlapping its rows
    for i in range(1, count):
        x, y, _cw, ch, area = stats[i]
        if area >= 4 and y < by + bh and y + ch > by and x < bx + 3 * bw:
            near[labels == i] = 1
    glyph = _bbox(near)
    if glyph is None:
        return None
    x0, y0, x1, y1 = glyph
    gw, gh = x1 - x0, y1 - y0
    twos = [_gray(faces, Card(Rank.TWO, s), corner)[:rh, :rw] for s in Suit]
    suit_mask = (np.std(np.stack(twos), axis=0) > 30).astype(np.uint8)
    region = np.zeros_like(suit_mask)
    sx0, sx1 = max(0, x0 - gw // 2), min(rw, x1 + gw // 2)
    region[y1 : min(rh, y1 + int(1.6 * gh)), sx0:sx1] = 1
    pip = _bbox(cv2.morphologyEx(suit_mask * region, cv2.MORPH_OPEN, kernel))
    if pip is not None:
        x0, y0, x1, y1 = min(x0, pip[0]), min(y0, pip[1]), max(x1, pip[2]), max(y1, pip[3])
    wide = [_gray(faces, Card(r, Suit.SPADES), corner)[:rh, :rw] for r in (Rank.TWO, Rank.TEN)]
    wide_mask = np.std(np.stack(wide), axis=0) > 30
    columns = wide_mask[glyph[1] : glyph[3]].any(axis=0)
    gap = 0
    while x1 < rw and gap <= 1:
        gap = 0 if columns[x1] else gap + 1
        x1 += 1
    x1 -= gap
    pad = 2
    return (
        max(0.0, (x0 - pad) / w),
        max(0.0, (y0 - pad) / h),
        min(0.5, (x1 + pad) / w),
        min(0.5, (y1 + pad) / h),
    )


def measure_index(faces: DeckFaces) -> tuple[tuple[str, ...], tuple[float, float, float, float]]:
    tl = measure_corner(faces, "tl")
    tr = measure_corner(faces, "tr")
    if tl is not None and tr is not None:
        return ("tl", "tr", "br", "bl"), tl
    if tl is not None:
        return ("tl", "br"), tl
    if tr is not None:
        return ("tr", "bl"), tr
    return (), (0.0, 0.0, 0.0, 0.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remeasure", action="store_true")
    args = parser.parse_args(argv)
    old: dict[str, DeckRecord] = {}
    if JSON_PATH.is_file():
        for item in json.loads(JSON_PATH.read_text("utf-8"))["decks"]:
            record = DeckRecord.from_json(item)
            old[record.id] = record
    records: list[DeckRecord] = []
    for package, path in discover_files():
        rid = deck_id(package, path)
        deck = SvgDeck(path)
        rel = str(
            path.relative_to(
                Path("/usr/share/carddecks" if package.startswith("kde") else "/usr/share/aisleriot/cards")
            )
        )
        complete = deck.has_all_cards()
        draft = DeckRecord(
            id=rid,
            name=rid,
            package=package,
            path=rel,
            french_suited=complete,
            renders_cleanly=complete,
            court_letters="JQK",
            suit_colours=2,
            index_corners=("tl", "br"),
            index_box=(0.0, 0.0, 0.0, 0.0),
            split=Split.TRAIN,
        )
        if complete:
            faces = DeckFaces.load(draft)
            corners, box = measure_index(faces)
            draft = DeckRecord(**{**draft.__dict__, "index_box": box, "index_corners": corners})
        if rid in old and not args.remeasure:
            draft = old[rid]
        elif rid in old:
            draft = DeckRecord(
                **{
                    **old[rid].__dict__,
                    "index_box": draft.index_box,
                    "index_corners": draft.index_corners,
                }
            )
        print(rid, complete, [round(v, 3) for v in draft.index_box], file=sys.stderr)
        records.append(draft)
    save_records(records, JSON_PATH)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
