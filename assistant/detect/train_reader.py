"""Training of the stage-2 readers (corner index and strip: rank and suit; back reader: face
up or back; chip stack: count).

Crops come from a renderer dataset (:mod:`assistant.detect.reader_data`) and are cached
as ``OUT/crops_SPLIT.npz``. Each epoch jitters the crop box (scale, shift, a little
rotation), colour, contrast, noise and resolution on the fly, so that the reader learns
the wobble of a detector's boxes and of real cameras. ``OUT/last.pt`` is written after
every epoch (resume with ``--resume``), ``OUT/best.pt`` when validation improves, and
``OUT/history.json`` holds the curve (accuracy against training seconds).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from assistant.detect.crops import STRIP_SIZE
from assistant.detect.labels import MAX_CHIPS
from assistant.detect.reader_data import (
    CONTEXT,
    INFERENCE_SCALE,
    NO_TARGET,
    STRIP_PAD,
    CropSet,
    chip_crops,
    closeup_index_crops,
    face_or_back_strips,
    fewer_unknown,
    index_crops,
    negative_crops,
    strip_crops,
)
from assistant.detect.reader_model import (
    BACK_HEADS,
    CHECKED_INDEX_HEADS,
    INDEX_HEADS,
    CropReader,
    chip_heads,
    reader_checkpoint,
)
from assistant.detect.recipe import ReaderRecipe

PATCH_FACTOR = CONTEXT  # patches are this much larger than the crop the reader sees


def load_or_make(out: Path, split: str, make: Callable[[], CropSet]) -> CropSet:
    path = out / f"crops_{split}.npz"
    if path.is_file():
        return CropSet.load(path)
    crops = make()
    crops.save(path)
    return crops


def _index_extras(
    recipe: ReaderRecipe, dataset: Path, out: Path, patch: int, log: Callable[[str], None]
) -> dict[str, list[CropSet]]:
    """The index reader's crops besides the dataset's labelled indices, per split (each
    made once and cached in ``out``): the labelled indices of the recipe's further
    ``datasets`` (e.g. hands filmed by sharper cameras), close-up scenes, font indices,
    crops of no index."""
    jobs: list[tuple[str, str, Callable[[], CropSet]]] = []
    for folder in (Path(d) for d in recipe.datasets):
        for split in ("train", "val"):

            def cut_indices(folder: Path = folder, split: str = split) -> CropSet:
                return index_crops(folder, split, patch, recipe.min_index_px)

            jobs.append((split, f"{folder.name}_{split}", cut_indices))
    for split, n in (("train", recipe.closeups), ("val", recipe.val_closeups)):
        if n > 0:

            def render(split: str = split, n: int = n) -> CropSet:
                def progress(done: int) -> None:
                    if done % 200 == 0 or done == n:
                        log(f"close-ups ({split}): {done}/{n} scenes")

                seed = recipe.closeup_seed + (0 if split == "train" else 1000)
                return closeup_index_crops(seed, n, split, patch, recipe.min_index_px, progress)

            jobs.append((split, f"closeups{n}_{split}", render))
    if recipe.font_indices > 0:

        def draw() -> CropSet:
            from assistant.synth.dataset import default_workers
            from assistant.synth.font_indices import font_index_patches

            def progress(done: int, total: int) -> None:
                log(f"font indices: {done}/{total} chunks")

            patches, ranks, suits = font_index_patches(
                recipe.font_seed,
                recipe.font_indices,
                patch,
                INFERENCE_SCALE * CONTEXT,
                workers=default_workers(),
                progress=progress,
                off_colour=recipe.font_off_colour,
                coarse=recipe.font_coarse,
            )
            return CropSet(patches, ranks, suits, ["font"] * len(ranks))

        jobs.append(("train", f"fonts{recipe.font_indices}{_font_tag(recipe)}_train", draw))
    if recipe.negatives > 0:
        for split in ("train", "val"):

            def cut(split: str = split) -> CropSet:
                seed = 0 if split == "train" else 1
                return negative_crops(dataset, split, patch, recipe.negatives, seed=seed)

            jobs.append((split, f"negatives{recipe.negatives}_{split}", cut))
    extra: dict[str, list[CropSet]] = {"train": [], "val": []}
    for split, name, make in jobs:
        extra[split].append(load_or_make(out, name, make))
    return extra


def _font_strips(recipe: ReaderRecipe, log: Callable[[str], None]) -> CropSet:
    """The recipe's strips drawn in system fonts (:mod:`assistant.synth.font_strips`)."""
    from assistant.synth.dataset import default_workers
    from assistant.synth.font_strips import font_strip_patches

    def progress(done: int, total: int) -> None:
        log(f"font strips: {done}/{total} chunks")

    patches, ranks, suits = font_strip_patches(
        recipe.font_seed,
        recipe.font_strips,
        STRIP_PAD,
        workers=default_workers(),
        progress=progress,
        off_colour=recipe.font_off_colour,
        size=strip_size(recipe),
    )
    return CropSet(patches, ranks, suits, ["font"] * len(ranks))


