"""The printable marker sheet: every marker of a layout at its true size, as PDF or PNG.

Each marker is printed on a white square (its margin; cut along the dashed line, not
inside it) with a label saying where it goes on the table. A 100 mm scale bar on every
page checks that the printer did not scale the page. The PDF is drawn with vector
rectangles and the built-in Helvetica font; the PNG is rendered at 300 dpi and carries
its resolution, so both print at true size. A4 pages, as many as the markers need.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from assistant.vision.layout import MarkerPlacement, TableLayout, marker_margin_mm
from assistant.vision.markers import MARKER_CELLS, marker_cells

PAGE_MM = (210.0, 297.0)  # A4 portrait
PAGE_MARGIN_MM = 12.0
GAP_MM = 6.0
LABEL_MM = 9.0
HEADER_MM = 16.0
PNG_DPI = 300
SCALE_BAR_MM = 100.0


class MarkerSheetError(ValueError):
    """The sheet cannot be made as asked (unknown format, markers larger than a page)."""


@dataclass(frozen=True)
class PlacedMarker:
    marker: MarkerPlacement
    x_mm: float  # top-left corner of the white paper square, from the page's top-left
    y_mm: float
    paper_mm: float

    @property
    def label(self) -> str:
        m = self.marker
        return (
            f"marker {m.id}: centre at x={m.center[0]:.0f} mm, y={m.center[1]:.0f} mm, "
            f"turned {m.angle_deg:.1f} deg"
        )


def plan_pages(layout: TableLayout) -> list[list[PlacedMarker]]:
    """Lay the markers out on A4 pages, left to right then top to bottom."""
    usable_w = PAGE_MM[0] - 2 * PAGE_MARGIN_MM
    usable_h = PAGE_MM[1] - 2 * PAGE_MARGIN_MM - HEADER_MM
    pages: list[list[PlacedMarker]] = [[]]
    x, y, row_height = 0.0, 0.0, 0.0
    for marker in layout.markers:
        paper = marker.size_mm + 2 * marker_margin_mm(marker.size_mm)
        cell_w = max(paper, 80.0)
        cell_h = paper + LABEL_MM
        if cell_w > usable_w or cell_h > usable_h:
            raise MarkerSheetError(f"marker {marker.id} ({marker.size_mm:g} mm) does not fit on an A4 page")
        if x + cell_w > usable_w:
            x, y, row_height = 0.0, y + row_height + GAP_MM, 0.0
        if y + cell_h > usable_h:
            pages.append([])
            x, y, row_height = 0.0, 0.0, 0.0
        pages[-1].append(PlacedMarker(marker, PAGE_MARGIN_MM + x, PAGE_MARGIN_MM + HEADER_MM + y, paper))
        x += cell_w + GAP_MM
        row_height = max(row_height, cell_h)
    return pages


def _header(layout: TableLayout, page: int, pages: int) -> tuple[str, str]:
    return (
        f"dealer-assistant table markers - layout {layout.name} - page {page} of {pages}",
        "Print at 100% (no fit-to-page). The bar below must measure 100 mm. Cut on the dashed lines.",
    )


def _black_cells(placed: PlacedMarker) -> list[tuple[float, float, float]]:
    """Each black cell as (x_mm, y_mm, side_mm) from the page's top-left."""
    margin = marker_margin_mm(placed.marker.size_mm)
    cell = placed.marker.size_mm / MARKER_CELLS
    cells = marker_cells(placed.marker.id)
    return [
        (placed.x_mm + margin + column * cell, placed.y_mm + margin + row * cell, cell)
        for row, column in zip(*np.nonzero(cells), strict=True)
    ]


# --- PDF -------------------------------------------------------------------------------


def _pdf_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _pdf_page_content(layout: TableLayout, placed: list[PlacedMarker], page: int, pages: int) -> bytes:
    pt = 72.0 / 25.4
    height = PAGE_MM[1]

    def xy(x_mm: float, y_mm: float) -> str:
        return f"{x_mm * pt:.3f} {(height - y_mm) * pt:.3f}"

    ops: list[str] = []
    title, hint = _header(layout, page, pages)
    ops.append(f"BT /F1 10 Tf {xy(PAGE_MARGIN_MM, PAGE_MARGIN_MM + 2)} Td ({_pdf_text(title)}) Tj ET")
    ops.append(f"BT /F1 7 Tf {xy(PAGE_MARGIN_MM, PAGE_MARGIN_MM + 6)} Td ({_pdf_text(hint)}) Tj ET")
    bar_y = PAGE_MARGIN_MM + 9
    ops.append(f"0 g {xy(PAGE_MARGIN_MM, bar_y + 2)} {SCALE_BAR_MM * pt:.3f} {2 * pt:.3f} re f")
    for item in placed:
        for x, y, side in _black_cells(item):
            ops.append(f"0 g {xy(x, y + side)} {side * pt:.3f} {side * pt:.3f} re f")
        ops.append(
            f"0.6 G 0.5 w [3 3] 0 d {xy(item.x_mm, item.y_mm + item.paper_mm)} "
            f"{item.paper_mm * pt:.3f} {item.paper_mm * pt:.3f} re S [] 0 d"
        )
        ops.append(
            f"0 g BT /F1 7 Tf {xy(item.x_mm, item.y_mm + item.paper_mm + 4)} Td "
            f"({_pdf_text(item.label)}) Tj ET"
        )
    return "\n".join(ops).encode("ascii")


