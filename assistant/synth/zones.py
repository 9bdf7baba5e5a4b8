"""Zone-crop datasets: rendered games seen the way the camera pipeline sees them.

The camera pipeline never shows the detector a whole frame: it warps each zone of the
calibrated table (a seat's cards, its bet, the pot, the deck) to a fixed scale
(:mod:`assistant.vision.rectify`) and detects in those crops. A detector trained on
whole renders sees cards at another scale and in another context, so this writer
renders what the pipeline will meet:

1. a random hand is played by the engine's simulated players
   (:func:`~assistant.synth.script.script_from_autoplay`: a random preset, 2 to 8
   players, a deck and surface of the split) and animated exactly as the video
   fixtures are (:func:`~assistant.synth.video.animate`: dealt cards in flight, the
   dealer's hand over the table, bets sliding, folds turned over);
2. a random sample of its frames is rendered (a camera of random height, angle, field
   of view and resolution; cards laid less tidily than the fixtures lay them; JPEG or
   video-codec loss);
3. each sampled frame is cut into zone crops by the pipeline's own
   :class:`~assistant.vision.rectify.ZoneRectifier` from the renderer's exact
   calibration, and every object's truth is mapped into crop pixels.

The output has the layout of :mod:`assistant.synth.dataset` (``images``, ``labels``,
``truth``, ``data.yaml``; file names start with the seed, so runs with other seeds can
add to one folder, and ``synth.json`` lists every run; splits rendered one at a time with
``only`` keep a record each), so ``dealer-assistant train detector`` and the reader
training take it unchanged. Splits follow the decks: ``train`` renders train decks on
train surfaces, ``val`` the validation decks, ``test`` the held-out decks and surfaces.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.pipeline.zones import CARD_ZONE_MARGIN_MM, card_zone_margins
from assistant.synth.backs import drawn_back
from assistant.synth.camera import Camera
from assistant.synth.dataset import SPLITS, run_jobs, split_of, write_data_yaml
from assistant.synth.decks import (
    EXTRA_INSTALL_HINT,
    INSTALL_HINT,
    DeckRecord,
    DeckSet,
    DecksMissingError,
    deck_by_id,
    designs,
    installed_decks,
)
from assistant.synth.labels import (
    CLASS_NAMES,
    MIN_INDEX_VISIBLE,
    IndexTruth,
    ObjectTruth,
    index_height,
    scene_truth,
    yolo_lines,
)
from assistant.synth.layout import card_angle_facing
from assistant.synth.render import Rendered
from assistant.synth.scene import CardItem, ChipStack, Hand, Scene
from assistant.synth.script import GameScript, script_from_autoplay
from assistant.synth.table import SeatModel, Table, true_calibration
from assistant.synth.video import VideoRenderer, animate

if TYPE_CHECKING:
    from assistant.vision.calibration import Calibration
    from assistant.vision.geometry import Rect
    from assistant.vision.rectify import ZoneCrop

Array = npt.NDArray[np.float64]

PRESETS = (
    "seven-twenty-seven",
    "online-seven-twenty-seven",
    "fifteen-thirty-five",
    "under-seven-twenty-seven",
    "over-seven-twenty-seven",
)
SIZES = ((1280, 720), (1280, 720), (1280, 720), (1920, 1080), (960, 540))
ZONE_MM_PER_PX = 1.0  # the pipeline's default crop scale
MIN_INSIDE = 0.5  # an object is labelled in a crop when this much of its box lies inside
ZONE_MIN_INDEX_PX = 6.0  # an index shorter than this in the crop is not labelled
JPEG_QUALITY = 92
#: Chance that a zone of each kind is written for a sampled frame (card zones: always).
ZONE_KEEP = {"cards": 1.0, "bet": 0.35, "button": 0.0, "pot": 0.5, "deck": 0.3}
EMPTY_KEEP = 0.2  # chance that a zone with nothing labelled in it is written


class LooseTable(Table):
    """The fixtures' table with cards laid as a person lays them: spacing and angle vary."""

    def __init__(self, script: GameScript, width_cm: float, rng: np.random.Generator) -> None:
        super().__init__(script, width_cm)
        self._rng = rng
        self._step = width_cm * float(rng.uniform(0.4, 0.75))
        self._spread = float(rng.uniform(0.0, 0.6))  # cm of position jitter
        self._turn = float(rng.uniform(0.0, 0.08))  # radians of angle jitter
        self._jitter: dict[tuple[int, int], tuple[Array, float]] = {}

    def slot(self, seat: SeatModel, i: int) -> tuple[np.ndarray, float]:
        ang = card_angle_facing(float(-seat.ey[0]), float(-seat.ey[1]))
        key = (seat.seat, i)
        if key not in self._jitter:
            self._jitter[key] = (
                self._rng.normal(0.0, self._spread + 1e-9, 2),
                float(self._rng.normal(0.0, self._turn + 1e-9)),
            )
        offset, turn = self._jitter[key]
        start = seat.cards_at - seat.ex * (self._step * 3)
        return start + seat.ex * self._step * i + offset, ang + turn