def _more_strips(
    recipe: ReaderRecipe,
    out: Path,
    tag: str,
    crops: Callable[..., CropSet],
) -> dict[str, list[CropSet]]:
    """The strips of each further dataset of ``recipe.datasets`` (the splits it holds),
    as ``crops`` cuts them (:func:`strip_crops`, or :func:`face_or_back_strips` for the
    back reader), cut once and cached in ``out`` under the dataset folder's name."""
    more: dict[str, list[CropSet]] = {"train": [], "val": []}
    for folder in (Path(d) for d in recipe.datasets):
        if not (folder / "images").is_dir():
            raise ValueError(f"{folder} holds no zone crops (images/)")
        for split in more:
            if not any((folder / "images" / split).glob("*.jpg")):
                continue

            def cut(folder: Path = folder, split: str = split) -> CropSet:
                return crops(folder, split, size=strip_size(recipe))

            more[split].append(load_or_make(out, f"{split}{tag}_{folder.name}", cut))
    return more


def strip_size(recipe: ReaderRecipe) -> tuple[int, int]:
    """The strips' (width, height) a strip recipe trains on: ``crop_width`` by ``crop``."""
    return recipe.crop_width or STRIP_SIZE[0], recipe.crop


def _width_tag(recipe: ReaderRecipe) -> str:
    """What sets strips wider or narrower than ``STRIP_SIZE`` apart in their caches' names
    (nothing for the usual width, so the first recipes' caches still load)."""
    width = strip_size(recipe)[0]
    return "" if width == STRIP_SIZE[0] else f"_w{width}"


def _font_tag(recipe: ReaderRecipe, *, strips: bool = False) -> str:
    """What sets a recipe's font crops apart in their cache's name, beyond their number
    (nothing for the first recipes' seed 1 in two colours, so their caches still load).
    Font strips are drawn the same whatever ``font_coarse`` says (it films font indices
    only), so their name leaves it out; it names their width instead."""
    tag = "" if recipe.font_seed == 1 else f"_seed{recipe.font_seed}"
    tag += f"_off{recipe.font_off_colour:g}" if recipe.font_off_colour > 0 else ""
    if strips:
        return tag + _width_tag(recipe)
    return tag + (f"_coarse{recipe.font_coarse:g}" if recipe.font_coarse > 0 else "")


def chip_training_crops(dataset: Path, recipe: ReaderRecipe, split: str, patch: int) -> CropSet:
    """The chip reader's crops of ``split``: the stacks of ``dataset`` and of the recipe's
    further ``datasets`` (e.g. chip-focused zone crops from oblique cameras), at most
    ``max_unknown`` of them "unknown" when the recipe caps them."""
    folders = [dataset, *(Path(d) for d in recipe.datasets)]
    crops = CropSet.join([chip_crops(d, split, patch) for d in folders])
    if recipe.max_unknown > 0:
        crops = fewer_unknown(crops, recipe.max_unknown, seed=0 if split == "train" else 1)
    return crops


