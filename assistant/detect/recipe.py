"""The training recipe (``models/train.yaml``): one file says how the shipped weights were made."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

DEFAULT_RECIPE = Path(__file__).resolve().parents[2] / "models" / "train.yaml"

#: Keys of the ``detector`` section that are not ultralytics training arguments.
_OWN_KEYS = {"model"}


class RecipeError(ValueError):
    """The recipe file is missing, unreadable or lacks a needed key."""


@dataclass(frozen=True)
class ReaderRecipe:
    crop: int = 32  # input height (and width, unless crop_width is set)
    crop_width: int = 0
    channels: tuple[int, int, int] = (16, 32, 64)  # of the reader's three conv blocks
    epochs: int = 20
    batch: int = 256
    lr: float = 0.003
    min_index_px: float = 6.0
    closeups: int = 0  # extra close-up scenes rendered for index crops (train split)
    val_closeups: int = 0
    closeup_seed: int = 1
    font_indices: int = 0  # extra index crops drawn in system fonts (train split)
    font_seed: int = 1
    font_strips: int = 0  # strips: extra strips drawn in system fonts (train split)
    font_off_colour: float = 0.0  # share of font indices and strips inked in a colour unrelated to the suit
    font_coarse: float = 0.0  # share of font indices filmed by a coarse camera (0.33-0.6 px per mm)
    ink: float = 0.0  # share of training crops whose print is made heavier or lighter
    negatives: int = 0  # per image: index-sized crops of no index, for the reader's "index" head
    init: str = ""  # start from this reader checkpoint (best.pt): every layer whose shape fits
    balance: bool = False  # weigh classes by inverse square-root frequency
    datasets: tuple[str, ...] = ()  # more datasets whose train and val crops are added
    dataset: str = ""  # train on this zone dataset instead of the recipe's (the back reader's drawn backs)
    max_unknown: int = 0  # chips: keep at most this many "unknown" crops per split (0: all)
    seed: int | None = None  # seeds the first weights and the batch order (None: the first recipes' way)
    out: str = "runs/reader"


@dataclass(frozen=True)
class Recipe:
    dataset: Path
    model: Path
    detector_args: dict[str, Any] = field(default_factory=dict)
    reader: ReaderRecipe = ReaderRecipe()
    chips: ReaderRecipe = ReaderRecipe(out="runs/chips")
    strips: ReaderRecipe = ReaderRecipe(crop=88, crop_width=40, out="runs/strips")
    faces: ReaderRecipe = ReaderRecipe(crop=88, crop_width=72, out="runs/faces")
    backs: ReaderRecipe = ReaderRecipe(crop=88, crop_width=40, out="runs/backs")
    stacks: ReaderRecipe = ReaderRecipe(crop=160, crop_width=32, out="runs/stacks")

    @classmethod
    def load(cls, path: Path = DEFAULT_RECIPE) -> Recipe:
        try:
            data = yaml.safe_load(path.read_text())
        except OSError as error:
            raise RecipeError(f"cannot read the recipe {path}: {error.strerror}") from error
        except yaml.YAMLError as error:
            raise RecipeError(f"{path} is not valid YAML: {error}") from error
        if not isinstance(data, dict) or "dataset" not in data or "detector" not in data:
            raise RecipeError(f"{path} needs a 'dataset' and a 'detector' section")
        root = path.resolve().parent.parent  # paths in the recipe are relative to the repo
        det = dict(data["detector"])
        if "model" not in det:
            raise RecipeError(f"{path}: detector.model (the model .yaml) is missing")
        model = Path(det["model"])
        try:
            reader = ReaderRecipe(**_tupled(data.get("reader", {})))
            chips = ReaderRecipe(**{"out": "runs/chips", **_tupled(data.get("chips", {}))})
            strip_defaults = {"crop": 88, "crop_width": 40, "out": "runs/strips"}
            strips = ReaderRecipe(**{**strip_defaults, **_tupled(data.get("strips", {}))})
            face_defaults = {"crop": 88, "crop_width": 72, "out": "runs/faces"}
            faces = ReaderRecipe(**{**face_defaults, **_tupled(data.get("faces", {}))})
            back_defaults = {"crop": 88, "crop_width": 40, "out": "runs/backs"}
            backs = ReaderRecipe(**{**back_defaults, **_tupled(data.get("backs", {}))})
            stack_defaults = {"crop": 160, "crop_width": 32, "out": "runs/stacks"}
            stacks = ReaderRecipe(**{**stack_defaults, **_tupled(data.get("stacks", {}))})
        except TypeError as error:
            raise RecipeError(f"{path}: {error}") from error
        return cls(
            dataset=Path(data["dataset"]),
            model=model if model.is_absolute() else root / model,
            detector_args={k: v for k, v in det.items() if k not in _OWN_KEYS},
            reader=reader,
            chips=chips,
            strips=strips,
            faces=faces,
            backs=backs,
            stacks=stacks,
        )


def _tupled(section: Any) -> dict[str, Any]:
    """A reader section with its list values (``channels``) as tuples."""
    if not isinstance(section, dict):
        raise RecipeError(f"a reader section must be a mapping, not {section!r}")
    return {k: tuple(v) if isinstance(v, list) else v for k, v in section.items()}
