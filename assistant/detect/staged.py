"""A folder written whole or not at all: built under a hidden name beside its place, renamed
into place when complete, removed when anything fails (``deck learn``, ``deck scan``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def new_or_empty(folder: Path) -> bool:
    """Whether ``folder`` may be written: it does not exist, or is an empty folder."""
    return not folder.exists() or (folder.is_dir() and not any(folder.iterdir()))


@contextmanager
def staged_folder(out: Path, doing: str, *, replace: bool = False) -> Iterator[Path]:
    """The hidden folder ``.NAME.DOING`` beside ``out`` to write into; renamed to ``out``
    (new or empty, :func:`new_or_empty`; with ``replace``, an ``out`` already there is
    removed only then, once its successor is whole) when the block ends, removed when it
    raises (Ctrl+C and SystemExit included). One that an interrupted run left is cleared
    first."""
    staging = out.parent / f".{out.name}.{doing}"
    if staging.exists():
        shutil.rmtree(staging)  # what an interrupted run left
    try:
        staging.mkdir(parents=True)
        yield staging
        if out.exists():
            if replace:
                shutil.rmtree(out)
            else:
                out.rmdir()  # empty: checked by the caller
        staging.replace(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