def augment(
    patches: torch.Tensor, size: int | tuple[int, int], gen: torch.Generator, strong: bool, ink: float = 0.0
) -> torch.Tensor:
    """Random crops (float BGR 0..255, N x 3 x S x S) out of context patches; ``ink``:
    the share of them whose print is made heavier or lighter (:func:`reweigh_ink`)."""
    n = patches.shape[0]
    if isinstance(size, tuple):
        return _augment_strips(patches, size, gen, strong, ink)

    def u(lo: float, hi: float, shape: tuple[int, ...] = (n,)) -> torch.Tensor:
        return torch.rand(shape, generator=gen) * (hi - lo) + lo

    base = 1.0 / PATCH_FACTOR
    if strong:
        scale = base * u(0.88, 1.25)
        angle = u(-0.25, 0.25)
        shift = u(-0.07, 0.07, (n, 2))
    else:
        scale = torch.full((n,), base)
        angle = torch.zeros(n)
        shift = torch.zeros(n, 2)
    cos, sin = torch.cos(angle) * scale, torch.sin(angle) * scale
    theta = torch.stack(
        [torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1
    )
    grid = F.affine_grid(theta, [n, 3, size, size], align_corners=False)
    x = F.grid_sample(patches, grid, mode="bilinear", padding_mode="border", align_corners=False)
    if not strong:
        return x
    return _photometric(x, (size, size), gen, ink)


def _augment_strips(
    patches: torch.Tensor, size: tuple[int, int], gen: torch.Generator, strong: bool, ink: float = 0.0
) -> torch.Tensor:
    """Strip crops (H, W) out of padded strip patches: shifted, scaled, a little turned."""
    n, _, ph, pw = patches.shape
    h, w = size
    if not strong:
        top, left = (ph - h) // 2, (pw - w) // 2
        return patches[:, :, top : top + h, left : left + w].contiguous()

    def u(lo: float, hi: float, shape: tuple[int, ...] = (n,)) -> torch.Tensor:
        return torch.rand(shape, generator=gen) * (hi - lo) + lo

    scale = u(0.92, 1.08)
    angle = u(-0.06, 0.06)
    sx, sy = w / pw * scale, h / ph * scale
    cos, sin = torch.cos(angle), torch.sin(angle)
    shift_x = u(-1, 1) * (pw - w) / pw * 0.8
    shift_y = u(-1, 1) * (ph - h) / ph * 0.8
    theta = torch.stack(
        [
            torch.stack([cos * sx, -sin * sy * ph / pw, shift_x], 1),
            torch.stack([sin * sx * pw / ph, cos * sy, shift_y], 1),
        ],
        1,
    )
    grid = F.affine_grid(theta, [n, 3, h, w], align_corners=False)
    x = F.grid_sample(patches, grid, mode="bilinear", padding_mode="border", align_corners=False)
    return _photometric(x, size, gen, ink)


def _augment_views(
    patches: torch.Tensor, size: int | tuple[int, int], gen: torch.Generator, strong: bool, ink: float = 0.0
) -> torch.Tensor:
    """Stack views as they are (their geometry is the measurement), mirrored at random
    (a stack's mirror image holds as many chips) and with the photometric changes
    (``ink`` is for printed cards: chips have none, and it is not used)."""
    if not strong:
        return patches
    flip = torch.rand(patches.shape[0], generator=gen) < 0.5
    x = patches.clone()
    x[flip] = x[flip].flip(3)
    return _photometric(x, tuple(x.shape[2:]), gen)  # type: ignore[arg-type]


def stack_view_crops(folder: Path, recipe: ReaderRecipe, split: str) -> CropSet:
    """The stack views of ``FOLDER/stacks_SPLIT.npz`` (and of the recipe's further
    ``datasets``) as reader crops: the count as the ``count`` target."""
    from assistant.synth.stack_views import StackViews

    paths = [Path(str(d)) / f"stacks_{split}.npz" for d in (folder, *recipe.datasets)]
    views = StackViews.join([StackViews.load(p) for p in paths if p.is_file()])
    counts = np.minimum(views.counts, MAX_CHIPS).astype(np.int64)
    return CropSet(views.views, counts, np.full(len(counts), NO_TARGET, np.int64), views.deck)


def reweigh_ink(x: torch.Tensor, share: float, gen: torch.Generator) -> torch.Tensor:
    """``x`` (float BGR, N x 3 x H x W) with the print of about ``share`` of its crops made
    heavier or lighter, half each way: each pixel takes the colour of its darkest (ink
    spreads) or lightest (it thins) 3 x 3 neighbour, blended in at a strength of 0.3 to 1.
    Designs print their indices and pips in strokes from hairlines to bold; a reader
    taught on a few designs' strokes should not read the stroke weight as part of the
    rank. Ink keeps its colour: a red stroke spreads red.
    """
    n = x.shape[0]
    pick = torch.rand(n, generator=gen) < share
    if not pick.any():
        return x
    chosen = x[pick]
    m, c, h, w = chosen.shape
    heavier = torch.rand(m, generator=gen) < 0.5
    strength = torch.rand(m, generator=gen) * 0.7 + 0.3
    padded = F.pad(chosen, (1, 1, 1, 1), mode="replicate")
    around = F.unfold(padded, 3).view(m, c, 9, h * w)  # each pixel's 3 x 3 neighbours
    grey = around.mean(1)  # m x 9 x HW
    pick_grey = torch.where(heavier[:, None, None], -grey, grey)
    best = pick_grey.argmax(1, keepdim=True)  # the darkest (heavier) or lightest neighbour
    target = around.gather(2, best[:, None].expand(m, c, 1, h * w)).view(m, c, h, w)
    out = x.clone()
    out[pick] = chosen + strength[:, None, None, None] * (target - chosen)
    return out


def _photometric(
    x: torch.Tensor, size: tuple[int, int], gen: torch.Generator, ink: float = 0.0
) -> torch.Tensor:
    n = x.shape[0]
    if ink > 0:  # before light and noise: the print, then the camera
        x = reweigh_ink(x, ink, gen)

    def u(lo: float, hi: float, shape: tuple[int, ...] = (n,)) -> torch.Tensor:
        return torch.rand(shape, generator=gen) * (hi - lo) + lo

    # resolution: a fifth of the batch is seen through a coarser sensor
    low = torch.rand(n, generator=gen) < 0.2
    if low.any():
        f = float(u(0.4, 0.8, (1,)))
        small = (max(1, int(size[0] * f)), max(1, int(size[1] * f)))
        y = F.interpolate(x[low], size=small, mode="area")
        x[low] = F.interpolate(y, size=size, mode="bilinear", align_corners=False)
    gain = u(0.7, 1.25)[:, None, None, None] * u(0.9, 1.1, (n, 3))[:, :, None, None]
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * u(0.75, 1.25)[:, None, None, None] + mean
    x = x * gain + u(-25, 25)[:, None, None, None]
    x = x + torch.randn(x.shape, generator=gen) * u(0, 6)[:, None, None, None]
    return x.clamp(0, 255)


def class_weights(targets: torch.Tensor, classes: int) -> torch.Tensor:
    """Inverse square-root frequency, mean 1: rare classes count more, not absolutely."""
    counts = torch.bincount(targets[targets != NO_TARGET], minlength=classes).float()
    w = (counts.sum() / (classes * counts.clamp(min=1))).sqrt()
    return w / w.mean()


def _to_tensor(patches: np.ndarray) -> torch.Tensor:
    """N x 3 x H x W uint8: a batch becomes float when it is used (a quarter of the memory)."""
    return torch.from_numpy(patches).permute(0, 3, 1, 2).contiguous()


def _accuracy(model: CropReader, x: torch.Tensor, targets: list[torch.Tensor]) -> list[float]:
    model.eval()
    right = [0] * len(targets)
    seen = [0] * len(targets)
    with torch.no_grad():
        for i in range(0, x.shape[0], 1024):
            probs = model(x[i : i + 1024])
            for k, (p, t) in enumerate(zip(probs, targets, strict=True)):
                t = t[i : i + 1024]
                ok = t != NO_TARGET
                right[k] += int((p.argmax(1)[ok] == t[ok]).sum())
                seen[k] += int(ok.sum())
    return [r / max(s, 1) for r, s in zip(right, seen, strict=True)]


def train_reader(
    kind: str,
    dataset: Path,
    recipe: ReaderRecipe,
    *,
    resume: bool = False,
    epochs: int | None = None,
    log: Callable[[str], None] = print,
    threads: int = 1,
) -> Path:
    """Train the ``kind`` reader ("index", "strips", "backs", "chips" or "stacks") on ``threads`` CPU
    threads; returns ``OUT/best.pt`` (the best epoch per validation crop; every epoch's
    weights are kept as ``OUT/epochN.pt``)."""
    torch.set_num_threads(threads)
    out = Path(recipe.out)
    if not resume and (out / "last.pt").is_file():
        raise ValueError(
            f"{out} already holds a run (last.pt); continue it with --resume, "
            "or set another 'out' in the recipe"
        )
    out.mkdir(parents=True, exist_ok=True)
    patch = math.ceil(recipe.crop * PATCH_FACTOR / 2) * 2
    # the two readers of a card box's upright strip: rank and suit, or face up or back
    strip_cuts: dict[str, Callable[..., CropSet]] = {"strips": strip_crops, "backs": face_or_back_strips}
    if kind == "index":
        heads = CHECKED_INDEX_HEADS if recipe.negatives > 0 else INDEX_HEADS

        def make(split: str) -> CropSet:
            return index_crops(dataset, split, patch, recipe.min_index_px)
    elif kind in strip_cuts:
        heads = BACK_HEADS if kind == "backs" else INDEX_HEADS

        def make(split: str) -> CropSet:
            return strip_cuts[kind](dataset, split, size=strip_size(recipe))
    elif kind == "chips":
        heads = chip_heads(MAX_CHIPS)

        def make(split: str) -> CropSet:
            return chip_training_crops(dataset, recipe, split, patch)
    elif kind == "stacks":
        heads = chip_heads(MAX_CHIPS)

        def make(split: str) -> CropSet:
            return stack_view_crops(dataset, recipe, split)
    else:
        raise ValueError(f"unknown reader {kind!r}")
    if kind == "stacks":  # the views are already made: nothing to cut and cache
        train, val = make("train"), make("val")
    else:
        tag = _width_tag(recipe) if kind in strip_cuts else ""
        train = load_or_make(out, f"train{tag}", lambda: make("train"))
        val = load_or_make(out, f"val{tag}", lambda: make("val"))
    if kind == "index":  # close-ups, fonts, no-index crops: made for square index crops only
        extra = _index_extras(recipe, dataset, out, patch, log)
        train, val = CropSet.join([train, *extra["train"]]), CropSet.join([val, *extra["val"]])
    if kind in strip_cuts:  # more zone datasets (the extra npm designs, drawn backs)
        more = _more_strips(recipe, out, _width_tag(recipe), strip_cuts[kind])
        train, val = CropSet.join([train, *more["train"]]), CropSet.join([val, *more["val"]])
    if kind == "strips" and recipe.font_strips > 0:
        name = f"fontstrips{recipe.font_strips}{_font_tag(recipe, strips=True)}_train"
        train = CropSet.join([train, load_or_make(out, name, lambda: _font_strips(recipe, log))])
    log(f"{kind} reader: {len(train.rank)} train crops, {len(val.rank)} val crops")
    if kind == "backs":
        log(f"train strips face down / face up: {np.bincount(train.rank, minlength=2).tolist()}")
    if kind in ("chips", "stacks"):
        per_target = np.bincount(train.rank, minlength=MAX_CHIPS + 1).tolist()
        log(f"train targets (0 = unknown, then counts 1..{MAX_CHIPS}): {per_target}")
    if len(train.rank) == 0:
        raise ValueError(f"no {kind} crops in {dataset}")

    def targets(c: CropSet) -> list[torch.Tensor]:
        rank, suit = torch.from_numpy(c.rank), torch.from_numpy(c.suit)
        if "index" in heads:  # a crop with neither target is one of no index
            return [rank, suit, ((rank != NO_TARGET) | (suit != NO_TARGET)).long()]
        return [rank, suit][: len(heads)]

    x_train, y_train = _to_tensor(train.patches), targets(train)
    x_val, y_val = _to_tensor(val.patches), targets(val)
    # the batch order and augmentation draw from seed 0 in the first recipes, whose first
    # weights came from torch's unseeded generator; a recipe's ``seed`` fixes both
    gen = torch.Generator().manual_seed(0 if recipe.seed is None else recipe.seed)
    if recipe.seed is not None:
        torch.manual_seed(recipe.seed)
    weights = [
        class_weights(t, n) if recipe.balance else None for t, n in zip(y_train, heads.values(), strict=False)
    ]
    width = recipe.crop_width or recipe.crop
    model = CropReader(heads, recipe.crop, width, tuple(recipe.channels))  # type: ignore[arg-type]
    if recipe.init and not resume:
        log(f"starting from {recipe.init}: {initialise(model, Path(recipe.init))}")
    size: int | tuple[int, int] = (recipe.crop, width) if kind in (*strip_cuts, "stacks") else recipe.crop
    jitter = _augment_views if kind == "stacks" else augment
    total = epochs or recipe.epochs
    opt = torch.optim.AdamW(model.parameters(), lr=recipe.lr, weight_decay=1e-4)
    per_epoch = math.ceil(len(y_train[0]) / recipe.batch)
    start, spent, best = 0, 0.0, -1.0
    history: list[dict[str, float]] = []
    last = out / "last.pt"
    if resume and last.is_file():
        state = torch.load(last, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start, spent, best, history = state["epoch"], state["spent"], state["best"], state["history"]
        gen.set_state(state["gen"])
        log(f"resumed at epoch {start}")
    # one learning-rate cycle over all epochs; a resumed run picks the cycle up where it
    # stopped (and stretches it when the recipe now asks for more epochs)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt,
        max_lr=recipe.lr,
        total_steps=max(total, start + 1) * per_epoch,
        last_epoch=start * per_epoch - 1,
    )
    n = x_train.shape[0]
    for epoch in range(start, total):
        t0 = time.perf_counter()
        model.train()
        order = torch.randperm(n, generator=gen)
        loss_sum = 0.0
        for i in range(0, n, recipe.batch):
            idx = order[i : i + recipe.batch]
            xb = jitter(x_train[idx].float(), size, gen, strong=True, ink=recipe.ink)
            loss = torch.zeros(())
            for logit, t, w in zip(model.logits(xb), y_train, weights, strict=True):
                tb = t[idx]
                if (tb != NO_TARGET).any():
                    loss = loss + F.cross_entropy(logit, tb, weight=w, ignore_index=NO_TARGET)
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            sched.step()
            loss_sum += loss.item() * len(idx)
        spent += time.perf_counter() - t0
        acc = _accuracy(model, jitter(x_val.float(), size, gen, strong=False), y_val)
        score = float(np.mean(acc))
        history.append(
            {"epoch": epoch + 1, "seconds": round(spent, 1), "loss": loss_sum / n}
            | {f"val_{h}": a for h, a in zip(heads, acc, strict=True)}
        )
        log(json.dumps(history[-1]))
        # every epoch's weights are kept: the trainer's best is chosen per crop, and an
        # epoch that reads cards better through the whole detector may be another one
        torch.save(reader_checkpoint(model), out / f"epoch{epoch + 1}.pt")
        if score > best:
            best = score
            torch.save(reader_checkpoint(model), out / "best.pt")
        torch.save(
            {
                "model": model.state_dict(),
                "opt": opt.state_dict(),
                "epoch": epoch + 1,
                "spent": spent,
                "best": best,
                "history": history,
                "gen": gen.get_state(),
            },
            last,
        )
        (out / "history.json").write_text(json.dumps(history, indent=1) + "\n")
    return out / "best.pt"


def initialise(model: CropReader, weights: Path) -> str:
    """Load every tensor of the checkpoint ``weights`` whose name and shape fit ``model``
    (a reader gaining a head keeps what it learned); says how many tensors it took."""
    try:
        state = torch.load(weights, weights_only=False)["model"]
    except (OSError, KeyError, RuntimeError) as error:
        raise ValueError(f"cannot start from {weights}: {error}") from error
    own = model.state_dict()
    fits = {k: v for k, v in state.items() if k in own and own[k].shape == v.shape}
    own.update(fits)
    model.load_state_dict(own)
    return f"{len(fits)} of {len(own)} tensors"


def export_reader(weights: Path, out: Path) -> Path:
    """ONNX of a reader checkpoint, dynamic batch; outputs named after the heads."""
    state = torch.load(weights, weights_only=False)
    width = state.get("width") or state["size"]
    model = CropReader(state["heads"], state["size"], width, tuple(state.get("channels", (16, 32, 64))))
    model.load_state_dict(state["model"])
    model.eval()
    x = torch.zeros(1, 3, state["size"], width)
    out.parent.mkdir(parents=True, exist_ok=True)
    names = list(state["heads"])
    torch.onnx.export(
        model,
        (x,),
        str(out),
        input_names=["crops"],
        output_names=names,
        dynamic_axes={"crops": {0: "n"}, **{k: {0: "n"} for k in names}},
        opset_version=17,
        dynamo=False,
    )
    return out
