"""Table surfaces: felt, wood, plain tables, patterned cloth and photographs.

Each surface is a texture image with a physical size in centimetres. Procedural kinds
are generated from a seed; photographs come from the wallpapers of ``gnome-backgrounds``
(``/usr/share/backgrounds``), split by file like the decks so that one is never seen in
training.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.synth.decks import Split

Image = npt.NDArray[Any]  # uint8 pixels (cv2 returns loosely typed arrays)

PHOTO_ROOT = Path("/usr/share/backgrounds")
TEXTURE_SIZE = 512
VARIANTS = 24  # procedural textures per kind (and felt colour), cached per process

KINDS = ("felt", "wood", "plain", "cloth", "photo")
FELT_COLOURS = {  # BGR
    "green": (40, 110, 30),
    "blue": (120, 60, 20),
    "red": (30, 30, 130),
    "burgundy": (40, 20, 90),
    "grey": (90, 90, 90),
    "black": (30, 30, 30),
    "purple": (100, 40, 80),
    "teal": (100, 100, 20),
}
HELD_OUT_FELT = "teal"


@dataclass(frozen=True)
class Surface:
    kind: str
    name: str
    texture: Image
    size_cm: float  # the texture's side covers this many centimetres of table

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "name": self.name, "tile_cm": self.size_cm}


def _noise(rng: np.random.Generator, size: int, scale: int) -> npt.NDArray[np.float32]:
    small = rng.standard_normal((max(2, size // scale), max(2, size // scale))).astype(np.float32)
    return np.asarray(cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC), np.float32)


def felt(rng: np.random.Generator, colour: str) -> Image:
    base = np.array(FELT_COLOURS[colour], np.float32) * rng.uniform(0.8, 1.2)
    fine = rng.standard_normal((TEXTURE_SIZE, TEXTURE_SIZE)).astype(np.float32) * 6
    blotch = _noise(rng, TEXTURE_SIZE, 64) * 6
    img = base[None, None, :] + (fine + blotch)[:, :, None]
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


def wood(rng: np.random.Generator) -> Image:
    ys = np.linspace(0, 1, TEXTURE_SIZE, dtype=np.float32)[:, None]
    warp = _noise(rng, TEXTURE_SIZE, 128) * 0.05 + _noise(rng, TEXTURE_SIZE, 16) * 0.004
    freq = rng.uniform(25, 60)
    grain = np.sin((ys + warp) * freq * 2 * np.pi) * 0.5 + 0.5
    grain = grain**2.5
    light = np.array([rng.uniform(90, 150), rng.uniform(130, 190), rng.uniform(170, 230)], np.float32)
    dark = light * rng.uniform(0.45, 0.7)
    img = dark + (light - dark) * (1 - grain[:, :, None])
    img += rng.standard_normal((TEXTURE_SIZE, TEXTURE_SIZE, 1)).astype(np.float32) * 4
    plank = TEXTURE_SIZE // int(rng.integers(2, 5))
    img[::plank, :, :] *= 0.55
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


def plain(rng: np.random.Generator) -> Image:
    if rng.random() < 0.4:
        colour = np.array([rng.uniform(215, 250)] * 3, np.float32) - rng.uniform(0, 12, 3).astype(np.float32)
    else:
        colour = rng.uniform(40, 230, 3).astype(np.float32)
    img = colour[None, None, :] + _noise(rng, TEXTURE_SIZE, 128)[:, :, None] * 4
    img += rng.standard_normal((TEXTURE_SIZE, TEXTURE_SIZE, 1)).astype(np.float32) * 2
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


def cloth(rng: np.random.Generator) -> Image:
    a = rng.uniform(30, 230, 3)
    b = rng.uniform(30, 230, 3)
    n = TEXTURE_SIZE
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    period = n / (2 * int(rng.integers(4, 13)))  # even whole periods: mirrored tiles match
    pattern = int(rng.integers(0, 3))
    if pattern == 0:  # checks
        mask = ((xs // period + ys // period) % 2).astype(np.float32)
    elif pattern == 1:  # stripes
        mask = ((xs + ys * int(rng.integers(-1, 2))) // period % 2).astype(np.float32)
    else:  # dots
        cx = (xs % period) - period / 2
        cy = (ys % period) - period / 2
        mask = (cx * cx + cy * cy < (period * 0.3) ** 2).astype(np.float32)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.2)
    img = a[None, None, :] * (1 - mask[:, :, None]) + b[None, None, :] * mask[:, :, None]
    img += rng.standard_normal((n, n, 1)) * 5
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


def photo_files() -> list[Path]:
    if not PHOTO_ROOT.is_dir():
        return []
    files = [p for p in PHOTO_ROOT.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png", ".webp")]
    return sorted(files)


def photo_split(path: Path) -> Split:
    """Wallpapers split by name: a stable hash, so a file never changes split."""
    stem = path.stem.removesuffix("-d").removesuffix("-l")
    value = sum(ord(c) * (i + 1) for i, c in enumerate(stem)) % 10
    return Split.HELD_OUT if value == 0 else Split.VAL if value == 1 else Split.TRAIN


@lru_cache(maxsize=32)
def _photo(path: Path) -> Image:
    from assistant.synth.facecache import cache_root

    cached = cache_root() / "surfaces" / f"{path.stem}-{TEXTURE_SIZE * 2}.png"
    img = cv2.imread(str(cached), cv2.IMREAD_COLOR) if cached.is_file() else None
    if img is not None:
        return np.asarray(img, dtype=np.uint8)
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise OSError(f"cannot read wallpaper {path}")
    h, w = img.shape[:2]
    side = min(h, w)
    img = img[(h - side) // 2 : (h - side) // 2 + side, (w - side) // 2 : (w - side) // 2 + side]
    img = cv2.resize(img, (TEXTURE_SIZE * 2, TEXTURE_SIZE * 2), interpolation=cv2.INTER_AREA)
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(f"{cached.stem}.{os.getpid()}.tmp.png")
    if cv2.imwrite(str(partial), img):
        partial.replace(cached)
    return np.asarray(img, dtype=np.uint8)


@lru_cache(maxsize=VARIANTS * 6)
def _procedural(kind: str, variant: int, colour: str = "") -> Image:
    """Procedural texture number ``variant`` of ``kind``: made once, then reused."""
    rng = np.random.default_rng([zlib.crc32(f"{kind}-{colour}".encode()), variant])
    if kind == "felt":
        return felt(rng, colour)
    return {"wood": wood, "plain": plain, "cloth": cloth}[kind](rng)


def sample_surface(rng: np.random.Generator, split: Split) -> Surface:
    """A random surface for ``split``; teal felt and some photos are held out."""
    kinds = list(KINDS)
    photos = [p for p in photo_files() if photo_split(p) is split]
    if not photos:
        kinds.remove("photo")
    weights = np.array([0.4, 0.18, 0.14, 0.14, 0.14][: len(kinds)])
    kind = kinds[int(rng.choice(len(kinds), p=weights / weights.sum()))]
    variant = int(rng.integers(VARIANTS))
    if kind == "felt":
        colours = [c for c in FELT_COLOURS if (c == HELD_OUT_FELT) == (split is Split.HELD_OUT)]
        colour = colours[int(rng.integers(len(colours)))]
        texture = _procedural("felt", variant, colour)
        return Surface("felt", f"felt-{colour}-{variant}", texture, float(rng.uniform(40, 90)))
    if kind in ("wood", "plain", "cloth"):
        tile = {"wood": (60.0, 160.0), "plain": (100.0, 100.0), "cloth": (40.0, 120.0)}[kind]
        texture = _procedural(kind, variant)
        return Surface(kind, f"{kind}-{variant}", texture, float(rng.uniform(*tile)))
    path = photos[int(rng.integers(len(photos)))]
    return Surface("photo", path.name, _photo(path), float(rng.uniform(80, 250)))
