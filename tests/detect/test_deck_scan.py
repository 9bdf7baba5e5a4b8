"""Scanning a real deck's faces from photos: the design ``deck learn`` deals hands from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from assistant.detect.deck_scan import (
    BACK,
    NAMES,
    SHEET,
    DeckScanError,
    Face,
    assign_names,
    portrait,
    retake_face,
    scan_deck,
    swap_faces,
)
from assistant.synth.decks import SCAN_FILE, deck_by_id, scanned_id, scanned_record

#: A validation design (never trained on), photographed as a dealer would lay it out
DECK, SEED = "kde-nicu-ornamental", 1


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from assistant.synth.scan_photos import write_scan_photos

    folder = tmp_path_factory.mktemp("photos")
    write_scan_photos(DECK, folder, SEED)
    return folder


@pytest.fixture(scope="module")
def scanned(photos: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("scans") / "nicu"
    design = scan_deck(sorted(photos.glob("*.jpg")), out, name="Nicu", log=lambda _: None)
    return out, design


def _truth_name(photos: Path, photo: str, corners: list[list[float]]) -> str:
    """The card that truly lies where a scanned face's corners are."""
    truth = json.loads((photos / "truth.json").read_text())[Path(photo).name]
    middle = np.asarray(corners).mean(0)
    nearest = min(
        truth, key=lambda t: float(np.linalg.norm(np.asarray(t["corners"])[:, :2].mean(0) - middle))
    )
    return str(nearest["card"])


def _copy(scanned: tuple[Path, dict[str, Any]], to: Path, **changes: Any) -> tuple[Path, dict[str, Any]]:
    """A copy of the scanned folder to correct, its ``design.json`` with ``changes``."""
    shutil.copytree(scanned[0], to)
    design = {**json.loads((to / SCAN_FILE).read_text()), **changes}
    (to / SCAN_FILE).write_text(json.dumps(design))
    return to, design


def _felt(tmp_path: Path) -> Path:
    """A photo of a bare green cloth."""
    path = tmp_path / "felt.png"
    cv2.imwrite(str(path), np.full((600, 800, 3), (40, 110, 30), np.uint8))
    return path


def test_a_scan_names_every_face_of_a_deck_it_never_saw_from_five_photos(
    photos: Path, scanned: tuple[Path, dict[str, Any]]
) -> None:
    _, design = scanned
    faces = design["faces"]
    assert sorted(faces) == sorted(NAMES)
    wrong = [name for name, f in faces.items() if _truth_name(photos, f["photo"], f["corners"]) != name]
    assert wrong == []  # the readers alone read 48 of them right; naming all at once, 52
    # the dealer is asked to check only faces read unsurely, and each of those is listed
    assert design["to_check"] == sorted((n for n, f in faces.items() if not f["sure"]), key=NAMES.index)
    assert len(design["to_check"]) <= 6


