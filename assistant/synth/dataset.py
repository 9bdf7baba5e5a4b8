"""The YOLO dataset writer: images, labels, data.yaml, truth, counts and index crops.

Layout under the output directory (``SPLIT`` is ``train``, ``val`` or ``test``; the test
split uses only held-out deck designs and surfaces, val only validation ones)::

    data.yaml                        ultralytics dataset file (classes of the stage-1 detector)
    synth.json                       how it was made: seed, counts, decks per split
    images/SPLIT/NNNNNN.jpg
    labels/SPLIT/NNNNNN.txt          YOLO boxes: card, index, face_down, chips_<colour>
    counts/SPLIT/NNNNNN.txt          one line per label line: chips in that stack (0: not chips)
    truth/SPLIT/NNNNNN.json          every object: identity, corners, visibility, indices, counts
    crops/SPLIT/<card>/NNNNNN_K.png  rectified corner-index crops (40x64) for the classifier
    crops/SPLIT/labels.csv           file,card,rank,suit,deck (suit empty: the index shows none)

Image ``i`` is drawn from ``numpy.random.default_rng([seed, i])``, so the same seed gives
the same bytes whatever the number of worker processes.
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np

from assistant.synth.decks import DeckRecord, Split, installed_decks
from assistant.synth.facecache import DeckFaces
from assistant.synth.labels import CLASS_NAMES, ObjectTruth, index_crops, scene_truth, yolo_lines
from assistant.synth.layout import closeup_scene, table_scene
from assistant.synth.render import Rendered, render
from assistant.synth.scene import Scene
from assistant.synth.surfaces import sample_surface

SPLITS = {"train": Split.TRAIN, "val": Split.VAL, "test": Split.HELD_OUT}
CLOSEUP_FRACTION = 0.25
JPEG_QUALITY = 92

T = TypeVar("T")
J = TypeVar("J")

_FACES: dict[str, DeckFaces] = {}


def deck_faces(record: DeckRecord) -> DeckFaces:
    faces = _FACES.get(record.id)
    if faces is None:
        if len(_FACES) >= 12:
            _FACES.pop(next(iter(_FACES)))
        faces = DeckFaces.load(record)
        _FACES[record.id] = faces
    return faces


@dataclass
class Sample:
    scene: Scene
    rendered: Rendered
    record: DeckRecord
    truths: list[ObjectTruth]


@dataclass(frozen=True)
class PhotoKind:
    """What a dataset's photos look like: how many are close-ups, at which image sizes.

    The default is the detector's first dataset: a quarter close-ups (a few cards filling
    a hand-held photo), the rest whole tables, at the layouts' own small sizes (640 px).
    ``sizes`` (width, height) replaces those: one is drawn per image.
    """

    closeups: float = CLOSEUP_FRACTION
    sizes: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.closeups <= 1:
            raise ValueError("the close-up fraction must lie in 0..1")
        if any(w < 64 or h < 64 for w, h in self.sizes):
            raise ValueError("image sizes must be at least 64 x 64")


def render_sample(
    seed: int, index: int, split: Split, *, closeup: bool | None = None, kind: PhotoKind = PhotoKind()
) -> Sample:
    """Image ``index`` of a dataset with ``seed`` (decks and surfaces of ``split``)."""
    rng = np.random.default_rng([seed, index])
    decks = installed_decks(split=split)
    record = decks[int(rng.integers(len(decks)))]
    faces = deck_faces(record)
    w, h = faces.size
    surface = sample_surface(rng, split)
    if closeup is None:
        closeup = bool(rng.random() < kind.closeups)
    size = kind.sizes[int(rng.integers(len(kind.sizes)))] if kind.sizes else None
    make = closeup_scene if closeup else table_scene
    scene = make(rng, surface, record.id, w / h, size)
    rendered = render(scene, faces, rng)
    return Sample(scene, rendered, record, scene_truth(scene, rendered, record))


def truth_json(sample: Sample, name: str) -> dict[str, object]:
    cam = sample.scene.camera
    return {
        "image": name,
        "size": [cam.width, cam.height],
        "deck": sample.record.id,
        "surface": sample.scene.surface.to_json(),
        "camera": cam.to_json(),
        "objects": [t.to_json() for t in sample.truths],
    }


def split_of(index: int, total: int, val: float, test: float) -> str:
    n_val, n_test = round(total * val), round(total * test)
    n_train = total - n_val - n_test
    return "train" if index < n_train else "val" if index < n_train + n_val else "test"


def _write_one(job: tuple[Path, int, int, str, bool, PhotoKind]) -> tuple[str, str, int, list[list[str]]]:
    out, seed, index, split_name, crops, kind = job
    sample = render_sample(seed, index, SPLITS[split_name], kind=kind)
    name = f"{index:06d}"
    cam = sample.scene.camera
    img_path = out / "images" / split_name / f"{name}.jpg"
    if not cv2.imwrite(str(img_path), sample.rendered.image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]):
        raise OSError(f"cannot write {img_path}")
    lines = yolo_lines(sample.truths, cam.width, cam.height)
    (out / "labels" / split_name / f"{name}.txt").write_text("".join(f"{line}\n" for line in lines))
    counts = []
    for t in sample.truths:
        if t.labelled and t.box is not None:
            counts.append(str(t.count) if t.kind == "chips" else "0")
            counts.extend("0" for i in t.indices if i.labelled and t.kind != "chips")
    (out / "counts" / split_name / f"{name}.txt").write_text("".join(f"{c}\n" for c in counts))
    (out / "truth" / split_name / f"{name}.json").write_text(
        json.dumps(truth_json(sample, f"{name}.jpg"), allow_nan=False) + "\n"
    )
    rows: list[list[str]] = []
    if crops:
        for k, (card, crop) in enumerate(index_crops(sample.rendered.image, sample.truths)):
            folder = out / "crops" / split_name / card
            folder.mkdir(parents=True, exist_ok=True)
            rel = f"{card}/{name}_{k}.png"
            cv2.imwrite(str(out / "crops" / split_name / rel), crop)
            suit = card[1] if sample.record.index_has_suit else ""  # rank-only index
            rows.append([rel, card, card[0], suit, sample.record.id])
    return name, split_name, len(lines), rows


def write_dataset(
    out: Path,
    images: int,
    seed: int,
    *,
    val: float = 0.1,
    test: float = 0.1,
    workers: int = 1,
    crops: bool = True,
    kind: PhotoKind = PhotoKind(),
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, object]:
    """Render ``images`` scenes into ``out``; returns the summary written to synth.json."""
    if images < 1:
        raise ValueError("--images must be at least 1")
    for split_name, split in SPLITS.items():
        installed_decks(split=split)  # fails early, with the install command, when missing
        for sub in ("images", "labels", "counts", "truth", "crops"):
            (out / sub / split_name).mkdir(parents=True, exist_ok=True)
    jobs = [(out, seed, i, split_of(i, images, val, test), crops, kind) for i in range(images)]
    crop_rows: dict[str, list[list[str]]] = {s: [] for s in SPLITS}
    per_split = dict.fromkeys(SPLITS, 0)
    labels = 0
    results = run_jobs(_write_one, jobs, workers, progress)
    for _, split_name, n_labels, rows in results:
        per_split[split_name] += 1
        labels += n_labels
        crop_rows[split_name].extend(rows)
    for split_name, rows in crop_rows.items():
        with open(out / "crops" / split_name / "labels.csv", "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["file", "card", "rank", "suit", "deck"])
            writer.writerows(rows)
    write_data_yaml(out)
    summary: dict[str, object] = {
        "seed": seed,
        "closeups": kind.closeups,
        "sizes": [list(size) for size in kind.sizes],
        "images": per_split,
        "labels": labels,
        "index_crops": {s: len(r) for s, r in crop_rows.items()},
        "classes": list(CLASS_NAMES),
        "decks": {s: [r.id for r in installed_decks(split=sp)] for s, sp in SPLITS.items()},
    }
    (out / "synth.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


class WorkerDiedError(RuntimeError):
    """A worker process of :func:`run_jobs` died before its job was done."""


def run_jobs(
    fn: Callable[[J], T], jobs: Sequence[J], workers: int, progress: Callable[[int, int], None] | None
) -> list[T]:
    """``fn`` over ``jobs`` (in ``workers`` processes when more than one), in order.

    A worker that dies (killed for memory, say) raises :class:`WorkerDiedError` instead of
    leaving the run waiting for it for ever, as a ``multiprocessing.Pool`` would.
    """
    if workers > 1:
        # spawn, not fork: a process that already runs thread pools (ONNX Runtime, torch)
        # can hand a forked worker a lock that nobody will ever release
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        try:
            return list(_iterate(pool.map(fn, jobs), progress, len(jobs)))
        except BrokenProcessPool as error:
            name = getattr(fn, "__name__", "work")
            raise WorkerDiedError(
                f"a worker process died before its job was done ({len(jobs)} jobs of {name} "
                f"in {workers} processes); was it killed for memory?"
            ) from error
        finally:  # on an error or Ctrl-C, jobs not yet started are dropped, not run
            pool.shutdown(wait=True, cancel_futures=True)
    return list(_iterate(map(fn, jobs), progress, len(jobs)))


def write_data_yaml(out: Path) -> None:
    """The ultralytics dataset file: splits and the detector's class names."""
    lines = [f"path: {out.resolve()}", "train: images/train", "val: images/val", "test: images/test"]
    lines += ["names:", *(f"  {i}: {name}" for i, name in enumerate(CLASS_NAMES))]
    (out / "data.yaml").write_text("\n".join(lines) + "\n")


def _iterate(results: Iterable[T], progress: Callable[[int, int], None] | None, total: int) -> Iterator[T]:
    for i, item in enumerate(results, start=1):
        if progress is not None:
            progress(i, total)
        yield item


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))
