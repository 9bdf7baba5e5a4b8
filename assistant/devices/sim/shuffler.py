"""Simulated automatic shuffler/dealer with a 52-card shoe that reads each card."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from assistant.devices.protocol import Command, DeviceKind, EventKind, Nak
from assistant.devices.sim.core import Busy, DeviceCore, Outcome

RANKS = "A23456789TJQK"
SUITS = "cdhs"
DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)


class ShufflerCore(DeviceCore):
    """Commands: ``SHUFFLE``, ``DEAL <seat> <U|D>``, ``CLEAR``, ``STATUS``.

    ``DEAL`` answers ``OK <card> <left>`` once the card is out; a jam answers ``NAK JAM``
    (the card stays in the shoe) and raises a JAM event; ``CLEAR`` clears it.
    """

    kind = DeviceKind.SHUFFLER

    def __init__(
        self,
        uid: str,
        seats: int = 8,
        clock: Callable[[], float] = time.monotonic,
        *,
        deal_s: float = 0.15,
        shuffle_s: float = 0.6,
        seed: int | None = None,
        jam_rate: float = 0.0,
    ) -> None:
        self.deal_s = deal_s
        self.shuffle_s = shuffle_s
        self.jam_rate = jam_rate
        self._random = random.Random(seed)
        self.jam_next = False
        super().__init__(uid, seats, clock)

    def capabilities(self) -> tuple[str, ...]:
        return (str(self.seats), str(len(DECK)))

    def reset_device(self) -> None:
        self.shoe: list[str] = []
        self.jammed = False
        self.dealt: list[tuple[int, bool, str]] = []  # (seat, face_up, card) since SHUFFLE
        self.history: list[tuple[int, bool, str]] = []  # every card dealt since power-on

    def _status(self) -> str:
        if self.jammed:
            return "JAM"
        return "READY" if self.shoe else "EMPTY"

    def execute(self, command: Command) -> Outcome:
        verb, args = command.verb, command.args
        if verb == "STATUS" and not args:
            return (self._status(), str(len(self.shoe)), str(len(self.dealt)))
        if verb == "CLEAR" and not args:
            self.jammed = False
            return ()
        if verb == "SHUFFLE" and not args:
            if self.jammed:
                return Nak.JAM
            return Busy(self.shuffle_s, self._finish_shuffle)
        if verb == "DEAL":
            if (
                len(args) != 2
                or not args[0].isdigit()
                or int(args[0]) >= self.seats
                or args[1] not in ("U", "D")
            ):
                return Nak.ARGS
            if self.jammed:
                return Nak.JAM
            if not self.shoe:
                self.raise_event(EventKind.EMPTY)
                return Nak.EMPTY
            seat, face_up = int(args[0]), args[1] == "U"
            return Busy(self.deal_s, lambda: self._finish_deal(seat, face_up))
        return Nak.UNKNOWN

    def _finish_shuffle(self) -> tuple[str, ...]:
        self.shoe = list(DECK)
        self._random.shuffle(self.shoe)
        self.dealt = []
        return (str(len(self.shoe)),)

    def _finish_deal(self, seat: int, face_up: bool) -> tuple[str, ...] | Nak:
        if self.jam_next or (self.jam_rate and self._random.random() < self.jam_rate):
            self.jam_next = False
            self.jammed = True
            self.raise_event(EventKind.JAM)
            return Nak.JAM
        card = self.shoe.pop()
        self.dealt.append((seat, face_up, card))
        self.history.append((seat, face_up, card))
        return (card, str(len(self.shoe)))