def test_a_scanned_folder_is_a_design_the_renderer_draws(scanned: tuple[Path, dict[str, Any]]) -> None:
    from assistant.synth.dataset import deck_faces
    from assistant.synth.facecache import FACE_HEIGHT

    out, _ = scanned
    record = scanned_record(out)
    assert record.id == scanned_id(out) and record.name == "Nicu" and record.installed()
    assert deck_by_id(record.id) == record
    faces = deck_faces(record)
    w, h = faces.size
    assert h == FACE_HEIGHT and 0.6 <= w / h <= 0.76
    ace = faces.face(None)  # the back, BGRA like every face
    assert ace.shape == (h, w, 4)
    corner, middle = ace[0, 0, 3], ace[h // 2, w // 2, 3]
    assert corner == 0 and middle == 255  # rounded corners
    # where its indices lie: about where the design prints them (decks.json, measured by eye)
    x0, y0, x1, y1 = record.index_box
    tx0, ty0, tx1, ty1 = deck_by_id(DECK).index_box
    inter = max(0.0, min(x1, tx1) - max(x0, tx0)) * max(0.0, min(y1, ty1) - max(y0, ty0))
    union = (x1 - x0) * (y1 - y0) + (tx1 - tx0) * (ty1 - ty0) - inter
    assert inter / union >= 0.6
    assert set(record.index_corners) == {"tl", "br"}
    assert (out / SHEET).is_file() and (out / BACK).is_file()
    assert not list(out.parent.glob(".*.scanning"))


def test_hands_are_dealt_from_a_scanned_deck_for_its_lesson(
    scanned: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    from assistant.synth.zones import write_zone_dataset

    out, _ = scanned
    summary = write_zone_dataset(
        tmp_path, 1, 3, rate=0.02, val=0.0, test=0.0, workers=1, deck_id=scanned_id(out)
    )
    truths = sorted(tmp_path.glob("truth/train/*.json"))
    assert summary["deck"] == scanned_id(out) and truths
    labelled = [
        idx
        for t in truths
        for obj in json.loads(t.read_text())["objects"]
        if obj["kind"] == "card"
        for idx in obj["indices"]
        if idx["labelled"]
    ]
    assert labelled  # its indices are labelled where the scan found them: what the readers learn


def test_the_dealer_swaps_two_misnamed_faces(scanned: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    folder, _ = _copy(scanned, tmp_path / "copy")
    queen, jack = (folder / "Qs.png").read_bytes(), (folder / "Js.png").read_bytes()
    design = swap_faces(folder, "Qs", "Js")
    assert (folder / "Qs.png").read_bytes() == jack and (folder / "Js.png").read_bytes() == queen
    saved = json.loads((folder / SCAN_FILE).read_text())
    assert saved == design and saved["faces"]["Qs"]["checked_by_dealer"] is True
    assert "Qs" not in saved["to_check"] and "Js" not in saved["to_check"]
    with pytest.raises(DeckScanError, match="not a card name"):
        swap_faces(folder, "Qs", "Xx")
    with pytest.raises(DeckScanError, match="two different"):
        swap_faces(folder, "Qs", "Qs")
    with pytest.raises(ValueError, match="holds no scanned deck"):
        swap_faces(tmp_path, "Qs", "Js")


def _picture(path: Path) -> np.ndarray:
    picture = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert picture is not None, path
    return np.asarray(picture)


def test_the_dealer_retakes_a_face_the_scan_got_wrong_from_a_new_photo(
    scanned: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main
    from assistant.synth.scan_photos import write_scan_photos

    # the scan went wrong on the Qs: its picture is another card's, flagged for the dealer
    flagged = sorted({*scanned[1]["to_check"], "Qs"}, key=NAMES.index)
    folder, design = _copy(scanned, tmp_path / "copy", to_check=flagged)
    shutil.copyfile(folder / "Js.png", folder / "Qs.png")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}

    # a photo of other cards, or of none, changes nothing
    others = write_scan_photos(DECK, tmp_path / "others", 3, only=["2c", "9h"])[0]
    with pytest.raises(DeckScanError, match="2 face-up cards and none reads as Qs"):
        retake_face(folder, "Qs", others, log=lambda _: None)
    felt = _felt(tmp_path)
    with pytest.raises(DeckScanError, match="no face-up card found"):
        retake_face(folder, "Qs", felt, log=lambda _: None)
    with pytest.raises(DeckScanError, match="not a card name"):
        retake_face(folder, "Q♠", felt, log=lambda _: None)
    with pytest.raises(ValueError, match="holds no scanned deck"):
        retake_face(tmp_path, "Qs", felt, log=lambda _: None)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    damaged = tmp_path / "damaged"
    shutil.copytree(folder, damaged)
    (damaged / SCAN_FILE).write_text(json.dumps({**design, "aspect": "wide"}))
    with pytest.raises(DeckScanError, match="damaged: its aspect"):
        retake_face(damaged, "Qs", felt, log=lambda _: None)

    # the Qs photographed again beside two other cards: its face replaces the wrong one
    photo = write_scan_photos(DECK, tmp_path / "again", 2, only=["5d", "Qs", "8c"])[0]
    assert main(["deck", "retake", str(folder), "Qs", str(photo)]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["retaken"] == "Qs" and said["read_as"] == "Qs" and "Qs" not in said["to_check"]
    picture = _picture(folder / "Qs.png")
    assert picture.shape[2] == 4 and picture.shape[:2] == _picture(folder / "Js.png").shape[:2]
    saved = json.loads((folder / SCAN_FILE).read_text())
    # the face was cut where the Qs truly lies in the new photo
    qs = saved["faces"]["Qs"]
    assert qs["photo"] == str(photo) and _truth_name(photo.parent, qs["photo"], qs["corners"]) == "Qs"
    assert saved["faces"]["Qs"]["retaken"] is True and saved["faces"]["Qs"]["checked_by_dealer"] is True
    assert saved["to_check"] == [c for c in design["to_check"] if c != "Qs"]
    # every other face is as it was; the contact sheet is drawn again
    after = {p.name: p.read_bytes() for p in folder.iterdir()}
    changed = {name for name in before if after.get(name) != before[name]}
    assert changed - {"Qs.small.png"} == {"Qs.png", SCAN_FILE, SHEET}
    assert not (folder / "Qs.small.png").exists()  # the renderer's small copy is made again
    assert not list(folder.glob(".*"))


def test_the_dealer_retakes_the_back_from_a_photo_of_a_card_face_down(
    scanned: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main
    from assistant.synth.scan_photos import write_scan_photos

    # a scan whose photos held no card face down draws a back
    folder, _ = _copy(scanned, tmp_path / "copy", back="drawn")
    drawn = np.full_like(_picture(folder / BACK), 255)
    cv2.imwrite(str(folder / BACK), drawn)
    faces_only = write_scan_photos(DECK, tmp_path / "faces", 4, only=["3c", "8s"])[0]
    with pytest.raises(DeckScanError, match="2 cards and none face down"):
        retake_face(folder, "back", faces_only, log=lambda _: None)
    with pytest.raises(DeckScanError, match="no card found"):
        retake_face(folder, "back", _felt(tmp_path), log=lambda _: None)
    assert json.loads((folder / SCAN_FILE).read_text())["back"] == "drawn"

    # this design's back is a picture the readers take for a face: alone, it is the back
    photo = write_scan_photos(DECK, tmp_path / "back", 1, only=["back"])[0]
    assert json.loads((photo.parent / "truth.json").read_text())["scan-00.jpg"][0]["card"] == "back"
    assert main(["deck", "retake", str(folder), "back", str(photo)]) == 0
    assert json.loads(capsys.readouterr().out)["retaken"] == "back"
    saved = json.loads((folder / SCAN_FILE).read_text())
    assert saved["back"] == "photographed" and saved["back_photo"] == str(photo)
    back = _picture(folder / BACK)
    assert back.shape == drawn.shape  # stood up at the design's size, with its rounded corners
    assert back[0, 0, 3] == 0 and back[back.shape[0] // 2, back.shape[1] // 2, 3] == 255
    assert float(np.abs(back[:, :, :3].astype(float) - 255).mean()) > 20  # the photographed back, not white
    # the faces are as they were
    assert all((folder / f"{n}.png").read_bytes() == (scanned[0] / f"{n}.png").read_bytes() for n in NAMES)


def test_a_scan_missing_cards_says_which_and_writes_nothing(photos: Path, tmp_path: Path) -> None:
    truth = json.loads((photos / "truth.json").read_text())
    first = sorted(photos.glob("*.jpg"))[0]
    left_out = {t["card"] for t in truth[first.name]}
    with pytest.raises(
        DeckScanError, match=r"found \d+ face-up cards, not 52; the likeliest missing: "
    ) as error:
        scan_deck(sorted(photos.glob("*.jpg"))[1:], tmp_path / "deck", log=lambda _: None)
    named = set(str(error.value).split("missing: ")[1].split(".")[0].split(", "))
    # the photographed back counts as a face here, so 11 of the 12 are named
    assert len(named) >= 11 and len(named & left_out) >= 10
    assert list(tmp_path.iterdir()) == []


def test_an_unreadable_photo_is_reported_and_the_others_are_scanned(photos: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg")
    lines: list[str] = []
    design = scan_deck([*sorted(photos.glob("*.jpg")), broken], tmp_path / "deck", log=lines.append)
    assert len(design["faces"]) == 52
    assert len(design["unreadable_photos"]) == 1 and "broken.jpg" in design["unreadable_photos"][0]
    assert any("broken.jpg" in line for line in lines)


def test_a_scan_will_not_write_into_a_full_folder(photos: Path, tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("mine")
    with pytest.raises(DeckScanError, match="not an empty folder"):
        scan_deck(sorted(photos.glob("*.jpg")), tmp_path, log=lambda _: None)
    with pytest.raises(DeckScanError, match="no photos"):
        scan_deck([], tmp_path / "new", log=lambda _: None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


def _face(rank: dict[str, float], suit: dict[str, float]) -> Face:
    r = np.full(13, 1e-4, np.float32)
    s = np.full(4, 1e-4, np.float32)
    for k, v in rank.items():
        r["A23456789TJQK".index(k)] = v
    for k, v in suit.items():
        s["cdhs".index(k)] = v
    return Face("p.jpg", np.zeros((4, 2)), 0.9, np.zeros((4, 4, 3), np.uint8), r / r.sum(), s / s.sum(), [])


def test_each_name_goes_to_one_face_and_a_back_read_as_a_card_is_left_out() -> None:
    faces = [_face({n[0]: 1.0}, {n[1]: 1.0}) for n in NAMES if n not in ("Kc", "Ks")]
    kc_read_as_ks = _face({"K": 1.0}, {"s": 0.97, "c": 0.03})
    ks = _face({"K": 1.0}, {"s": 1.0})
    back = _face({"Q": 0.3, "K": 0.2}, {"h": 0.4, "c": 0.3})  # a back, read unsurely as anything
    named = assign_names([*faces, back, kc_read_as_ks, ks])
    assert len(named) == 52 and len(set(named.values())) == 52
    assert named["Ks"] == len(faces) + 2 and named["Kc"] == len(faces) + 1
    assert len(faces) not in named.values()  # the back has no name


def test_corners_are_ordered_round_the_card_from_a_short_side() -> None:
    across = np.array([[0, 0], [0, 63], [88, 63], [88, 0.0]])
    q = portrait(across)
    sides = np.linalg.norm(np.roll(q, -1, 0) - q, axis=1)
    assert sides[0] < sides[1] and sides[2] < sides[3]


def test_a_damaged_scanned_design_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="holds no scanned deck"):
        scanned_record(tmp_path)
    (tmp_path / SCAN_FILE).write_text("{")
    with pytest.raises(ValueError, match="cannot be read"):
        scanned_record(tmp_path)
    (tmp_path / SCAN_FILE).write_text(
        json.dumps({"index_box": [0.5, 0.1, 0.2, 0.3], "index_corners": ["tl"]})
    )
    with pytest.raises(ValueError, match="damaged: index_box"):
        scanned_record(tmp_path)
    (tmp_path / SCAN_FILE).write_text(
        json.dumps({"index_box": [0.03, 0.05, 0.2, 0.3], "index_corners": ["up"]})
    )
    with pytest.raises(ValueError, match="damaged: index_corners"):
        scanned_record(tmp_path)
    with pytest.raises(KeyError, match="holds no scanned deck"):
        deck_by_id("scan:" + str(tmp_path / "nothing"))


def test_deck_scan_and_swap_commands_report_in_one_line(
    scanned: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main

    folder, _ = _copy(scanned, tmp_path / "copy")
    assert main(["deck", "swap", str(folder), "As", "Ah"]) == 0
    assert json.loads(capsys.readouterr().out)["swapped"] == ["As", "Ah"]
    assert main(["deck", "swap", str(folder), "As", "1s"]) == 1
    assert "not a card name" in capsys.readouterr().err
    assert main(["deck", "scan", str(tmp_path / "none.jpg"), "--out", str(tmp_path / "d")]) == 1
    err = capsys.readouterr().err
    assert "none.jpg" in err and "found 0 face-up cards" in err
    assert not (tmp_path / "d").exists()
    assert main(["deck", "learn", str(tmp_path), "--out", str(tmp_path / "m")]) == 1
    assert "holds no scanned deck" in capsys.readouterr().err


def test_a_scanned_deck_is_named_by_its_folder_in_the_dealers_note(tmp_path: Path) -> None:
    from assistant.detect.deck_learning import DECK_FILE, deck_note

    (tmp_path / DECK_FILE).write_text(json.dumps({"deck": "scan:/home/me/decks/bicycle"}))
    note = deck_note(tmp_path)
    assert note is not None and "tuned to the deck scanned into /home/me/decks/bicycle" in note


def test_a_photo_of_no_cards_finds_no_face(tmp_path: Path) -> None:
    from assistant.detect.deck_scan import DeckScanner

    faces, back, _, problems = DeckScanner().faces([_felt(tmp_path)], log=lambda _: None)
    assert faces == [] and back is None and problems == []


def test_a_new_photo_of_a_few_cards_is_rendered_for_a_retake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main

    args = ["synth", "scan-photos", "--deck", DECK, "--seed", "4"]
    assert main([*args, "--out", str(tmp_path / "bad"), "--cards", "Qs,Xx"]) == 1
    assert "not card names: Xx" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()
    assert main([*args, "--out", str(tmp_path / "two"), "--cards", "Qs, 7d"]) == 0
    truth = json.loads((tmp_path / "two" / "truth.json").read_text())
    assert list(truth) == ["scan-00.jpg"]
    assert [t["card"] for t in truth["scan-00.jpg"]] == ["Qs", "7d"]  # face up, no back
