"""What lies on the table: cards, chip stacks, hands and clutter, in world centimetres.

A :class:`Scene` is plain data; :mod:`assistant.synth.layout` samples one and
:mod:`assistant.synth.render` draws it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from assistant.engine.cards import Card
from assistant.synth.camera import Camera
from assistant.synth.surfaces import Surface

CARD_HEIGHT_CM = 8.8
CHIP_RADIUS_CM = 1.95
CHIP_THICKNESS_CM = 0.33

#: Chip colours, in the order of their YOLO classes: name -> (body BGR, spot BGR).
CHIP_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "white": ((225, 225, 220), (60, 60, 200)),
    "red": ((40, 35, 190), (235, 235, 235)),
    "blue": ((170, 80, 25), (235, 235, 235)),
    "green": ((50, 130, 30), (235, 235, 235)),
    "black": ((30, 30, 30), (235, 235, 235)),
    "purple": ((120, 40, 110), (235, 235, 235)),
    "yellow": ((40, 200, 230), (70, 70, 70)),
}


@dataclass
class CardItem:
    """A card lying on the table (or lifted ``lift`` cm above it)."""

    card: Card | None  # None: identity unknown (a face-down card nobody has seen)
    face_up: bool
    x: float
    y: float
    angle: float  # radians; 0 = card upright with its top towards +y
    layer: int = 0
    lift: float = 0.0
    width_cm: float = 6.3
    seat: int | None = None

    def corners(self) -> npt.NDArray[np.float64]:
        """World corners (4, 3) in face order: top-left, top-right, bottom-right, bottom-left."""
        return self.points(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))

    def points(self, uv: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """World points of card-face fractions ``uv`` (N, 2); (0, 0) is the face's top left."""
        c, s = math.cos(self.angle), math.sin(self.angle)
        local_x = (uv[:, 0] - 0.5) * self.width_cm
        local_y = (0.5 - uv[:, 1]) * CARD_HEIGHT_CM
        wx = self.x + c * local_x - s * local_y
        wy = self.y + s * local_x + c * local_y
        return np.column_stack([wx, wy, np.full(len(uv), self.lift)])


@dataclass
class ChipStack:
    colour: str
    count: int
    x: float
    y: float
    layer: int = 0
    lift: float = 0.0
    phase: float = 0.0  # rotation of the edge spots, radians
    seat: int | None = None  # None: the pot


@dataclass
class Hand:
    """A hand reaching in from ``(bx, by)`` (sleeve end) to fingertips near ``(x, y)``."""

    x: float
    y: float
    bx: float
    by: float
    height: float = 4.0
    skin: tuple[int, int, int] = (150, 180, 220)
    sleeve: tuple[int, int, int] = (60, 60, 60)
    width: float = 9.0


@dataclass
class Clutter:
    kind: str  # "cup", "phone", "paper", "glass"
    x: float
    y: float
    angle: float
    size: float
    colour: tuple[int, int, int]


@dataclass
class Decal:
    """Something flat printed on the table (a calibration marker): an image on a quad."""

    image: npt.NDArray[np.uint8]  # BGR
    corners: npt.NDArray[np.float64]  # (4, 3) world: top-left, top-right, bottom-right, bottom-left


@dataclass
class Scene:
    camera: Camera
    surface: Surface
    deck_id: str
    cards: list[CardItem] = field(default_factory=list)
    chips: list[ChipStack] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)
    clutter: list[Clutter] = field(default_factory=list)
    table: tuple[float, float] = (90.0, 60.0)  # half axes of the table ellipse, cm
    light: dict[str, float] = field(default_factory=dict)
    decals: list[Decal] = field(default_factory=list)
