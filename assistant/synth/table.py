"""The table of a video fixture: the vision layout's seats, zones and markers, in world cm.

Seats, card zones, bet zones, pot, deck and ArUco markers come from
:func:`assistant.vision.default_layouts.oval_layout`, so the replay pipeline can
calibrate from the markers in the video and read zones where the layout puts them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from assistant.engine.cards import Card
from assistant.synth.camera import Camera
from assistant.synth.layout import CHIP_NAMES, SKINS, card_angle_facing
from assistant.synth.scene import CardItem, ChipStack, Decal
from assistant.synth.script import GameScript

STACK_MAX = 15


#: :func:`mm_to_world` as a homography of the table plane
MM_TO_WORLD = np.array([[0.1, 0.0, 0.0], [0.0, -0.1, 0.0], [0.0, 0.0, 1.0]])


def mm_to_world(point: tuple[float, float] | np.ndarray) -> np.ndarray:
    """Table millimetres of :mod:`assistant.vision.geometry` (y towards the near side) to
    the renderer's world centimetres (y away from the near side)."""
    return np.array([point[0] / 10.0, -point[1] / 10.0])


def rect_axes(angle_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """World unit vectors of a layout rectangle's own +x and +y (towards the player)."""
    a = math.radians(angle_deg)
    ex_mm, ey_mm = (math.cos(a), math.sin(a)), (-math.sin(a), math.cos(a))
    return np.array([ex_mm[0], -ex_mm[1]]), np.array([ey_mm[0], -ey_mm[1]])


@dataclass
class SeatModel:
    seat: int
    cards_at: np.ndarray  # world centre of the card zone
    bet_at: np.ndarray
    ex: np.ndarray  # along the zone, the player's left to right
    ey: np.ndarray  # towards the player
    colour: str
    stack: int
    bet: int = 0
    cards: list[tuple[Card, bool]] = field(default_factory=list)  # (true card, face up)
    folded: bool = False


class Table:
    """The physical table the video shows, laid out as :func:`oval_layout` places it."""

    def __init__(self, script: GameScript, width_cm: float) -> None:
        from assistant.vision.default_layouts import oval_layout

        n = len(script.players)
        rng = np.random.default_rng([script.seed, 1])
        self.layout = oval_layout(max(4, n))
        self.a = self.layout.table.width_mm / 20.0
        self.b = self.layout.table.depth_mm / 20.0
        self.width_cm = width_cm
        self.seats = []
        for k in range(n):
            zone = self.layout.seats[k]
            ex, ey = rect_axes(zone.card_zone.angle_deg)
            self.seats.append(
                SeatModel(
                    k,
                    mm_to_world(zone.card_zone.center),
                    mm_to_world(zone.bet_zone.center),
                    ex,
                    ey,
                    CHIP_NAMES[k % len(CHIP_NAMES)],
                    script.players[k][1],
                )
            )
        deck = self.layout.deck
        self.deck_pos = mm_to_world(deck.center)
        _, dy = rect_axes(deck.angle_deg)
        self.deck_angle = card_angle_facing(float(-dy[0]), float(-dy[1]))
        self.pot_at = mm_to_world(self.layout.pot.center)
        self.pot: dict[str, int] = {}
        self.skin = SKINS[int(rng.integers(len(SKINS)))]
        b, g, r = (int(v) for v in rng.integers(20, 200, 3))
        self.sleeve = (b, g, r)
        self.decals = marker_decals(self.layout)

    # geometry of places on the table
    def slot(self, seat: SeatModel, i: int) -> tuple[np.ndarray, float]:
        """Where a seat's ``i``-th card lies: a row along its card zone, read by the player."""
        ang = card_angle_facing(float(-seat.ey[0]), float(-seat.ey[1]))
        step = self.width_cm * 0.55
        start = seat.cards_at - seat.ex * (step * 3)
        return start + seat.ex * step * i, ang

    def stack_spot(self, seat: SeatModel, k: int) -> np.ndarray:
        """The player's own chips: between the card zone and the table edge."""
        return np.asarray(seat.cards_at + seat.ey * 10.5 + seat.ex * (k - 1.5) * 4.3, np.float64)

    def bet_spot(self, seat: SeatModel) -> np.ndarray:
        return np.asarray(seat.bet_at - seat.ex * 2.2, dtype=np.float64)

    def pot_spot(self, k: int) -> np.ndarray:
        col, row = k % 8, k // 8
        return np.asarray(self.pot_at + np.array([(col - 3.5) * 4.3, (row - 1) * 4.3]), np.float64)

    # drawable objects
    def items(self) -> tuple[list[CardItem], list[ChipStack]]:
        cards: list[CardItem] = []
        chips: list[ChipStack] = []
        for k in range(5):
            cards.append(
                CardItem(
                    None,
                    False,
                    float(self.deck_pos[0]),
                    float(self.deck_pos[1]),
                    self.deck_angle,
                    -10 + k,
                    lift=0.03 * k,
                    width_cm=self.width_cm,
                )
            )
        for s in self.seats:
            for i, (card, up) in enumerate(s.cards):
                pos, ang = self.slot(s, i)
                if s.folded:
                    pos = pos - (pos - self.slot(s, 0)[0]) * 0.85
                cards.append(
                    CardItem(
                        card,
                        up and not s.folded,
                        float(pos[0]),
                        float(pos[1]),
                        ang,
                        i,
                        width_cm=self.width_cm,
                        seat=s.seat,
                    )
                )
            chips.extend(self.stacks(s.stack, s.colour, [self.stack_spot(s, k) for k in range(8)], s.seat))
            if s.bet:
                chips.extend(
                    self.stacks(
                        s.bet,
                        s.colour,
                        [self.bet_spot(s) + s.ex * 4.3 * k for k in range(4)],
                        s.seat,
                    )
                )
        k = 0
        for colour, count in sorted(self.pot.items()):
            for stack in self.stacks(count, colour, [self.pot_spot(k + j) for j in range(20)], None):
                chips.append(stack)
                k += 1
        return cards, chips

    @staticmethod
    def stacks(count: int, colour: str, spots: list[np.ndarray], seat: int | None) -> list[ChipStack]:
        out = []
        k = 0
        while count > 0 and k < len(spots):
            n = min(STACK_MAX, count)
            p = spots[k]
            out.append(ChipStack(colour, n, float(p[0]), float(p[1]), 1000, phase=0.3 * k, seat=seat))
            count -= n
            k += 1
        return out


def layout_json(table: Table) -> dict[str, Any]:
    from assistant.vision.layout import layout_to_dict

    return layout_to_dict(table.layout)


def table_mm_to_px(cam: Camera) -> np.ndarray:
    """The homography of table millimetres to ``cam``'s (undistorted) pixels."""
    return np.asarray(cam.plane_homography() @ MM_TO_WORLD, dtype=np.float64)


def true_calibration(table: Table, cam: Camera) -> Any:
    """The exact :class:`~assistant.vision.calibration.Calibration` of ``cam`` over ``table``."""
    from assistant.vision.calibration import calibration_from_dict

    return calibration_from_dict(calibration_json(table, cam, table_mm_to_px(cam)))


def calibration_json(table: Table, cam: Camera, table_mm_to_px: np.ndarray) -> dict[str, Any]:
    """The true calibration, in the format of :mod:`assistant.vision.calibration`."""
    from assistant.vision.calibration import Calibration, calibration_to_dict

    image_to_table = np.linalg.inv(table_mm_to_px)
    image_to_table = image_to_table / image_to_table[2, 2]
    corners = {m.id: np.array(m.corners(), dtype=np.float64) for m in table.layout.markers}
    calibration = Calibration(
        layout=table.layout,
        image_to_table=image_to_table,
        image_size=(cam.width, cam.height),
        marker_corners_mm=corners,
        marker_residuals_mm=dict.fromkeys(corners, 0.0),
        rms_mm=0.0,
        distortion=cam.lens_k,
        source="synthetic (exact)",
        frame_index=0,
        created_utc="1970-01-01T00:00:00+00:00",
    )
    return calibration_to_dict(calibration)


def marker_decals(layout: Any) -> list[Decal]:
    """The layout's ArUco markers, printed with their white margin, lying on the table."""
    from assistant.vision.layout import marker_margin_mm
    from assistant.vision.markers import aruco_dictionary

    decals = []
    for m in layout.markers:
        margin = marker_margin_mm(m.size_mm)
        cells = 6
        px = 16 * cells
        marker = cv2.aruco.generateImageMarker(aruco_dictionary(), m.id, px, borderBits=1)
        pad = round(px * margin / m.size_mm)
        image = cv2.copyMakeBorder(marker, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        half = m.size_mm / 2 + margin
        a = math.radians(m.angle_deg)
        ex = np.array([math.cos(a), math.sin(a)])
        ey = np.array([-math.sin(a), math.cos(a)])
        c = np.array(m.center)
        corners_mm = [
            c - ex * half - ey * half,
            c + ex * half - ey * half,
            c + ex * half + ey * half,
            c - ex * half + ey * half,
        ]
        world = np.array([[*mm_to_world(p), 0.005] for p in corners_mm])
        decals.append(Decal(np.asarray(image, dtype=np.uint8), world))
    return decals
