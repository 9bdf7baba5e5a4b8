"""Photos of a whole deck laid out to be scanned, as a dealer takes them for ``deck scan``.

The 52 faces (and one card face down, for the back) lie in a grid of up to twelve cards a
photo, not touching, each a little askew and either way up, photographed from above by a
hand-held camera (tilted up to 25 degrees, squared to the layout within a few) on the
surfaces of one split, under the renderer's light and camera effects. Each photo's truth
records every card's name and corners, so a scan can be checked against it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from assistant.engine.cards import Card
from assistant.synth.camera import Camera
from assistant.synth.dataset import deck_faces
from assistant.synth.decks import Split
from assistant.synth.effects import sample_light
from assistant.synth.render import render
from assistant.synth.scene import CARD_HEIGHT_CM, CardItem, Scene
from assistant.synth.surfaces import sample_surface
from assistant.synth.svgdeck import all_cards
from assistant.synth.zones import one_deck

PER_PHOTO = 12
COLUMNS = 4
GAP_CM = 1.6
SIZES = ((1280, 960), (960, 1280), (1600, 1200))
TRUTH = "truth.json"


def write_scan_photos(
    deck_id: str,
    out: Path,
    seed: int = 0,
    surfaces: Split = Split.HELD_OUT,
    only: Sequence[str] = (),
) -> list[Path]:
    """Render the photos of deck ``deck_id`` laid out for a scan into ``out`` (``scan-NN.jpg``
    and ``truth.json``: per photo, each card's name, "back" for the face-down one, and its
    corners top-left, top-right, bottom-right, bottom-left of its face in photo pixels).
    ``only``: those cards alone, face up, and "back" for one face down (a dealer's new photo
    of them for ``deck retake``)."""
    record = one_deck(deck_id)
    faces = deck_faces(record)
    w, h = faces.size
    width_cm = CARD_HEIGHT_CM * w / h
    rng = np.random.default_rng([seed, 46])
    deck = all_cards()
    cards: list[Card | None]
    if only:
        names: dict[str, Card | None] = {str(card): card for card in deck} | {"back": None}
        unknown = [name for name in only if name not in names]
        if unknown:
            raise ValueError(f"not card names: {', '.join(unknown)} (A 2-9 T J Q K and c d h s, or back)")
        cards = [names[name] for name in only]
    else:
        cards = [deck[int(i)] for i in rng.permutation(len(deck))] + [None]
    # a whole deck in rows of four from the photo's middle row; a few cards centred
    columns = min(COLUMNS, len(only)) if only else COLUMNS
    middle_row = (math.ceil(min(len(only), PER_PHOTO) / columns) - 1) / 2 if only else 1.0
    out.mkdir(parents=True, exist_ok=True)
    truth: dict[str, list[dict[str, object]]] = {}
    written = []
    for p in range(math.ceil(len(cards) / PER_PHOTO)):
        items = []
        for k, card in enumerate(cards[p * PER_PHOTO : (p + 1) * PER_PHOTO]):
            row, col = divmod(k, columns)
            x = (col - (columns - 1) / 2) * (width_cm + GAP_CM) + float(rng.normal(0, 0.3))
            y = (middle_row - row) * (CARD_HEIGHT_CM + GAP_CM) + float(rng.normal(0, 0.3))
            angle = float(rng.normal(0, 0.08)) + (math.pi if rng.random() < 0.5 else 0.0)
            items.append(CardItem(card, card is not None, x, y, angle, k, width_cm=width_cm))
        size = SIZES[int(rng.integers(len(SIZES)))]
        surface = sample_surface(rng, surfaces)
        hfov = float(rng.uniform(55, 70))
        extent = COLUMNS * (width_cm + GAP_CM) * 1.15
        camera = Camera.looking_at(
            size[0],
            size[1],
            hfov_deg=hfov,
            target=(0.0, 0.0),
            distance=extent / (2 * math.tan(math.radians(hfov) / 2)) * size[0] / min(size),
            tilt_deg=float(rng.uniform(0, 25)),
            yaw_deg=float(90 * rng.integers(4) + rng.normal(0, 8)),
            roll_deg=float(rng.normal(0, 5)),
            k1=float(rng.uniform(-0.03, 0.05)),
        )
        light = sample_light(rng, strong=False)
        scene = Scene(camera, surface, record.id, items, [], [], [], (60.0, 60.0), light)
        rendered = render(scene, faces, rng)
        path = out / f"scan-{p:02d}.jpg"
        if not cv2.imwrite(str(path), rendered.image, [cv2.IMWRITE_JPEG_QUALITY, 90]):
            raise OSError(f"cannot write {path}")
        written.append(path)
        truth[path.name] = [
            {
                "card": str(item.card) if item.card is not None else "back",
                "corners": np.round(camera.project(item.corners()), 2).tolist(),
            }
            for item in items
        ]
    (out / TRUTH).write_text(json.dumps(truth) + "\n")
    return written