@dataclass
class Shot:
    """One sampled frame: the scene, its rendering, and the frame's number in the hand."""

    frame: int
    scene: Scene
    rendered: Rendered


class SamplingRenderer(VideoRenderer):
    """Animates a whole hand but renders only a random ``rate`` of its frames."""

    def __init__(self, script: GameScript, rate: float, rng: np.random.Generator) -> None:
        super().__init__(script)
        self.rate = rate
        self.rng = rng
        self.table = LooseTable(script, self.table.width_cm, rng)
        width, height = script.size
        hfov = float(rng.uniform(52.0, 72.0))
        vfov = 2 * math.atan(math.tan(math.radians(hfov) / 2) * height / width)
        fit = max(self.table.a / math.tan(math.radians(hfov) / 2), self.table.b / math.tan(vfov / 2))
        self.camera = Camera.looking_at(
            width,
            height,
            hfov_deg=hfov,
            target=(float(rng.normal(0, 3)), float(rng.normal(0, 3))),
            distance=fit * float(rng.uniform(1.0, 1.3)),
            tilt_deg=float(rng.uniform(0, 30)),
            yaw_deg=float(rng.uniform(-25, 25)),
            k1=float(rng.uniform(0.0, 0.08)),
        )
        self.light.update(
            {
                "motion": float(rng.uniform(0, 2.5) if rng.random() < 0.2 else 0.0),
                "defocus": float(rng.uniform(0, 1.0) if rng.random() < 0.3 else 0.0),
                "noise": float(rng.uniform(0.3, 4.0)),
                "jpeg": 0.0,
            }
        )
        self.shots: list[Shot] = []
        self.frames = []

    def frame(
        self,
        extra_cards: Sequence[CardItem] = (),
        extra_chips: Sequence[ChipStack] = (),
        hands: Sequence[Hand] = (),
    ) -> None:
        index = len(self.frames)
        if self.rng.random() < self.rate:
            scene = self.scene(extra_cards, extra_chips, hands)
            self.shots.append(Shot(index, scene, self.render(scene, index)))
        self.frames.append(_NOT_RENDERED)


#: What a frame that was not sampled holds: nothing (only the number of frames matters).
_NOT_RENDERED = np.zeros((0, 0, 3), np.uint8)


def codec_loss(image: npt.NDArray[np.uint8], rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """What a recording does to a frame: an MPEG-4 intra frame or a JPEG of random quality."""
    quality = int(rng.integers(35, 90))
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover - OpenCV always encodes a BGR image
        return image
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), dtype=np.uint8)


def random_script(
    seed: int,
    index: int,
    split: str,
    sizes: Sequence[tuple[int, int]] = SIZES,
    deck_set: DeckSet = DeckSet.STANDARD,
    deck_id: str | None = None,
) -> GameScript:
    """Hand ``index`` of a zone dataset: a random preset, table and deck of ``split`` (from
    ``deck_set``), filmed by a camera of one of ``sizes`` (width, height) pixels.

    ``deck_id``: deal every hand from this deck instead, on a surface of the deck's own split
    (the data a table learns its one deck from, :mod:`assistant.detect.deck_learning`)."""
    rng = np.random.default_rng([seed, index, 17])
    if deck_id is not None:
        deck = one_deck(deck_id)
        surfaces = deck.split.value
    else:
        decks = installed_decks(split=SPLITS[split], decks=deck_set)
        if not decks:
            raise ValueError(f"no {deck_set.value} deck is a {split} design")
        deck = decks[int(rng.integers(len(decks)))]
        surfaces = SPLITS[split].value
    players = int(rng.integers(2, 9))
    rules = PRESETS[int(rng.integers(len(PRESETS)))]
    script = script_from_autoplay(
        f"zones-{index:05d}",
        rules,
        [(f"P{k + 1}", 60) for k in range(players)],
        int(rng.integers(1 << 30)),
        deck.id,
        surface_split=surfaces,
        dealer=int(rng.integers(players)),
    )
    width, height = sizes[int(rng.integers(len(sizes)))]
    return replace(script, size=(int(width), int(height)))


