from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.cli import main
from assistant.vision.default_layouts import oval_layout
from assistant.vision.marker_sheet import PNG_DPI, MarkerSheetError, write_marker_sheet
from assistant.vision.markers import MarkerDetector


def _png_dpi(path: Path) -> float:
    data = path.read_bytes()
    at = data.index(b"pHYs")
    per_metre, _, unit = struct.unpack(">IIB", data[at + 4 : at + 13])
    assert unit == 1
    return float(per_metre * 0.0254)


def test_png_sheet_holds_every_marker_at_true_size(tmp_path: Path) -> None:
    layout = oval_layout(8)
    written = write_marker_sheet(layout, tmp_path / "markers.png")
    detector = MarkerDetector()
    found: dict[int, float] = {}
    for page in written:
        assert _png_dpi(page) == pytest.approx(PNG_DPI, abs=0.1)
        image = cv2.imread(str(page), cv2.IMREAD_GRAYSCALE)
        assert image is not None
        small = cv2.resize(image, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
        for detection in detector.detect(np.asarray(small, np.uint8)):
            found[detection.id] = detection.side_px * 4
    assert sorted(found) == [m.id for m in layout.markers]
    expected_px = 80.0 / 25.4 * PNG_DPI
    for side in found.values():
        assert side == pytest.approx(expected_px, rel=0.01)


def _pdf_pages(data: bytes) -> list[bytes]:
    """Content streams of a PDF, after checking its cross-reference table."""
    xref_at = int(re.search(rb"startxref\n(\d+)", data).group(1))  # type: ignore[union-attr]
    assert data[xref_at:].startswith(b"xref")
    count = int(re.search(rb"xref\n0 (\d+)", data).group(1))  # type: ignore[union-attr]
    entries = re.findall(rb"(\d{10}) 00000 n", data[xref_at:])
    assert len(entries) == count - 1
    for number, offset in enumerate(entries, start=1):
        assert data[int(offset) :].startswith(f"{number} 0 obj".encode())
    streams = re.findall(rb"/FlateDecode >>\nstream\n(.*?)\nendstream", data, re.S)
    return [zlib.decompress(stream) for stream in streams]


def test_pdf_sheet_draws_markers_that_decode_at_true_size(tmp_path: Path) -> None:
    layout = oval_layout(6)
    (path,) = write_marker_sheet(layout, tmp_path / "markers.pdf")
    data = path.read_bytes()
    assert data.startswith(b"%PDF-1.4")
    pages = _pdf_pages(data)
    assert b"/Helvetica" in data
    detector = MarkerDetector()
    found = set()
    scale = 4.0  # pixels per point when rasterising the page's filled squares
    for content in pages:
        canvas = np.full((round(842 * scale), round(596 * scale)), 255, np.uint8)
        squares = re.findall(rb"0 g ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) re f", content)
        for x, y, w, h in (tuple(float(v) for v in square) for square in squares):
            top = 842 - y - h
            canvas[
                round(top * scale) : round((top + h) * scale),
                round(x * scale) : round((x + w) * scale),
            ] = 0
        for detection in detector.detect(canvas):
            found.add(detection.id)
            side_mm = detection.side_px / scale * 25.4 / 72
            assert side_mm == pytest.approx(80.0, abs=0.3)
    assert found == {m.id for m in layout.markers}


def test_sheet_labels_say_where_each_marker_goes(tmp_path: Path) -> None:
    (path,) = write_marker_sheet(oval_layout(8), tmp_path / "markers.pdf")
    text = b"".join(_pdf_pages(path.read_bytes()))
    assert b"marker 3: centre at x=" in text
    assert b"Print at 100%" in text


def test_unknown_sheet_format_is_refused(tmp_path: Path) -> None:
    with pytest.raises(MarkerSheetError, match=r"use \.pdf or \.png"):
        write_marker_sheet(oval_layout(8), tmp_path / "markers.svg")


def test_marker_sheet_command_writes_the_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sheet.pdf"
    assert main(["calibrate", "marker-sheet", "--out", str(out), "--layout", "oval-5"]) == 0
    assert out.read_bytes().startswith(b"%PDF")
    assert "5 markers of layout oval-5" in capsys.readouterr().out
