"""Class names shared by the detector, the readers and their training code."""

from __future__ import annotations

#: Classes of the stage-1 detector, in the order of ``dealer-assistant synth dataset``.
CHIP_COLOURS: tuple[str, ...] = ("white", "red", "blue", "green", "black", "purple", "yellow")
#: Classes of the card finder (a pose model of whole photos; cards and backs carry corners).
FINDER_CLASSES: tuple[str, ...] = ("card", "face_down", *(f"chips_{c}" for c in CHIP_COLOURS))
DETECTOR_CLASSES: tuple[str, ...] = (
    "card",
    "index",
    "face_down",
    *(f"chips_{c}" for c in CHIP_COLOURS),
)

#: Ranks and suits as the rules engine writes them (``"Th"`` is the ten of hearts).
RANKS = "A23456789TJQK"
SUITS = "cdhs"

#: Largest chip count the chip reader tells apart; class 0 of that reader means unknown.
MAX_CHIPS = 20


def card_name(rank_index: int, suit_index: int) -> str:
    """``card_name(11, 2) == "Qh"``."""
    return RANKS[rank_index] + SUITS[suit_index]


def chip_colour(class_name: str) -> str | None:
    """``"chips_red" -> "red"``; ``None`` for a class that is not a chip stack."""
    return class_name.removeprefix("chips_") if class_name.startswith("chips_") else None