def _map(points: Array, image_to_crop: Callable[[Array], Array]) -> Array:
    return image_to_crop(np.asarray(points, dtype=np.float64).reshape(-1, 2))


def _box_of(points: Array) -> tuple[float, float, float, float]:
    return (
        float(points[:, 0].min()),
        float(points[:, 1].min()),
        float(points[:, 0].max()),
        float(points[:, 1].max()),
    )


def _clipped(
    box: tuple[float, float, float, float], w: int, h: int
) -> tuple[tuple[float, float, float, float] | None, float]:
    """The box clipped to the crop, and the fraction of its area that lies inside."""
    x0, y0, x1, y1 = box
    area = max(0.0, x1 - x0) * max(0.0, y1 - y0)
    cx0, cy0, cx1, cy1 = max(0.0, x0), max(0.0, y0), min(float(w), x1), min(float(h), y1)
    if cx1 - cx0 < 1 or cy1 - cy0 < 1 or area <= 0:
        return None, 0.0
    return (cx0, cy0, cx1, cy1), (cx1 - cx0) * (cy1 - cy0) / area


def one_deck(deck_id: str) -> DeckRecord:
    """The deck ``deck_id`` of ``decks.json``, checked to be drawable: a French-suited design
    that renders cleanly and prints an index (``DeckRecord.usable``), its files installed.
    Raises ValueError (unknown or unusable) or DecksMissingError (not installed)."""
    try:
        deck = deck_by_id(deck_id)
    except KeyError as error:
        raise ValueError(str(error.args[0])) from error
    if not deck.usable:
        why = deck.notes or "not French-suited, or it prints no index"
        raise ValueError(f"deck {deck_id} cannot be dealt: {why}")
    if not deck.installed():
        hint = EXTRA_INSTALL_HINT if deck.extra else INSTALL_HINT
        raise DecksMissingError(f"deck {deck_id}'s files are missing ({deck.file()}); install them: {hint}")
    return deck


def zone_truths(
    truths: Sequence[ObjectTruth], image_to_crop: Callable[[Array], Array], size: tuple[int, int]
) -> list[ObjectTruth]:
    """Whole-frame truths mapped into one zone crop of ``size`` (w, h) pixels."""
    w, h = size
    out: list[ObjectTruth] = []
    for t in truths:
        if t.box is None:
            continue
        if t.kind == "chips":
            x0, y0, x1, y1 = t.box
            pts = _map(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]), image_to_crop)
            corners = None
        else:
            if t.corners is None:
                continue
            pts = corners = _map(t.corners, image_to_crop)
        box, inside = _clipped(_box_of(pts), w, h)
        if box is None:
            continue
        labelled = t.labelled and inside >= MIN_INSIDE
        indices = []
        for idx in t.indices:
            quad = _map(idx.quad, image_to_crop)
            in_crop = bool(np.all((quad >= 0) & (quad <= [w, h])))
            ok = (
                labelled
                and in_crop
                and idx.visible >= MIN_INDEX_VISIBLE
                and index_height(quad) >= ZONE_MIN_INDEX_PX
            )
            indices.append(IndexTruth(idx.corner, quad, idx.visible, ok))
        out.append(
            ObjectTruth(
                t.oid,
                t.kind,
                box,
                t.visible * min(1.0, inside),
                labelled,
                card=t.card,
                corners=corners,
                indices=indices,
                colour=t.colour,
                count=t.count,
                seat=t.seat,
            )
        )
    return out


def zone_rect(calibration: Calibration, key: str) -> Rect:
    """The table rectangle a rectifier key names (a layout zone)."""
    return calibration.layout.zones()[key]


def zone_kind(key: str) -> str:
    """``"seat3.bet" -> "bet"``: what kind of zone a rectifier key names."""
    return key.split(".")[-1] if "." in key else key


