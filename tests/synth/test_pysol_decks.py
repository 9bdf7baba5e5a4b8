"""The extra training designs from Debian's PySol card sets, written as scanned-deck folders."""

from __future__ import annotations

import hashlib
import io
import tarfile
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from assistant.engine.cards import Card, Rank, Suit
from assistant.synth import pysol_decks
from assistant.synth.decks import Split, deck_by_id, scanned_id
from assistant.synth.pysol_decks import (
    CARDSETS,
    DESIGNS,
    DebPackage,
    PysolDecksError,
    PysolDesign,
    deb_members,
    write_designs,
)

SET = f"{CARDSETS}/cardset-fake"


def _gif(label: str, colour: tuple[int, int, int]) -> bytes:
    """A 40 x 56 card picture in a palette with a transparent top-left pixel."""
    picture = Image.new("P", (40, 56), 0)
    picture.putpalette([0, 128, 0, 255, 255, 255, *colour] + [0] * (253 * 3))
    draw = ImageDraw.Draw(picture)
    draw.rectangle((1, 1, 38, 54), fill=1)
    draw.text((3, 2), label, fill=2)
    out = io.BytesIO()
    picture.save(out, format="GIF", transparency=0)
    return out.getvalue()


def _deb(files: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    """A Debian package (an ar archive) whose data.tar.xz holds ``files`` and ``links``."""
    tar_bytes = io.BytesIO()
    with tarfile.open(fileobj=tar_bytes, mode="w:xz") as tar:
        for path, data in files.items():
            info = tarfile.TarInfo("./" + path)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for path, target in (links or {}).items():
            info = tarfile.TarInfo("./" + path)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tar.addfile(info)
    members = [(b"debian-binary", b"2.0\n"), (b"data.tar.xz", tar_bytes.getvalue())]
    out = bytearray(b"!<arch>\n")
    for name, body in members:
        header = name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"100644".ljust(8)
        out += header + str(len(body)).encode().ljust(10) + b"`\n" + body + (b"\n" if len(body) % 2 else b"")
    return bytes(out)


def _card_set(missing: str | None = None) -> tuple[dict[str, bytes], dict[str, str]]:
    config = b"PySol solitaire cardset;7;.gif;1;52;7;0;1;0\n0;Fake\n40 56 8\n4 4 4 4\nback01.gif\n"
    files = {f"{SET}/config.txt": config}
    for suit in Suit:
        for rank in Rank:
            name = f"{int(rank):02d}{suit.value}.gif"
            if name != missing:
                red = suit in (Suit.HEARTS, Suit.DIAMONDS)
                files[f"{SET}/{name}"] = _gif(f"{rank.symbol}{suit.value}", (200, 0, 0) if red else (0, 0, 0))
    files[f"{CARDSETS}/cardset-other/back09.gif"] = _gif("B", (0, 0, 160))
    return files, {f"{SET}/back01.gif": "../cardset-other/back09.gif"}


def _package(data: bytes) -> DebPackage:
    return DebPackage("fake-cardsets", "1.0", hashlib.sha256(data).hexdigest())


def _fake_design(tmp_path: Path, missing: str | None = None) -> tuple[PysolDesign, Path]:
    """A design of a fake card set pinned to its package, and the folder that package is in."""
    data = _deb(*_card_set(missing))
    package = _package(data)
    debs = tmp_path / "debs"
    debs.mkdir()
    (debs / package.file_name).write_bytes(data)
    return PysolDesign("fake", package, (0.05, 0.03, 0.2, 0.25)), debs


def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> object:
        raise OSError("no network in tests")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)


