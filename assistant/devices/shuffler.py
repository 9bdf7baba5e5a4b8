"""Host-side client of the card shuffler/dealer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from assistant.devices.link import DeviceError, DeviceIdentity, DeviceLink
from assistant.devices.protocol import DeviceKind, Event, EventKind


@dataclass(frozen=True, slots=True)
class DealtCard:
    """A card the shuffler put in front of ``seat``; ``card`` is None if it could not read it."""

    seat: int
    face_up: bool
    card: str | None
    left: int


@dataclass(frozen=True, slots=True)
class ShufflerStatus:
    state: str  # READY, EMPTY or JAM
    left: int
    dealt: int  # cards dealt since the last shuffle


class Shuffler:
    """Shuffle and deal over the line protocol. ``deal`` may be retried safely: the device
    answers a resent line from its cache. Jams and an empty shoe raise ``DeviceRefused``
    and are also reported to ``fault_listeners`` as they happen."""

    def __init__(self, link: DeviceLink) -> None:
        if link.identity is None or link.identity.kind is not DeviceKind.SHUFFLER:
            raise DeviceError(f"{link.transport.name} is not a shuffler")
        self.link = link
        self.identity: DeviceIdentity = link.identity
        self.fault_listeners: list[Callable[[EventKind], None]] = []
        self.rebooted = False  # set when the device restarted: its shoe must be reloaded
        link.add_event_listener(self._on_event)

    @property
    def seats(self) -> int:
        return self.identity.seats

    def shuffle(self) -> int:
        """Shuffle a full shoe; returns the number of cards in it."""
        self.rebooted = False
        return int(self.link.request("SHUFFLE")[0])

    def deal(self, seat: int, face_up: bool) -> DealtCard:
        if not 0 <= seat < self.seats:
            raise ValueError(f"seat {seat} is out of range for {self.seats} seats")
        card, left = self.link.request("DEAL", str(seat), "U" if face_up else "D")[:2]
        return DealtCard(seat, face_up, None if card == "??" else card, int(left))

    def clear(self) -> None:
        """The dealer fixed a jam."""
        self.link.request("CLEAR")

    def status(self) -> ShufflerStatus:
        state, left, dealt = self.link.request("STATUS")[:3]
        return ShufflerStatus(state, int(left), int(dealt))

    def close(self) -> None:
        self.link.close()

    def _on_event(self, event: Event) -> None:
        if event.kind is EventKind.BOOT:
            self.rebooted = True
        if event.kind in (EventKind.JAM, EventKind.EMPTY, EventKind.BOOT):
            for listener in list(self.fault_listeners):
                listener(event.kind)
