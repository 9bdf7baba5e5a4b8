"""Hysteresis: a zone's reading counts only after it has persisted.

A hand passing over the cards, a flicker of the detector or a card still sliding
changes a zone's reading for a few frames; only a reading that stays the same for
``hold`` seconds of video time becomes the zone's stable state, and only then is a
change reported. Occluded zones keep their stable state.
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant.pipeline.observations import EMPTY, TableRead, ZoneRead


@dataclass(frozen=True)
class ZoneChange:
    zone: str
    before: ZoneRead
    after: ZoneRead
    frame: int  # the frame at which the new reading became stable
    since_frame: int  # the first frame of the new reading
    time: float
    since_time: float


@dataclass
class _Candidate:
    read: ZoneRead
    frame: int
    time: float


#: How long a new reading must persist before it counts. A hand over a zone is caught by
#: the occlusion check (:mod:`assistant.vision.occlusion`), so the hold only has to
#: outlast a misread frame: two agreeing frames at 10 fps, four at 30 fps.
DEFAULT_HOLD_S = 0.1


class StableTable:
    """Tracks every zone's stable reading.

    >>> from assistant.engine.cards import parse_card
    >>> table = StableTable(hold=0.2)
    >>> ace = ZoneRead.of([parse_card("Ah")])
    >>> [len(table.update(TableRead(f, f / 10, {"seat1.cards": ace}))) for f in range(4)]
    [0, 0, 1, 0]
    >>> table.reading("seat1.cards") == ace
    True
    """

    def __init__(self, hold: float = DEFAULT_HOLD_S, zones: tuple[str, ...] = ()) -> None:
        if hold < 0:
            raise ValueError("hold must be zero or more seconds")
        self.hold = hold
        self.stable: dict[str, ZoneRead] = {zone: EMPTY for zone in zones}
        self._candidates: dict[str, _Candidate] = {}

    def reading(self, zone: str) -> ZoneRead:
        return self.stable.get(zone, EMPTY)

    def pending(self, zone: str) -> bool:
        """Whether ``zone`` has a new reading that has not yet held long enough."""
        return zone in self._candidates

    def update(self, read: TableRead) -> list[ZoneChange]:
        """Feed one frame; returns the changes that became stable with it."""
        changes: list[ZoneChange] = []
        for zone in sorted(set(self.stable) | set(read.zones) | set(self._candidates)):
            if zone in read.occluded:
                self._candidates.pop(zone, None)
                continue
            seen = read.zone(zone)
            current = self.stable.get(zone, EMPTY)
            if seen == current:
                self._candidates.pop(zone, None)
                continue
            candidate = self._candidates.get(zone)
            if candidate is None or candidate.read != seen:
                candidate = _Candidate(seen, read.frame, read.time)
                self._candidates[zone] = candidate
            else:  # the cards read unsurely on any frame of the new reading
                candidate.read = candidate.read.with_unsure(seen.unsure)
            if read.time - candidate.time >= self.hold - 1e-9:
                seen = seen.with_unsure(candidate.read.unsure)
                self.stable[zone] = seen
                del self._candidates[zone]
                changes.append(
                    ZoneChange(zone, current, seen, read.frame, candidate.frame, read.time, candidate.time)
                )
        return changes
