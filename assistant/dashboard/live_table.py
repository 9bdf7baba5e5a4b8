"""Camera reads for the dashboard, without Qt: frames through the table pipeline.

:class:`LiveTable` runs each frame through :class:`~assistant.pipeline.replay.TablePipeline`
(rectified zones, detector, hysteresis, referee), keeps what the detector last said in
every zone as boxes in the frame's pixels (for drawing), and watches the markers for a
bumped camera (:class:`~assistant.vision.bump.BumpMonitor`). While the camera is bumped,
or its frames do not match the calibration's size, nothing is read: the game stays as it
is and the dealer carries on by hand until the camera is recalibrated.

What the referee could not apply comes back as :class:`DealerQuery` objects; the dealer
confirms one with :func:`apply_proposed`, which applies all its events or none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from assistant.dashboard.camera_view import Overlay, Zone
from assistant.engine import Event, IllegalActionError, Session
from assistant.pipeline.referee import Applied, DealerQuery
from assistant.pipeline.replay import StackCounting, TablePipeline, ZoneDetector
from assistant.pipeline.zones import within
from assistant.vision.bump import BumpCheck, BumpMonitor, CameraStatus
from assistant.vision.calibration import Calibration
from assistant.vision.geometry import Rect
from assistant.vision.rectify import ZoneCrop, ZoneRectifier
from assistant.vision.sources import Frame

Image = NDArray[np.uint8]

CARD_COLOR = (40, 220, 90)
DOWN_COLOR = (90, 160, 255)
CHIP_COLOR = (255, 140, 40)
ZONE_COLORS = {"cards": (250, 200, 40), "bet": (80, 200, 230)}


def load_detector(models: Path | None = None) -> tuple[ZoneDetector | None, str]:
    """The card detector from ``models`` (default: the project's ``models/``), or None and
    a sentence for the dealer saying why camera reads are off."""
    try:
        from assistant.detect.pipeline import MODELS_DIR, CardDetector
    except ImportError as error:
        return None, f"no card detector in this installation ({error}): camera reads are off"
    folder = models if models is not None else MODELS_DIR
    try:
        detector = CardDetector.for_zones(folder).learning_reader_trust()  # one session, one deck
    except FileNotFoundError as error:  # ModelMissingError included
        return None, f"no detector model: {error}; camera reads are off, enter cards by hand"
    except Exception as error:  # a damaged model file: say so, the game goes on by hand
        return None, f"cannot load the detector from {folder}: {error}; enter cards by hand"
    from assistant.detect.deck_learning import deck_note
    from assistant.pipeline.cli import DetectorAdapter

    note = deck_note(folder)
    return DetectorAdapter(detector), f"detector loaded from {folder}" + (f"; {note}" if note else "")


def load_counter(models: Path | None, calibration: Calibration) -> tuple[StackCounting | None, str]:
    """The stack counter from ``models`` for this camera, or None and why (chip counts
    are then entered by the dealer)."""
    try:
        from assistant.detect.pipeline import MODELS_DIR
        from assistant.detect.stack_counter import load_stack_counter
    except ImportError as error:
        return None, f"no stack counter in this installation ({error}): enter bets by hand"
    folder = models if models is not None else MODELS_DIR
    try:
        counter = load_stack_counter(folder, calibration)
    except Exception as error:  # a damaged model file: say so, bets are entered by hand
        return None, f"cannot load the stack counter from {folder}: {error}; enter bets by hand"
    if counter is None:
        return None, f"no stack counter in {folder}: enter bets by hand"
    return counter, ""


def _outline(rect: Rect, per_edge: int) -> list[tuple[float, float]]:
    corners = rect.corners()
    points: list[tuple[float, float]] = []
    for (x1, y1), (x2, y2) in zip(corners, [*corners[1:], corners[0]], strict=True):
        for step in range(per_edge):
            t = step / per_edge
            points.append((x1 + (x2 - x1) * t, y1 + (y2 - y1) * t))
    return points


def zone_outlines(
    calibration: Calibration, keys: Iterable[str] | None = None, per_edge: int = 8
) -> list[Zone]:
    """The layout's zones as polygons in image pixels (edges sampled, so a lens's
    distortion bends them as it bends the table)."""
    zones = calibration.layout.zones()
    wanted = list(zones) if keys is None else [key for key in keys if key in zones]
    outlines = []
    for key in wanted:
        table_mm = np.asarray(_outline(zones[key], per_edge), dtype=np.float64)
        pixels = calibration.to_image(table_mm)
        kind = key.rpartition(".")[2]
        outlines.append(
            Zone(
                key,
                tuple((float(x), float(y)) for x, y in pixels),
                ZONE_COLORS.get(kind, (170, 170, 170)),
            )
        )
    return outlines


def detection_overlays(crop: ZoneCrop, found: Mapping[str, Any], calibration: Calibration) -> list[Overlay]:
    """A zone's detections (boxes in crop pixels) as boxes in the frame's pixels."""
    items: list[tuple[Sequence[float], str, tuple[int, int, int]]] = []
    for card in found.get("cards", []):
        items.append((card["box"], str(card.get("card", "?")), CARD_COLOR))
    for down in found.get("face_down", []):
        items.append((down["box"], "down", DOWN_COLOR))
    for stack in found.get("chips", []):
        count = stack.get("count")
        items.append(
            (stack["box"], f"{'?' if count is None else count} {stack.get('colour', '')}", CHIP_COLOR)
        )
    overlays = []
    for box, label, color in items:
        x1, y1, x2, y2 = (float(v) for v in box)
        corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=np.float64)
        pixels = calibration.to_image(crop.to_table(corners))
        (left, top), (right, bottom) = pixels.min(axis=0), pixels.max(axis=0)
        overlays.append(Overlay((float(left), float(top), float(right), float(bottom)), label.strip(), color))
    return overlays


class RecordingRectifier(ZoneRectifier):
    """A rectifier that remembers the crops it made, so detections can be traced back to
    their zone (the pipeline hands the detector the crops' own arrays)."""

    def __init__(
        self,
        calibration: Calibration,
        zones: Mapping[str, Rect],
        *,
        mm_per_px: float,
        margins: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        super().__init__(calibration, zones, mm_per_px=mm_per_px, margins=margins)
        self.made: dict[int, ZoneCrop] = {}

    def like(self, calibration: Calibration) -> RecordingRectifier:
        """The same zones, scale and margins through another calibration."""
        return RecordingRectifier(calibration, self.zones, mm_per_px=self.mm_per_px, margins=self.margins)

    def rectify(self, image: Image, keys: Iterable[str] | None = None) -> list[ZoneCrop]:
        crops = super().rectify(image, keys)
        self.made = {id(crop.image): crop for crop in crops}
        return crops


class _WatchedDetector:
    """Passes crops to the real detector and keeps, per zone, what it found."""

    def __init__(self, detector: ZoneDetector, table: LiveTable) -> None:
        self.detector = detector
        self.table = table

    def detect_batch(self, images: Sequence[Image]) -> list[dict[str, Any]]:
        found = self.detector.detect_batch(images)
        self.table.record(images, found)
        return found


@dataclass
class FrameReading:
    """What one frame gave: engine events applied, questions, the boxes to draw."""

    outcomes: list[Applied | DealerQuery] = field(default_factory=list)
    overlays: list[Overlay] = field(default_factory=list)
    bump: BumpCheck | None = None
    paused: str = ""  # why nothing was read, when nothing was


class LiveTable:
    """One calibrated camera over one session: frames in, events and questions out."""

    def __init__(
        self,
        session: Session,
        calibration: Calibration,
        detector: ZoneDetector,
        *,
        hold_s: float = 0.1,
        watch_bumps: bool = True,
        bump_interval: int = 15,
        counter: StackCounting | None = None,
    ) -> None:
        self.session = session
        self.calibration = calibration
        self.pipeline = TablePipeline(
            session, calibration, _WatchedDetector(detector, self), hold_s=hold_s, counter=counter
        )
        made = self.pipeline.rectifier
        self.rectifier = RecordingRectifier(
            calibration, made.zones, mm_per_px=made.mm_per_px, margins=made.margins
        )
        self.pipeline.rectifier = self.rectifier
        self.zones = zone_outlines(calibration, self.rectifier.zones)
        self.monitor = BumpMonitor(calibration, interval=bump_interval) if watch_bumps else None
        self.bumped: BumpCheck | None = None
        self.boxes: dict[str, list[Overlay]] = {}

    def record(self, images: Sequence[Image], found: Sequence[Mapping[str, Any]]) -> None:
        for image, detections in zip(images, found, strict=False):
            crop = self.rectifier.made.get(id(image))
            if crop is not None:  # what lies in the crop's margin belongs to another zone
                self.boxes[crop.key] = detection_overlays(
                    crop, within(detections, crop.inner), self.calibration
                )

    @property
    def overlays(self) -> list[Overlay]:
        return [overlay for key in sorted(self.boxes) for overlay in self.boxes[key]]

    def read(self, frame: Frame) -> FrameReading:
        height, width = frame.image.shape[:2]
        if (width, height) != tuple(self.calibration.image_size):
            cw, ch = self.calibration.image_size
            return FrameReading(
                paused=f"the calibration is for {cw}x{ch} frames but the camera gives {width}x{height}: "
                "recalibrate; cards by hand meanwhile"
            )
        check = self.monitor.update(frame.index, frame.image) if self.monitor is not None else None
        if check is not None and check.status is CameraStatus.BUMPED:
            self.bumped = check
        if self.bumped is not None:
            return FrameReading(overlays=self.overlays, bump=check, paused="camera moved: recalibrate")
        outcomes = self.pipeline.process(frame)
        return FrameReading(outcomes, self.overlays, check)

    def accept_recalibration(self) -> bool:
        """Adopt the mapping fitted when the bump was noticed; False when none was offered."""
        offer = self.bumped.recalibration if self.bumped is not None else None
        if offer is None:
            return False
        self.calibration = offer
        self.rectifier = self.rectifier.like(offer)
        self.pipeline.rectifier = self.rectifier
        self.pipeline.gate.reset()  # every zone is read again through the new mapping
        self.zones = zone_outlines(offer, self.rectifier.zones)
        self.boxes.clear()
        if self.monitor is not None:
            self.monitor.accept(offer)
        self.bumped = None
        return True


def apply_proposed(session: Session, events: Sequence[Event]) -> None:
    """Apply a question's proposed events, all or none: a refused one undoes the others
    and raises the engine's :class:`IllegalActionError`."""
    if not events:
        raise IllegalActionError("nothing to apply: correct the cards by hand instead")
    applied = 0
    try:
        for event in events:
            session.apply(event)
            applied += 1
    except IllegalActionError:
        if applied:
            session.undo(applied)
        raise
