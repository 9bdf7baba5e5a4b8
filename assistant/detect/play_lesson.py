"""Learning the table's deck from its own play: stage 1 tuned to where the deck's cards
and corner indices lie, with no card named by anyone.

A deck nobody scanned and that is not in ``decks.json`` can still be learnt from recorded
play (``dealer-assistant deck learn-play``). The shipped pipeline reads the zone crops of
the recording, and what it found becomes stage 1's labels (:func:`play_labels`):

* every card box it read, at any confidence, and every stage-1 face-up card box of at
  least ``PlayLesson.card_conf`` it did not read;
* at each such box, its top-left and bottom-right corner index where the corner search
  (:meth:`~assistant.detect.pipeline.CardDetector.likeliest_index`, which tries every
  size and place designs print an index at) finds one at least ``index_sure`` sure by
  the reader's ``index`` head; else the stage-1 index box the card was read from;
* the face-down cards and chip stacks it reported.

Stage 1 needs no card's name: only where things lie. The corner search already finds
the indices of designs that print them big, thin or faint, where stage 1 finds only the
card; stage 1 tuned to its finds boxes them itself, and the readers (unchanged) then read
them in their views. Stop 47 found that stage 1 carries most of a deck lesson's gain, and
stop 48 that readers tuned on such self-read labels, or even on true ones cut the same
way, read worse (``models/README.md``).

Sources are recorded sessions (a video with its calibration, as ``replay`` takes it),
whose zones are cut as the camera pipeline cuts them, where they changed; or folders of
zone crops already cut (1 mm per pixel, as ``synth zones`` writes them). The folder is
written as :mod:`~assistant.detect.deck_learning` writes one: the base models, the tuned
stage 1 in place, and ``deck.json`` saying what was learnt.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.backends import box_iou
from assistant.detect.deck_learning import COPIED, DECK_FILE, PLAY_DECK, DeckLearningError, tune_stage_one
from assistant.detect.pipeline import (
    DETECTOR_ONNX,
    DETECTOR_PT,
    INDEX_READER,
    MODELS_DIR,
    STRIP_READER,
    CardDetector,
)
from assistant.detect.staged import new_or_empty, staged_folder

if TYPE_CHECKING:
    from assistant.vision.calibration import Calibration

Box = tuple[float, float, float, float]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


@dataclass(frozen=True)
class PlayLesson:
    """How a deck is learnt from play (chosen in stop 48 on four validation designs).

    ``card_conf``: stage-1 face-up card boxes at least this sure are labelled though the
    pipeline did not read them; ``index_sure``: a corner's searched index is labelled
    where the reader's ``index`` head is at least this sure. Stage 1 is tuned
    ``epochs`` at ``lr``, as a deck lesson tunes it. ``max_crops``: at most this many zone
    crops are learnt from (evenly spread over the sources).
    """

    card_conf: float = 0.4
    index_sure: float = 0.5
    epochs: int = 3
    lr: float = 0.0005
    max_crops: int = 4000

    def __post_init__(self) -> None:
        if not (0 < self.card_conf <= 1 and 0 < self.index_sure <= 1):
            raise ValueError("card_conf and index_sure must be in (0, 1]")
        if self.epochs < 1 or self.lr <= 0:
            raise ValueError("stage 1 needs at least one epoch at a positive learning rate")
        if self.max_crops < 1:
            raise ValueError("a lesson needs at least one zone crop")


def play_labels(
    detector: CardDetector, image: npt.NDArray[np.uint8], lesson: PlayLesson = PlayLesson()
) -> list[tuple[str, Box]]:
    """Stage 1's labels for one upright 1 mm/px zone crop, from what ``detector`` (as
    :meth:`CardDetector.for_zones` makes it) finds there: (class name, box) pairs."""
    found = detector.detect(image)
    cards: list[Box] = [c.box for c in found.cards]
    read_from = {c.box: c.index for c in found.cards}
    card_class = detector.class_id("card")
    raw = detector.find(image)
    for box, conf, cls in zip(raw.xyxy, raw.conf, raw.cls, strict=True):
        if int(cls) == card_class and conf >= lesson.card_conf and all(box_iou(box, c) < 0.5 for c in cards):
            cards.append((float(box[0]), float(box[1]), float(box[2]), float(box[3])))
    labels: list[tuple[str, Box]] = []
    for card in cards:
        labels.append(("card", card))
        for corner in ("tl", "br"):
            index, sure = detector.likeliest_index(image, card, corner)
            stage1 = read_from.get(card) if corner == "tl" else None
            if sure >= lesson.index_sure:
                labels.append(("index", (float(index[0]), float(index[1]), float(index[2]), float(index[3]))))
            elif stage1 is not None:
                labels.append(("index", stage1))
    labels.extend(("face_down", back) for back in found.face_down)
    labels.extend((f"chips_{stack.colour}", stack.box) for stack in found.chips)
    return labels


def yolo_lines(labels: list[tuple[str, Box]], names: list[str], size: tuple[int, int]) -> list[str]:
    """``labels`` as YOLO label lines for an image of ``size`` (width, height): boxes cut to
    the image, those under 2 px wide or tall (or of a class stage 1 lacks) left out.

    >>> labels = [("card", (-5.0, 10.0, 55.0, 100.0)), ("index", (1.0, 1.0, 2.0, 9.0))]
    >>> yolo_lines(labels, ["card", "index"], (100, 100))
    ['0 0.275000 0.550000 0.550000 0.900000']
    """
    w, h = size
    lines = []
    for name, (x1, y1, x2, y2) in labels:
        if name not in names:
            continue
        x1, x2, y1, y2 = max(0.0, x1), min(float(w), x2), max(0.0, y1), min(float(h), y2)
        if x2 - x1 < 2 or y2 - y1 < 2:
            continue
        cx, cy = (x1 + x2) / 2 / w, (y1 + y2) / 2 / h
        lines.append(f"{names.index(name)} {cx:.6f} {cy:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return lines


@dataclass(frozen=True)
class PlaySource:
    """Zone crops to learn from: a folder of them, or a recorded session's video cut
    through ``calibration`` (a :class:`~assistant.vision.calibration.Calibration`)."""

    path: Path
    calibration: Calibration | None = None

    def write_crops(self, folder: Path, prefix: str, every_s: float) -> list[Path]:
        """The source's zone crops written to ``folder`` as ``PREFIX_NNNNNN.jpg`` (a
        folder's images copied as they are, in name order; a video's zones cut as the camera
        pipeline cuts them, each zone where it changed and at most once every ``every_s``
        seconds of video). Raises DeckLearningError for a source that cannot be read."""
        if self.path.is_dir():
            return _copy_folder(self.path, folder, prefix)
        return _cut_video(self.path, self.calibration, folder, prefix, every_s)


def _copy_folder(source: Path, folder: Path, prefix: str) -> list[Path]:
    paths = sorted(p for p in source.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
    written = []
    for k, path in enumerate(paths):
        if cv2.imread(str(path)) is None:
            raise DeckLearningError(f"{path} is not a readable image")
        to = folder / f"{prefix}_{k:06d}{path.suffix.lower()}"
        shutil.copyfile(path, to)
        written.append(to)
    return written


def _cut_video(
    video: Path, calibration: Calibration | None, folder: Path, prefix: str, every_s: float
) -> list[Path]:
    from assistant.pipeline.replay import table_zone_rectifier
    from assistant.vision.motion import MotionGate
    from assistant.vision.sources import SourceError, VideoFileSource

    if calibration is None:
        raise DeckLearningError(f"{video}: a recorded session needs its table calibration")
    rectifier = table_zone_rectifier(calibration)
    gate = MotionGate()
    kept_at: dict[str, float] = {}
    written: list[Path] = []
    try:
        with VideoFileSource(video) as source:
            for frame in source:
                for crop in rectifier.rectify(frame.image):
                    if not gate.changed(crop.key, crop.image):
                        continue
                    if frame.timestamp_s - kept_at.get(crop.key, -every_s) < every_s:
                        continue
                    kept_at[crop.key] = frame.timestamp_s
                    to = folder / f"{prefix}_{len(written):06d}.jpg"
                    if not cv2.imwrite(str(to), crop.image, [cv2.IMWRITE_JPEG_QUALITY, 95]):
                        raise DeckLearningError(f"cannot write {to}")
                    written.append(to)
    except SourceError as error:
        raise DeckLearningError(str(error)) from error
    return written


#: A recorded zone is kept at most once every so many seconds of video.
ZONE_EVERY_S = 0.5


def learn_from_play(
    sources: Iterable[PlaySource],
    out: Path,
    *,
    base: Path = MODELS_DIR,
    lesson: PlayLesson = PlayLesson(),
    work: Path | None = None,
    workers: int = 2,
    log: Callable[[str], None] = print,
) -> dict[str, object]:
    """Tune ``base``'s stage 1 to the deck seen in ``sources`` (:func:`play_labels`); write
    the model folder ``out`` (new or empty) and return what its ``deck.json`` holds.

    ``work``: keep the labelled zone crops and the training run there (new or empty; a
    temporary folder, removed at the end, when None). Nothing is written to ``out`` unless
    the lesson ends: a source that cannot be read stops it with DeckLearningError first.
    """
    started = time.perf_counter()
    sources = list(sources)
    if not sources:
        raise DeckLearningError("give at least one recorded session or folder of zone crops")
    out = out.resolve()
    if out == base.resolve():
        raise DeckLearningError(f"{out} is the base model folder; write the learnt deck to one of its own")
    for folder, flag in ((out, "--out"), (work, "--work")):
        if folder is not None and not new_or_empty(folder):
            raise DeckLearningError(f"{folder} exists and is not an empty folder; choose another {flag}")
    needed = (DETECTOR_ONNX, DETECTOR_PT, INDEX_READER, STRIP_READER)
    missing = [name for name in needed if not (base / name).is_file()]
    if missing:
        raise DeckLearningError(f"the base model folder {base} lacks {', '.join(missing)}")
    scratch = tempfile.TemporaryDirectory(prefix="play-lesson-") if work is None else nullcontext(str(work))
    with scratch as scratch_folder:
        room = Path(scratch_folder)
        zones = room / "zones"
        crops = _write_crops(sources, zones / "images" / "train", lesson, log)
        detector = CardDetector.for_zones(base)
        counts = _write_labels(detector, zones, lesson, log)
        log(f"labelled {crops} zone crops: {json.dumps(counts)}")
        with staged_folder(out, "learning") as staging:
            for name in (*COPIED, INDEX_READER, STRIP_READER):
                if (base / name).is_file():
                    shutil.copyfile(base / name, staging / name)
            tune_stage_one(base, zones, lesson.epochs, lesson.lr, room, staging, workers, log)
            record: dict[str, object] = {
                "deck": PLAY_DECK,
                "name": "learnt from play",
                "sources": [str(s.path.resolve()) for s in sources],
                "base": str(base.resolve()),
                "lesson": asdict(lesson),
                "zone_crops": crops,
                "labels": counts,
                "learnt_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "seconds": round(time.perf_counter() - started),
            }
            (staging / DECK_FILE).write_text(json.dumps(record, indent=1) + "\n")
    log(f"learnt the deck from play in {record['seconds']} s: {out}")
    return record


def _write_crops(
    sources: list[PlaySource], folder: Path, lesson: PlayLesson, log: Callable[[str], None]
) -> int:
    """Every source's zone crops written to ``folder``, then thinned evenly to
    ``lesson.max_crops``; how many are kept."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for k, source in enumerate(sources):
        crops = source.write_crops(folder, f"s{k:02d}", ZONE_EVERY_S)
        if not crops:
            raise DeckLearningError(f"{source.path} gave no zone crop")
        log(f"{source.path}: {len(crops)} zone crops")
        written += crops
    if len(written) > lesson.max_crops:
        keep = {int(i) for i in np.linspace(0, len(written) - 1, lesson.max_crops).round()}
        for i, path in enumerate(written):
            if i not in keep:
                path.unlink()
    return min(len(written), lesson.max_crops)


