"""Random scenes: a table of 4 to 10 seats as dealers lay it out, or a close-up photo.

Every random choice comes from the ``numpy.random.Generator`` passed in, so one seed
gives one scene.
"""

from __future__ import annotations

import math

import numpy as np

from assistant.engine.cards import Card
from assistant.synth.camera import Camera
from assistant.synth.effects import sample_light
from assistant.synth.scene import (
    CARD_HEIGHT_CM,
    CHIP_COLOURS,
    CardItem,
    ChipStack,
    Clutter,
    Hand,
    Scene,
)
from assistant.synth.surfaces import Surface
from assistant.synth.svgdeck import all_cards

CHIP_NAMES = tuple(CHIP_COLOURS)
SKINS = [(120, 160, 215), (95, 135, 190), (70, 100, 150), (50, 70, 105), (150, 185, 230)]
IMAGE_SIZES = [(640, 480), (640, 360), (640, 640)]


def card_angle_facing(ux: float, uy: float) -> float:
    """Angle of a card whose top points along (ux, uy)."""
    return math.atan2(-ux, uy)


def seat_geometry(
    n: int, a: float, b: float, phase: float
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per seat: the edge point, the unit vector towards the centre and the tangent."""
    out = []
    for k in range(n):
        phi = phase + 2 * math.pi * k / n
        edge = np.array([a * math.cos(phi), b * math.sin(phi)])
        u = -edge / np.linalg.norm(edge)
        t = np.array([u[1], -u[0]])
        out.append((edge, u, t))
    return out


def lay_row(
    rng: np.random.Generator,
    start: np.ndarray,
    u: np.ndarray,
    cards: list[Card | None],
    face_up: bool,
    width_cm: float,
    layer: int,
    seat: int | None,
    spacing: float,
    fan_deg: float,
) -> list[CardItem]:
    """Cards in a row from ``start``, each overlapping the previous from the card's right."""
    base = card_angle_facing(float(u[0]), float(u[1]))
    items = []
    right = np.array([math.cos(base), math.sin(base)])
    for i, card in enumerate(cards):
        ang = base - math.radians(fan_deg) * (i - (len(cards) - 1) / 2) + rng.normal(0, 0.04)
        pos = start + right * spacing * width_cm * i + rng.normal(0, 0.25, 2)
        pos = pos + u * (abs(i - (len(cards) - 1) / 2) ** 2 * math.radians(fan_deg) * 1.5)
        items.append(
            CardItem(
                card,
                face_up,
                float(pos[0]),
                float(pos[1]),
                float(ang),
                layer + i,
                width_cm=width_cm,
                seat=seat,
            )
        )
    return items


def chip_stack(
    rng: np.random.Generator,
    x: float,
    y: float,
    seat: int | None,
    layer: int = 1000,
    max_count: int = 20,
) -> ChipStack:
    return ChipStack(
        CHIP_NAMES[int(rng.integers(len(CHIP_NAMES)))],
        int(rng.integers(1, max_count + 1)),
        float(x),
        float(y),
        layer,
        phase=float(rng.uniform(0, 2 * math.pi)),
        seat=seat,
    )


def _colour(rng: np.random.Generator, low: int, high: int) -> tuple[int, int, int]:
    b, g, r = (int(v) for v in rng.integers(low, high, 3))
    return (b, g, r)


def random_hand(rng: np.random.Generator, tip: np.ndarray, from_dir: np.ndarray) -> Hand:
    base = tip + from_dir * rng.uniform(28, 45)
    return Hand(
        float(tip[0]),
        float(tip[1]),
        float(base[0]),
        float(base[1]),
        float(rng.uniform(2.0, 9.0)),
        SKINS[int(rng.integers(len(SKINS)))],
        _colour(rng, 20, 220),
        float(rng.uniform(8.0, 10.5)),
    )


def random_clutter(rng: np.random.Generator, x: float, y: float) -> Clutter:
    kind = ["cup", "phone", "paper", "glass"][int(rng.integers(4))]
    size = {"cup": 8.5, "phone": 15.0, "paper": 21.0, "glass": 7.0}[kind] * rng.uniform(0.85, 1.15)
    colour = (240, 240, 240) if kind == "paper" else _colour(rng, 30, 230)
    return Clutter(kind, float(x), float(y), float(rng.uniform(0, math.pi)), float(size), colour)


def _camera_target(rng: np.random.Generator, a: float, b: float, fill: float) -> tuple[float, float]:
    """Where the camera looks: the middle for wide views, anywhere on the table for close ones."""
    reach = max(0.0, 1.0 - fill) * 0.9
    phi = rng.uniform(0, 2 * math.pi)
    r = math.sqrt(rng.uniform(0, 1)) * reach
    return (float(a * r * math.cos(phi)), float(b * r * math.sin(phi)))


def table_scene(
    rng: np.random.Generator,
    surface: Surface,
    deck_id: str,
    aspect: float,
    size: tuple[int, int] | None = None,
) -> Scene:
    n = int(rng.integers(4, 11))
    a = (40 + 6 * n) * rng.uniform(0.9, 1.15)
    b = a * rng.uniform(0.6, 0.8)
    width_cm = CARD_HEIGHT_CM * aspect
    deck = list(all_cards())
    order = rng.permutation(len(deck))
    pool = [deck[i] for i in order]
    cards: list[CardItem] = []
    chips: list[ChipStack] = []
    seats = seat_geometry(n, a, b, float(rng.uniform(0, 2 * math.pi)))
    layer = 0
    for s, (edge, u, t) in enumerate(seats):
        zone = edge + u * rng.uniform(14, 20)
        if rng.random() < 0.12:  # folded: a messy face-down pile
            for _ in range(int(rng.integers(2, 5))):
                p = zone + rng.normal(0, 1.5, 2)
                cards.append(
                    CardItem(
                        None,
                        False,
                        float(p[0]),
                        float(p[1]),
                        float(rng.uniform(0, 2 * math.pi)),
                        layer,
                        width_cm=width_cm,
                        seat=s,
                    )
                )
                layer += 1
        else:
            n_down = int(rng.integers(1, 3))
            n_up = int(rng.integers(0, 6))
            spacing = rng.uniform(0.32, 0.7)
            fan = rng.uniform(0, 7) if rng.random() < 0.4 else 0.0
            total = (n_down + n_up - 1) * spacing * width_cm
            start = zone - t * total / 2
            down = lay_row(rng, start, u, [None] * n_down, False, width_cm, layer, s, spacing, fan)
            layer += n_down
            up_cards: list[Card | None] = [pool.pop() for _ in range(n_up)]
            up = lay_row(
                rng,
                start + t * spacing * width_cm * n_down,
                u,
                up_cards,
                True,
                width_cm,
                layer,
                s,
                spacing,
                fan,
            )
            layer += n_up
            cards.extend(down)
            cards.extend(up)
        for k in range(int(rng.integers(0, 4))):
            p = edge + u * rng.uniform(3, 7) + t * (k - 1) * 4.4 + rng.normal(0, 0.4, 2)
            chips.append(chip_stack(rng, p[0], p[1], s))
        if rng.random() < 0.4:
            p = zone + u * rng.uniform(9, 13) + rng.normal(0, 1, 2)
            chips.append(chip_stack(rng, p[0], p[1], s, max_count=6))
    for _ in range(int(rng.integers(1, 9))):
        p = rng.normal(0, [a * 0.12, b * 0.12])
        if all(math.hypot(p[0] - c.x, p[1] - c.y) > 4.1 for c in chips):
            chips.append(chip_stack(rng, p[0], p[1], None, max_count=15))
    # the deck, near the dealer
    edge, u, t = seats[0]
    dpos = edge + u * rng.uniform(30, 38) + t * rng.uniform(-8, 8)
    dang = float(rng.uniform(0, 2 * math.pi))
    for k in range(6):
        cards.append(
            CardItem(
                None,
                False,
                float(dpos[0] + rng.normal(0, 0.08)),
                float(dpos[1] + rng.normal(0, 0.08)),
                dang + float(rng.normal(0, 0.01)),
                500 + k,
                lift=0.03 * k,
                width_cm=width_cm,
            )
        )
    hands = []
    for _ in range(int(rng.choice([0, 1, 2, 3], p=[0.45, 0.35, 0.15, 0.05]))):
        s = int(rng.integers(n))
        edge, u, t = seats[s]
        targets = [c for c in cards if c.face_up] or cards
        target = targets[int(rng.integers(len(targets)))]
        tip = np.array([target.x, target.y]) + rng.normal(0, 4, 2)
        hands.append(random_hand(rng, tip, -u + rng.normal(0, 0.3, 2)))
    clutter = []
    for _ in range(int(rng.integers(0, 5))):
        phi = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(1.0, 1.2)
        clutter.append(random_clutter(rng, a * r * math.cos(phi), b * r * math.sin(phi)))
    w, h = size or IMAGE_SIZES[int(rng.integers(len(IMAGE_SIZES)))]
    hfov = float(rng.uniform(45, 85))
    fill = 0.2 + 0.8 * rng.uniform(0, 1) ** 1.5  # part of the table, more often close
    distance = (2 * a * fill * (w / max(w, h))) / (2 * math.tan(math.radians(hfov) / 2))
    tilt = float(rng.uniform(0, 45))
    camera = Camera.looking_at(
        w,
        h,
        hfov_deg=hfov,
        target=_camera_target(rng, a, b, fill),
        distance=float(distance),
        tilt_deg=tilt,
        yaw_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.normal(0, 4)),
        k1=float(rng.uniform(-0.05, 0.15)),
    )
    return Scene(camera, surface, deck_id, cards, chips, hands, clutter, (a, b), sample_light(rng))


