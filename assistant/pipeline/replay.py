"""One pipeline for a live camera and a recorded video: frames in, game events out.

Per frame: the zones are rectified to a fixed scale (a seat's cards with a margin of
table around them, so a card across the zone's edge is seen whole), the zones whose
pixels changed or whose reading has not settled go through the detector in one batch,
each zone's cards are named by the card memory, no two zones keep one name
(:mod:`assistant.pipeline.table_names`), the readings pass the hysteresis, and the
referee turns stable changes into engine events. Dealer inputs (from the dashboard, or from a
recording's sidecar) are applied at their frame.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from assistant.engine.actions import event_to_action
from assistant.engine.errors import IllegalActionError
from assistant.engine.session import Session
from assistant.pipeline.memory import CardMemory
from assistant.pipeline.observations import TableRead, ZoneRead
from assistant.pipeline.referee import Applied, DealerQuery, Referee
from assistant.pipeline.sidecar import Sidecar
from assistant.pipeline.stability import DEFAULT_HOLD_S, StableTable
from assistant.pipeline.table_names import name_table
from assistant.pipeline.zones import (
    card_zone_margins,
    detected_boxes,
    layout_zone_keys,
    read_zone,
    within,
)
from assistant.recording import hand_summary
from assistant.vision.calibration import Calibration
from assistant.vision.motion import MotionGate
from assistant.vision.occlusion import OcclusionCheck
from assistant.vision.rectify import ZoneCrop, ZoneRectifier
from assistant.vision.sources import Frame, FrameSource, SourceError


class StackCounting(Protocol):
    """Finds and counts a zone's chip stacks from the camera's frame
    (:class:`assistant.detect.stack_counter.StackCounter`): the zone's chips in the
    ``detect --json`` shape, given what the zone detector found."""

    def chips_in_crop(
        self, frame: NDArray[np.uint8], crop: ZoneCrop, found: Sequence[dict[str, Any]]
    ) -> list[dict[str, Any]]: ...


class ZoneDetector(Protocol):
    """Anything that reads a batch of zone crops into ``detect --json`` shaped dicts."""

    def detect_batch(self, images: Sequence[NDArray[np.uint8]]) -> list[dict[str, Any]]: ...


@dataclass
class ReplayReport:
    frames: int = 0
    source_fps: float = 0.0
    seconds: float = 0.0
    detector_calls: int = 0
    zones_detected: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)
    hands: list[dict[str, Any]] = field(default_factory=list)
    stopped: str | None = None

    @property
    def fps(self) -> float:
        return self.frames / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "frames": self.frames,
            "source_fps": self.source_fps,
            "processing_fps": round(self.fps, 2),
            "events": self.events,
            "queries": self.queries,
            "hands": self.hands,
        }
        if self.hands:
            out["result"] = self.hands[-1]
            out["awards"] = self.hands[-1]["awards"]
        if self.stopped:
            out["stopped"] = self.stopped
        return out


class TablePipeline:
    """Frames to events for one calibrated table and one session."""

    def __init__(
        self,
        session: Session,
        calibration: Calibration,
        detector: ZoneDetector,
        *,
        hold_s: float = DEFAULT_HOLD_S,
        mm_per_px: float = 1.0,
        read_bets: bool = True,
        counter: StackCounting | None = None,
    ) -> None:
        self.session = session
        self.counter = counter
        self.referee = Referee(session, read_bets=read_bets)
        self.detector = detector
        seat_numbers = [seat.number for seat in calibration.layout.seats]
        self.keys = {
            key: zone
            for key, zone in layout_zone_keys(seat_numbers).items()
            if read_bets or key.endswith(".cards")
        }
        zones = {key: rect for key, rect in calibration.layout.zones().items() if key in self.keys}
        margins = card_zone_margins(zones)
        self.rectifier = ZoneRectifier(calibration, zones, mm_per_px=mm_per_px, margins=margins)
        self.gate = MotionGate()
        self.occlusion = OcclusionCheck()
        self.occluded: set[str] = set()
        self.memory = CardMemory()
        self.stable = StableTable(hold=hold_s)
        self.seen: dict[str, dict[str, Any]] = {}  # each zone's detections, named by the memory
        self.reads: dict[str, ZoneRead] = {}
        self.detector_calls = 0
        self.zones_detected = 0

    def process(self, frame: Frame) -> list[Applied | DealerQuery]:
        crops = self.rectifier.rectify(frame.image)
        # a zone whose last reading is not settled (something over it, or a new reading
        # not yet held) is read again even if still: the next frame may read it whole
        changed = [
            crop
            for crop in crops
            if self.gate.changed(crop.key, crop.image) or self._unsettled(self.keys[crop.key])
        ]
        if changed:
            detections = self.detector.detect_batch([crop.image for crop in changed])
            self.detector_calls += 1
            self.zones_detected += len(changed)
            for crop, found in zip(changed, detections, strict=True):
                self._take(crop, self._counted(frame.image, crop, found))
            # no two zones hold one card: where two read one name, one takes its next name
            for key, named in name_table(self.seen).items():
                self.reads[key] = read_zone(named)
        read = TableRead(frame.index, frame.timestamp_s, dict(self.reads), frozenset(self.occluded))
        changes = self.stable.update(read)
        return self.referee.on_changes(changes, self.stable.stable)

    def _counted(self, image: NDArray[np.uint8], crop: ZoneCrop, found: dict[str, Any]) -> dict[str, Any]:
        """The detections with the zone's chip stacks found and counted from their side in
        the frame, where a stack counter is given (the zone crop alone cannot count a stack
        seen obliquely)."""
        if self.counter is None or not self.keys[crop.key].endswith(".bet"):
            return found
        return {**found, "chips": self.counter.chips_in_crop(image, crop, found.get("chips") or [])}

    def _take(self, crop: ZoneCrop, found: dict[str, Any]) -> None:
        """A zone's detections: what lies in the zone is its reading, unless something
        the detector does not know covers the zone (then the last reading stands)."""
        key = self.keys[crop.key]
        own = within(found, crop.inner)  # keeps only items with a box
        empty = not any(own.get(group) for group in ("cards", "face_down", "chips"))
        x1, y1, x2, y2 = crop.inner
        # everything found masks the zone's look, whether it belongs to the zone or not
        boxes = [[bx1 - x1, by1 - y1, bx2 - x1, by2 - y1] for bx1, by1, bx2, by2 in detected_boxes(found)]
        if self.occlusion.check(crop.key, crop.image[y1:y2, x1:x2], boxes, empty=empty):
            self.occluded.add(key)  # a hand over the zone: its reading says nothing
        else:
            self.occluded.discard(key)
            self.seen[key] = self.memory.recall(key, own)

    def _unsettled(self, key: str) -> bool:
        return key in self.occluded or self.stable.pending(key)


def _record(report: ReplayReport, outcome: Applied | DealerQuery, session: Session) -> None:
    if isinstance(outcome, Applied):
        report.events.append(
            {"frame": outcome.frame, "action": event_to_action(outcome.event), "source": outcome.source}
        )
        state = session.state
        if state.hand_done and state.result is not None:
            summary = hand_summary(state)
            if not report.hands or report.hands[-1]["hand"] != summary["hand"]:
                report.hands.append(summary)
    else:
        report.queries.append(
            {
                "frame": outcome.frame,
                "zone": outcome.zone,
                "message": outcome.message,
                "proposed": [event_to_action(e) for e in outcome.proposed],
            }
        )


def replay(
    source: FrameSource,
    calibration: Calibration,
    sidecar: Sidecar,
    detector: ZoneDetector,
    *,
    hold_s: float = DEFAULT_HOLD_S,
    progress: Callable[[int], None] | None = None,
    counter: StackCounting | None = None,
) -> ReplayReport:
    """Run a recorded session through the pipeline; keeps everything read so far if the
    video stops early (``report.stopped`` says why)."""
    session = Session.new(sidecar.rules, sidecar.stakes, sidecar.players, sidecar.dealer)
    pipeline = TablePipeline(
        session,
        calibration,
        detector,
        hold_s=hold_s,
        read_bets=sidecar.bets_from_camera,
        counter=counter if sidecar.bets_from_camera else None,
    )
    report = ReplayReport(source_fps=float(getattr(source, "fps", 0.0) or 0.0))
    pending = list(sidecar.inputs)
    started = time.perf_counter()

    def dealer_inputs_until(frame_index: int) -> None:
        while pending and pending[0].frame <= frame_index:
            item = pending.pop(0)
            try:
                outcome: Applied | DealerQuery = pipeline.referee.dealer(item.event, item.frame)
            except IllegalActionError as error:
                outcome = DealerQuery(item.frame, "dealer", f"sidecar input refused: {error}", (item.event,))
            _record(report, outcome, session)

    try:
        while True:
            frame = source.read()
            if frame is None:
                break
            dealer_inputs_until(frame.index)
            for outcome in pipeline.process(frame):
                _record(report, outcome, session)
            report.frames += 1
            if progress is not None:
                progress(frame.index)
    except SourceError as error:
        report.stopped = str(error)
    dealer_inputs_until(10**12)
    report.seconds = time.perf_counter() - started
    report.detector_calls = pipeline.detector_calls
    report.zones_detected = pipeline.zones_detected
    return report