def write_zone_crop(
    images: Path,
    name: str,
    crop: ZoneCrop,
    calibration: Calibration,
    truths: Sequence[ObjectTruth],
    shot: dict[str, Any],
    keep: Callable[[list[ObjectTruth]], bool],
) -> int | None:
    """Write one zone crop as ``images/NAME.jpg`` with its YOLO labels and its truth
    (``labels/`` and ``truth/`` beside ``images/``), each chip stack with ``side_px``, the
    side one chip more shows in the camera's frame. ``shot`` holds the truth's ``deck``,
    ``surface``, ``frame`` and ``camera`` (its JSON). Returns the number of labels, or
    None when ``keep`` turns down the crop's truths."""
    from assistant.detect.reader_data import chip_side_px
    from assistant.vision.sampling import rect_mm_per_camera_px

    def image_to_crop(points: Array) -> Array:
        return crop.from_table(calibration.to_table(points))

    h, w = crop.image.shape[:2]
    zone = zone_truths(truths, image_to_crop, (w, h))
    if not keep(zone):
        return None
    split = images.name
    root = images.parent.parent
    img_path = images / f"{name}.jpg"
    if not cv2.imwrite(str(img_path), crop.image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]):
        raise OSError(f"cannot write {img_path}")
    lines = yolo_lines(zone, w, h)
    (root / "labels" / split / f"{name}.txt").write_text("".join(f"{line}\n" for line in lines))
    objects = [t.to_json() for t in zone]
    for obj, t in zip(objects, zone, strict=True):
        if t.kind == "chips":  # how much one chip more shows, judged in the camera's frame
            original = next(o for o in truths if o.oid == t.oid)
            assert original.box is not None
            obj["side_px"] = round(chip_side_px(shot["camera"], original.box), 3)
    truth: dict[str, Any] = {
        "image": f"{name}.jpg",
        "size": [w, h],
        "deck": shot["deck"],
        "surface": shot["surface"],
        "zone": crop.key,
        "mm_per_px": ZONE_MM_PER_PX,
        # how finely the camera sees this zone (its coarsest point): what the crop's
        # detail is limited by, whatever its own scale
        "camera_mm_per_px": round(rect_mm_per_camera_px(calibration, zone_rect(calibration, crop.key)), 4),
        "frame": shot["frame"],
        "camera": shot["camera"],
        # where the zone lies in a crop cut with a margin around it (the pipeline counts
        # what lies there: :func:`~assistant.pipeline.zones.within`)
        **({"inner": list(crop.inner)} if tuple(crop.inner) != (0, 0, w, h) else {}),
        "objects": objects,
    }
    (root / "truth" / split / f"{name}.json").write_text(json.dumps(truth, allow_nan=False) + "\n")
    return len(lines)


def write_zone_crops(
    images: Path,
    prefix: str,
    crops: Iterable[ZoneCrop],
    calibration: Calibration,
    truths: Sequence[ObjectTruth],
    shot: dict[str, Any],
    keep: Callable[[list[ObjectTruth]], bool],
) -> tuple[int, int]:
    """:func:`write_zone_crop` for each crop of one shot, named ``PREFIX_ZONEKEY``;
    returns (crops written, labels written)."""
    written = labels = 0
    for crop in crops:
        n = write_zone_crop(images, f"{prefix}_{crop.key}", crop, calibration, truths, shot, keep)
        if n is not None:
            written, labels = written + 1, labels + n
    return written, labels


