"""Stage-1 training with ultralytics: from the model ``.yaml`` (or our own weights), offline.

Checkpoints land in ``PROJECT/NAME/weights/{last,best}.pt`` after every epoch, so a run
that is stopped (or runs out of its time budget) resumes where it stopped with
``dealer-assistant train detector --resume PROJECT/NAME/weights/last.pt``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from assistant.detect.recipe import Recipe

#: Arguments that keep ultralytics on this machine: no hub weights, no fonts, no AMP probe.
OFFLINE_ARGS: dict[str, Any] = {
    "pretrained": False,
    "plots": False,
    "amp": False,
    "device": "cpu",
}


def offline_environment() -> None:
    """Tell ultralytics it has no network; set before it is imported."""
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ.setdefault("YOLO_VERBOSE", "True")


def train_detector(
    recipe: Recipe,
    *,
    resume: Path | None = None,
    weights: Path | None = None,
    hours: float | None = None,
    name: str | None = None,
    epochs: int | None = None,
) -> Path:
    """Train (or resume) the detector; returns the run's ``best.pt``."""
    offline_environment()
    from ultralytics.models.yolo.model import YOLO

    if resume is not None:
        model = YOLO(str(resume))
        model.train(resume=True, **OFFLINE_ARGS)
        return resume.parent / "best.pt"
    data = recipe.dataset / "data.yaml"
    if not data.is_file():
        raise FileNotFoundError(
            f"{data} is missing; make it with: dealer-assistant synth dataset --out {recipe.dataset} ..."
        )
    model = YOLO(str(recipe.model))  # the task (detect, or pose for the card finder) from its head
    if weights is not None:
        model.load(str(weights))  # continue from this project's own earlier weights
    args = dict(recipe.detector_args)
    if hours is not None:
        args["time"] = hours
    if epochs is not None:
        args["epochs"] = epochs
    if name is not None:
        args["name"] = name
    args.setdefault("save_period", 1)
    offline = dict(OFFLINE_ARGS)
    if weights is not None:
        # ultralytics builds the trained model afresh from the .yaml when ``pretrained`` is
        # False, whatever was loaded before; a local path makes it start from those weights
        offline["pretrained"] = str(weights)
    model.train(data=str(data), **args, **offline)
    trainer = model.trainer
    assert trainer is not None
    return Path(trainer.save_dir) / "weights" / "best.pt"


def export_detector(weights: Path, out: Path, imgsz: int = 416) -> Path:
    """ONNX with dynamic input size (a 320 px seat crop and a 640 px frame use one file)."""
    offline_environment()
    from ultralytics.models.yolo.model import YOLO

    model = YOLO(str(weights))
    produced = model.export(format="onnx", imgsz=imgsz, dynamic=True, simplify=False, opset=17, device="cpu")
    out.parent.mkdir(parents=True, exist_ok=True)
    Path(produced).replace(out)
    return out