def test_a_card_set_is_written_as_a_train_design_the_renderer_deals_from_its_folder(tmp_path: Path) -> None:
    design, debs = _fake_design(tmp_path)

    [folder] = write_designs(tmp_path / "decks", debs=debs, designs=[design], log=lambda _: None)

    record = deck_by_id(scanned_id(folder))
    assert record.scanned and record.installed() and record.usable
    assert record.split is Split.TRAIN and record.name == "pysol-fake"
    assert record.index_box == (0.05, 0.03, 0.2, 0.25) and record.index_corners == ("tl", "br")
    face = np.asarray(Image.open(folder / f"{Card(Rank.QUEEN, Suit.HEARTS)}.png"))
    assert face.shape == (56, 40, 4)
    assert face[0, 0, 3] == 0 and face[28, 20, 3] == 255  # the set's transparent corner stays so
    # the back is the set's default, reached through the package's link to another set
    back = np.asarray(Image.open(folder / "back.png").convert("RGB"))
    assert (back[28, 20] == (255, 255, 255)).all() and (back == (0, 0, 160)).all(axis=2).any()
    assert not list((tmp_path / "decks").glob(".*partial"))


def test_a_package_that_is_not_the_pinned_one_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_network(monkeypatch)
    data = _deb(*_card_set())
    pinned = DebPackage("fake-cardsets", "1.0", "0" * 64)  # not the file's SHA-256
    debs = tmp_path / "debs"
    debs.mkdir()
    (debs / pinned.file_name).write_bytes(data)

    with pytest.raises(PysolDecksError, match="cannot download"):
        design = PysolDesign("fake", pinned, DESIGNS[0].index_box)
        write_designs(tmp_path / "decks", debs=debs, designs=[design])
    assert not (tmp_path / "decks").exists()


def test_a_card_set_missing_a_face_is_an_error_that_leaves_no_design(tmp_path: Path) -> None:
    design, debs = _fake_design(tmp_path, missing="12h.gif")

    with pytest.raises(PysolDecksError, match=r"lacks .*cardset-fake/12h\.gif"):
        write_designs(tmp_path / "decks", debs=debs, designs=[design])
    assert not (tmp_path / "decks" / "fake").exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<html>not found</html>", "no ar archive header"),
        (b"!<arch>\n" + b"debian-binary   0           0     0     100644  4         `\n2.0\n", "no data.tar"),
        (_deb({"usr/x": b"x"})[:-40], "damaged Debian package"),
    ],
)
def test_a_damaged_package_gives_a_clear_error(data: bytes, message: str) -> None:
    with pytest.raises(PysolDecksError, match=message):
        deb_members(data, [CARDSETS])


def test_links_that_loop_or_lead_out_of_the_package_are_left_out() -> None:
    links = {f"{SET}/a.gif": "b.gif", f"{SET}/b.gif": "a.gif", f"{SET}/c.gif": "../../x"}
    data = _deb({f"{SET}/01c.gif": b"GIF"}, links)
    assert deb_members(data, [SET]) == {f"{SET}/01c.gif": b"GIF"}


def test_the_designs_are_distinct_card_sets_with_top_left_index_boxes() -> None:
    assert len({d.name for d in DESIGNS}) == len(DESIGNS) == 13
    for design in DESIGNS:
        x0, y0, x1, y1 = design.index_box
        assert 0 <= x0 < x1 <= 0.5 and 0 <= y0 < y1 <= 0.5
        assert design.package in (pysol_decks.CARDSETS_PACKAGE, pysol_decks.PYSOLFC_PACKAGE)
        assert design.package.url.endswith(design.package.file_name.replace("+", "%2B"))


def test_the_command_says_why_when_the_packages_cannot_be_had(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main

    _no_network(monkeypatch)
    assert main(["synth", "pysol-decks", "--out", str(tmp_path / "decks"), "--debs", str(tmp_path)]) == 1
    error = capsys.readouterr().err
    assert "synth: error: cannot download" in error and "pysolfc" in error
    assert not (tmp_path / "decks").exists()


def test_a_design_written_again_replaces_its_folder_whole(tmp_path: Path) -> None:
    design, debs = _fake_design(tmp_path)
    [folder] = write_designs(tmp_path / "decks", debs=debs, designs=[design], log=lambda _: None)
    (folder / "Qh.small.png").write_bytes(b"the renderer's stale copy")

    write_designs(tmp_path / "decks", debs=debs, designs=[design], log=lambda _: None)

    assert not (folder / "Qh.small.png").exists()
    assert deck_by_id(scanned_id(folder)).installed()
    assert [p.name for p in (tmp_path / "decks").iterdir()] == ["fake"]  # no staging folder left