def render_hand(
    job: tuple[Path, int, int, str, float, Sequence[tuple[int, int]], float, DeckSet, str | None, bool],
) -> tuple[str, int, int]:
    """Render hand ``index`` and write its zone crops; returns (split, crops, labels).

    ``drawn_backs``: the chance that the hand's cards carry a back drawn at random
    (:func:`~assistant.synth.backs.drawn_back`) instead of their deck's. It is drawn from
    a generator of its own, so a hand renders the same at any chance but for its backs.
    ``margins``: each seat's card zone is cut as the camera pipeline cuts it, with
    :data:`~assistant.pipeline.zones.CARD_ZONE_MARGIN_MM` of the table around it (its truth
    says where the zone lies: ``inner``); otherwise at the zone's own edge.
    """
    from assistant.vision.rectify import ZoneRectifier

    out, seed, index, split, rate, sizes, drawn_backs, deck_set, deck_id, margins = job
    rng = np.random.default_rng([seed, index, 23])
    script = random_script(seed, index, split, sizes, deck_set, deck_id)
    vr = SamplingRenderer(script, rate, rng)
    if drawn_backs > 0:
        backs_rng = np.random.default_rng([seed, index, 29])
        if backs_rng.random() < drawn_backs:
            vr.faces = vr.faces.with_back(drawn_back(backs_rng, vr.faces.face(None)))
    animate(script, vr)
    calibration = true_calibration(vr.table, vr.camera)
    zone_margins = card_zone_margins(calibration.layout.zones()) if margins else None
    rectifier = ZoneRectifier(calibration, mm_per_px=ZONE_MM_PER_PX, margins=zone_margins)
    camera = vr.camera.to_json()
    crops = labels = 0
    for shot in vr.shots:
        image = codec_loss(shot.rendered.image, rng)
        truths = scene_truth(shot.scene, shot.rendered, vr.record)
        keys = [k for k in rectifier.zones if rng.random() < ZONE_KEEP.get(zone_kind(k), 0.0)]
        meta = {"deck": vr.record.id, "surface": vr.surface.to_json(), "frame": shot.frame, "camera": camera}
        n, k = write_zone_crops(
            out / "images" / split,
            f"s{seed}-{index:05d}_{shot.frame:04d}",
            rectifier.rectify(image, keys),
            calibration,
            truths,
            meta,
            keep=lambda zone: any(t.labelled for t in zone) or rng.random() < EMPTY_KEEP,
        )
        crops, labels = crops + n, labels + k
    return split, crops, labels