def write_pdf(layout: TableLayout, path: Path) -> None:
    plan = plan_pages(layout)
    pt = 72.0 / 25.4
    objects: list[bytes] = []  # object n is objects[n - 1]
    page_ids = [3 + 2 * index for index in range(len(plan))]
    font_id = 3 + 2 * len(plan)
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{page_id} 0 R" for page_id in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(plan)} >>".encode())
    for index, placed in enumerate(plan):
        content = zlib.compress(_pdf_page_content(layout, placed, index + 1, len(plan)))
        objects.append(
            (
                f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {PAGE_MM[0] * pt:.3f} "
                f"{PAGE_MM[1] * pt:.3f}] /Resources << /Font << /F1 {font_id} 0 R >> >> "
                f"/Contents {page_ids[index] + 1} 0 R >>"
            ).encode()
        )
        objects.append(
            f"<< /Length {len(content)} /Filter /FlateDecode >>\nstream\n".encode() + content + b"\nendstream"
        )
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))


# --- PNG -------------------------------------------------------------------------------


def render_page(layout: TableLayout, placed: list[PlacedMarker], page: int, pages: int) -> NDArray[np.uint8]:
    """One page as a grey image at :data:`PNG_DPI`."""
    px = PNG_DPI / 25.4
    image = np.full((round(PAGE_MM[1] * px), round(PAGE_MM[0] * px)), 255, dtype=np.uint8)

    def at(x_mm: float, y_mm: float) -> tuple[int, int]:
        return round(x_mm * px), round(y_mm * px)

    title, hint = _header(layout, page, pages)
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(image, title, at(PAGE_MARGIN_MM, PAGE_MARGIN_MM + 2), font, 1.2, 0, 2, cv2.LINE_AA)
    cv2.putText(image, hint, at(PAGE_MARGIN_MM, PAGE_MARGIN_MM + 6), font, 0.8, 0, 2, cv2.LINE_AA)
    bar_y = PAGE_MARGIN_MM + 9
    x0, y0 = at(PAGE_MARGIN_MM, bar_y)
    image[y0 : y0 + round(2 * px), x0 : x0 + round(SCALE_BAR_MM * px)] = 0
    for item in placed:
        for x, y, side in _black_cells(item):
            (left, top), (right, bottom) = at(x, y), at(x + side, y + side)
            image[top:bottom, left:right] = 0
        left, top = at(item.x_mm, item.y_mm)
        right, bottom = at(item.x_mm + item.paper_mm, item.y_mm + item.paper_mm)
        for start in range(left, right, 36):
            image[top, start : min(start + 18, right)] = 150
            image[bottom, start : min(start + 18, right)] = 150
        for start in range(top, bottom, 36):
            image[start : min(start + 18, bottom), left] = 150
            image[start : min(start + 18, bottom), right] = 150
        cv2.putText(
            image,
            item.label,
            at(item.x_mm, item.y_mm + item.paper_mm + 5),
            font,
            0.8,
            0,
            2,
            cv2.LINE_AA,
        )
    return image


def _png_with_dpi(image: NDArray[np.uint8], dpi: int) -> bytes:
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise MarkerSheetError("could not encode the PNG")
    data = encoded.tobytes()
    per_metre = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    header_end = 8 + 8 + 13 + 4  # signature, then the IHDR chunk
    return data[:header_end] + chunk + data[header_end:]


def write_png(layout: TableLayout, path: Path) -> list[Path]:
    """Write one PNG per page: ``path`` itself if one page, else ``stem-pageN.png``."""
    plan = plan_pages(layout)
    paths = (
        [path]
        if len(plan) == 1
        else [path.with_name(f"{path.stem}-page{n}{path.suffix}") for n in range(1, len(plan) + 1)]
    )
    for index, (placed, target) in enumerate(zip(plan, paths, strict=True)):
        target.write_bytes(_png_with_dpi(render_page(layout, placed, index + 1, len(plan)), PNG_DPI))
    return paths


def write_marker_sheet(layout: TableLayout, path: str | Path) -> list[Path]:
    """Write the sheet as PDF or PNG, chosen by the file's extension; returns the files."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        write_pdf(layout, path)
        return [path]
    if suffix == ".png":
        return write_png(layout, path)
    raise MarkerSheetError(f"unknown sheet format {path.suffix or '(none)'!r}: use .pdf or .png")