def _write_labels(
    detector: CardDetector, zones: Path, lesson: PlayLesson, log: Callable[[str], None]
) -> dict[str, int]:
    """Stage 1's labels for every crop in ``zones/images/train`` and the dataset's
    ``data.yaml``; the validation split the trainer reports on is the same crops."""
    names = detector.class_names
    labels = zones / "labels" / "train"
    labels.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    images = sorted(p for p in (zones / "images" / "train").iterdir() if p.suffix in IMAGE_SUFFIXES)
    for n, path in enumerate(images, 1):
        image = cv2.imread(str(path))
        if image is None:  # checked or written by _write_crops
            raise DeckLearningError(f"{path} can no longer be read")
        found = play_labels(detector, np.asarray(image, np.uint8), lesson)
        for name, _ in found:
            kind = "chips" if name.startswith("chips_") else name
            counts[kind] = counts.get(kind, 0) + 1
        h, w = image.shape[:2]
        lines = yolo_lines(found, names, (w, h))
        (labels / path.with_suffix(".txt").name).write_text("".join(f"{line}\n" for line in lines))
        if n % 500 == 0:
            log(f"labelled {n} of {len(images)} zone crops")
    for sub in ("images", "labels"):
        os.symlink((zones / sub / "train").resolve(), zones / sub / "val", target_is_directory=True)
    listing = "".join(f"  {k}: {name}\n" for k, name in enumerate(names))
    (zones / "data.yaml").write_text(
        f"path: {zones.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{listing}"
    )
    return counts