def write_zone_dataset(
    out: Path,
    hands: int,
    seed: int,
    *,
    rate: float = 0.06,
    val: float = 0.05,
    test: float = 0.1,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    chip_shots: int = 0,
    sizes: Sequence[tuple[int, int]] = SIZES,
    drawn_backs: float = 0.0,
    only: Collection[str] = (),
    deck_set: DeckSet = DeckSet.STANDARD,
    deck_id: str | None = None,
    margins: bool = False,
) -> dict[str, object]:
    """Render ``hands`` random hands into zone crops under ``out``; returns the summary.

    With ``chip_shots`` > 0 each hand is instead shown in that many chip-focused stills
    (:mod:`assistant.synth.chip_zones`: oblique cameras, bet and pot zones full of stacks
    of 1-20 chips; ``rate`` is then unused). ``sizes``: the cameras' resolutions, one
    drawn per hand (the default favours 1280 x 720; the chip stills keep the default).
    ``drawn_backs``: the share of hands whose cards carry a back drawn at random
    (:mod:`assistant.synth.backs`) instead of their deck's. ``only``: render just the hands
    that fall in these splits; the hands keep their numbers, so they come out as they do
    in the whole run (a split rendered again, or with other backs, without the rest).
    ``deck_set``: the decks hands are dealt from (the extra npm designs are all train
    designs, so a run of them alone renders no val or test hands). ``deck_id``: deal every
    hand from this one deck (of any split), on surfaces of the deck's own split; ``val`` and
    ``test`` still share the hands out among the three folders. ``margins``: cut each seat's
    card zone with the margin the camera pipeline cuts it with (:func:`render_hand`); the
    hands render the same either way.
    """
    if hands < 1:
        raise ValueError("--hands must be at least 1")
    if not 0 < rate <= 1:
        raise ValueError("--rate must be in (0, 1]")
    if chip_shots < 0:
        raise ValueError("--chips must not be negative")
    if not sizes or any(w < 64 or h < 64 for w, h in sizes):
        raise ValueError("camera sizes must be at least 64 x 64 pixels")
    if not 0 <= drawn_backs <= 1:
        raise ValueError("--random-backs must be in [0, 1]")
    if unknown := set(only) - set(SPLITS):
        raise ValueError(f"--only takes {', '.join(SPLITS)}, not {', '.join(sorted(unknown))}")
    hand_splits = [(i, split_of(i, hands, val, test)) for i in range(hands)]
    if only:
        hand_splits = [(i, split) for i, split in hand_splits if split in only]
        if not hand_splits:
            raise ValueError(f"no hand falls in {', '.join(only)} with these --hands, --val and --test")
    dealt = {s for _, s in hand_splits}
    if deck_id is not None:
        if chip_shots > 0:
            raise ValueError("chip stills deal from the standard decks, not from one deck")
        one_deck(deck_id)
    else:
        for split_name, split in SPLITS.items():  # what was asked for first, then what is installed
            if split_name in dealt and not designs(split=split, decks=deck_set):
                raise ValueError(f"no {deck_set.value} deck is a {split_name} design: give --val 0 --test 0")
    for split_name, split in SPLITS.items():
        if split_name in dealt and deck_id is None:
            installed_decks(split=split, decks=deck_set)  # DecksMissingError: how to fetch them
        for sub in ("images", "labels", "truth"):
            (out / sub / split_name).mkdir(parents=True, exist_ok=True)
    per_split = dict.fromkeys(SPLITS, 0)
    labels = 0
    if chip_shots > 0:
        from assistant.synth.chip_zones import render_chip_hand

        if deck_set is not DeckSet.STANDARD:
            raise ValueError("chip stills deal from the standard decks only")
        chip_jobs = [(out, seed, i, split, chip_shots) for i, split in hand_splits]
        results = run_jobs(render_chip_hand, chip_jobs, workers, progress)
    else:
        cameras = tuple(sizes)
        jobs = [
            (out, seed, i, split, rate, cameras, drawn_backs, deck_set, deck_id, margins)
            for i, split in hand_splits
        ]
        results = run_jobs(render_hand, jobs, workers, progress)
    for split_name, n, k in results:
        per_split[split_name] += n
        labels += k
    write_data_yaml(out)
    summary: dict[str, object] = {
        "kind": "chip zones" if chip_shots > 0 else "zones",
        "seed": seed,
        "hands": hands,
        **(
            {"chip_shots": chip_shots}
            if chip_shots > 0
            else {"rate": rate, "sizes": [list(size) for size in sizes]}
            | ({"random_backs": drawn_backs} if drawn_backs > 0 else {})
        ),
        **({"only": sorted(only)} if only else {}),
        **({"deck_set": deck_set.value} if deck_set is not DeckSet.STANDARD else {}),
        **({"deck": deck_id} if deck_id is not None else {}),
        **({"card_zone_margin_mm": list(CARD_ZONE_MARGIN_MM)} if margins and chip_shots == 0 else {}),
        "mm_per_px": ZONE_MM_PER_PX,
        "crops": per_split,
        "labels": labels,
        "classes": list(CLASS_NAMES),
        "decks": {s: [r.id for r in installed_decks(split=sp, decks=deck_set)] for s, sp in SPLITS.items()},
    }
    # runs with other seeds may write into the same folder (file names carry the seed)
    record = out / "synth.json"
    runs: list[dict[str, Any]] = []
    if record.is_file():
        try:
            earlier = json.loads(record.read_text()).get("runs", [])
            runs = runs_still_on_disk(earlier, seed, set(only or SPLITS))
        except (json.JSONDecodeError, AttributeError):
            runs = []
    record.write_text(json.dumps({"runs": [*runs, summary]}, indent=1) + "\n")
    return summary


def runs_still_on_disk(runs: Iterable[dict[str, Any]], seed: int, rendered: set[str]) -> list[dict[str, Any]]:
    """The records of earlier runs in a folder once a run of ``seed`` has rendered the
    splits ``rendered`` into it.

    Its files replace those of an earlier run of the same seed in those splits only, so
    that run's other splits stay on disk and its record stays, its ``only`` narrowed to
    them (and the splits rendered again named in ``rendered_again``); runs of other
    seeds are kept whole.

    >>> val = {"seed": 31, "only": ["val"]}
    >>> runs_still_on_disk([val], 31, {"train"}) == [val]
    True
    >>> runs_still_on_disk([{"seed": 31}], 31, {"test"})
    [{'seed': 31, 'only': ['train', 'val'], 'rendered_again': ['test']}]
    >>> runs_still_on_disk([val, {"seed": 7}], 31, {"train", "val", "test"})
    [{'seed': 7}]
    """
    kept = []
    for run in runs:
        if run.get("seed") != seed:
            kept.append(run)
            continue
        covered = set(run.get("only") or SPLITS)
        left = covered - rendered
        if left == covered:
            kept.append(run)
        elif left:
            again = sorted((covered & rendered) | set(run.get("rendered_again", [])))
            kept.append({**run, "only": sorted(left), "rendered_again": again})
    return kept
