"""What the camera reads in one frame, zone by zone."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from assistant.engine.cards import Card


def seat_zone(seat: int) -> str:
    """The key of a seat's card zone (seats numbered 0..n-1 clockwise, as in the engine)."""
    return f"seat{seat}.cards"


def bet_zone(seat: int) -> str:
    return f"seat{seat}.bet"


@dataclass(frozen=True)
class ZoneRead:
    """The cards and chips seen in one zone.

    ``face_up`` is sorted so that two reads of the same cards compare equal; ``chips`` is
    the number of chips counted there, or ``None`` when a stack's count could not be read.
    ``order`` holds the face-up cards as they lie from the player's left to right (the
    order they were dealt in a row); it does not take part in comparisons. Nor does
    ``unsure``: face-up cards seen but read less surely than a reading needs, each with
    how sure the reading was, surest first; they are offered to the dealer to confirm
    where a question is raised anyway, and never applied on their own. Nor does
    ``renamed``: face-up cards named otherwise than their zone read them, because another
    zone of the table holds that name (:mod:`assistant.pipeline.table_names`), each as
    (name given, name read); the referee puts them to the dealer to confirm.
    """

    face_up: tuple[Card, ...] = ()
    face_down: int = 0
    chips: int | None = 0
    order: tuple[Card, ...] = field(default=(), compare=False)
    unsure: tuple[tuple[Card, float], ...] = field(default=(), compare=False)
    renamed: tuple[tuple[Card, Card], ...] = field(default=(), compare=False)

    @classmethod
    def of(
        cls,
        face_up: Iterable[Card] = (),
        face_down: int = 0,
        chips: int | None = 0,
        unsure: Iterable[tuple[Card, float]] = (),
        renamed: Iterable[tuple[Card, Card]] = (),
    ) -> ZoneRead:
        """A reading; ``face_up`` in the order the cards lie, left to right, where known."""
        cards = tuple(face_up)
        return cls(
            tuple(sorted(cards, key=lambda c: c.sort_key)),
            face_down,
            chips,
            cards,
            _surest_first(unsure),
            tuple(renamed),
        )

    def with_unsure(self, more: Iterable[tuple[Card, float]]) -> ZoneRead:
        """This reading with ``more`` unsure reads joined in (each card at its surest)."""
        more = tuple(more)
        if not more:
            return self  # most frames: nothing read unsurely
        best = dict(self.unsure)
        for card, confidence in more:
            best[card] = max(best.get(card, 0.0), confidence)
        return replace(self, unsure=_surest_first(best.items()))

    def in_layout_order(self, cards: Iterable[Card]) -> list[Card]:
        """``cards`` sorted by where they lie in this zone (unplaced ones last, as given)."""
        place = {c: i for i, c in enumerate(self.order)}
        return sorted(cards, key=lambda c: place.get(c, len(place)))

    @property
    def empty(self) -> bool:
        return not self.face_up and not self.face_down and not self.chips

    @property
    def card_count(self) -> int:
        return len(self.face_up) + self.face_down


def _surest_first(guesses: Iterable[tuple[Card, float]]) -> tuple[tuple[Card, float], ...]:
    return tuple(sorted(guesses, key=lambda guess: -guess[1]))


EMPTY = ZoneRead()


@dataclass(frozen=True)
class TableRead:
    """One frame's reading: every zone that had something in it (absent zones are empty).

    ``occluded`` names zones the reader could not see this frame (a hand over them): their
    last stable reading stands.
    """

    frame: int
    time: float
    zones: Mapping[str, ZoneRead] = field(default_factory=dict)
    occluded: frozenset[str] = frozenset()

    def zone(self, key: str) -> ZoneRead:
        return self.zones.get(key, EMPTY)