def closeup_scene(
    rng: np.random.Generator,
    surface: Surface,
    deck_id: str,
    aspect: float,
    size: tuple[int, int] | None = None,
) -> Scene:
    """A few cards filling much of a hand-held photo, at any angle."""
    width_cm = CARD_HEIGHT_CM * aspect
    deck = list(all_cards())
    pool = [deck[i] for i in rng.permutation(len(deck))]
    n = int(rng.integers(1, 7))
    cards: list[CardItem] = []
    style = int(rng.integers(3))
    base = float(rng.uniform(0, 2 * math.pi))
    u = np.array([-math.sin(base), math.cos(base)])
    if style == 0:
        cards = lay_row(
            rng,
            np.zeros(2),
            u,
            [pool.pop() for _ in range(n)],
            True,
            width_cm,
            0,
            None,
            float(rng.uniform(0.3, 0.8)),
            0.0,
        )
    elif style == 1:
        cards = lay_row(
            rng,
            np.zeros(2),
            u,
            [pool.pop() for _ in range(n)],
            True,
            width_cm,
            0,
            None,
            float(rng.uniform(0.25, 0.45)),
            float(rng.uniform(6, 15)),
        )
    else:
        for i in range(n):
            p = rng.normal(0, 6, 2)
            cards.append(
                CardItem(
                    pool.pop(),
                    True,
                    float(p[0]),
                    float(p[1]),
                    float(rng.uniform(0, 2 * math.pi)),
                    i,
                    width_cm=width_cm,
                )
            )
    if rng.random() < 0.3:
        p = rng.normal(0, 8, 2)
        cards.append(
            CardItem(
                None,
                False,
                float(p[0]),
                float(p[1]),
                float(rng.uniform(0, 2 * math.pi)),
                -1,
                width_cm=width_cm,
            )
        )
    chips = []
    for _ in range(int(rng.integers(0, 3))):
        x, y = rng.normal(0, 12, 2)
        chips.append(chip_stack(rng, float(x), float(y), None))
    xs = [c.x for c in cards]
    ys = [c.y for c in cards]
    extent = max(max(xs) - min(xs), max(ys) - min(ys)) + CARD_HEIGHT_CM * 1.3
    centre = (float(np.mean(xs)), float(np.mean(ys)))
    w, h = size or [(640, 480), (480, 640), (640, 640)][int(rng.integers(3))]
    hfov = float(rng.uniform(50, 75))
    distance = extent * rng.uniform(0.9, 1.7) / (2 * math.tan(math.radians(hfov) / 2)) * (max(w, h) / w)
    hands = []
    if rng.random() < 0.25:
        c = cards[int(rng.integers(len(cards)))]
        hands.append(random_hand(rng, np.array([c.x, c.y]) + rng.normal(0, 3, 2), rng.normal(0, 1, 2) / 1.4))
    camera = Camera.looking_at(
        w,
        h,
        hfov_deg=hfov,
        target=centre,
        distance=float(distance),
        tilt_deg=float(rng.uniform(0, 55)),
        yaw_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.uniform(-180, 180)),
        k1=float(rng.uniform(-0.03, 0.08)),
    )
    return Scene(camera, surface, deck_id, cards, chips, hands, [], (40.0, 40.0), sample_light(rng))
