"""Labels come from the scene geometry; these tests check them against the pixels."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.engine.cards import parse_card
from assistant.synth.camera import Camera
from assistant.synth.dataset import deck_faces, render_sample, write_dataset
from assistant.synth.decks import Split, deck_by_id
from assistant.synth.effects import sample_light
from assistant.synth.labels import CLASS_ID, index_crops, scene_truth, yolo_lines
from assistant.synth.render import render
from assistant.synth.scene import CardItem, Hand, Scene
from assistant.synth.surfaces import Surface, felt

pytestmark = pytest.mark.usefixtures("decks_installed")


def _flat_scene(cards: list[CardItem], hands: list[Hand] | None = None) -> Scene:
    cam = Camera.looking_at(640, 480, hfov_deg=60, target=(0.0, 0.0), distance=45, tilt_deg=0, yaw_deg=0)
    surface = Surface("felt", "felt-green", felt(np.random.default_rng(0), "green"), 50.0)
    light = {k: 0.0 for k in sample_light(np.random.default_rng(0))}
    light["exposure"] = 1.0
    return Scene(cam, surface, "kde-standard", cards, [], hands or [], [], (40.0, 40.0), light)


@pytest.mark.parametrize("index", range(8))
def test_every_labelled_card_box_contains_its_reprojected_corners(index: int) -> None:
    sample = render_sample(5, index, Split.TRAIN, closeup=index % 4 == 3)
    cam = sample.scene.camera
    labelled = [t for t in sample.truths if t.labelled and t.kind in ("card", "face_down")]
    assert labelled or index % 4 != 3
    for t in labelled:
        assert t.box is not None and t.corners is not None
        x0, y0, x1, y1 = t.box
        for x, y in t.corners:
            if 0 <= x < cam.width and 0 <= y < cam.height:
                assert x0 - 0.5 <= x <= x1 + 0.5 and y0 - 0.5 <= y <= y1 + 0.5
        # and the card's own pixels sit inside the box
        ys, xs = np.nonzero(sample.rendered.ids == t.oid)
        assert xs.min() >= x0 - 1 and xs.max() <= x1 + 1 and ys.min() >= y0 - 1 and ys.max() <= y1 + 1
        # its label line is written with the right class
        for idx in t.indices:
            if idx.labelled:
                qx, qy = idx.quad[:, 0], idx.quad[:, 1]
                assert x0 - 1 <= qx.min() and qx.max() <= x1 + 1 and y0 - 1 <= qy.min() and qy.max() <= y1 + 1
    lines = yolo_lines(sample.truths, cam.width, cam.height)
    n_cards = sum(1 for line in lines if int(line.split()[0]) in (CLASS_ID["card"], CLASS_ID["face_down"]))
    assert n_cards == len(labelled)


def test_a_card_under_another_is_not_labelled_but_the_top_one_is() -> None:
    under = CardItem(parse_card("Ah"), True, 0.0, 0.0, 0.0, layer=0)
    top = CardItem(parse_card("Ks"), True, 0.3, -0.2, 0.02, layer=1)
    scene = _flat_scene([under, top])
    record = deck_by_id("kde-standard")
    rendered = render(scene, deck_faces(record), np.random.default_rng(0), effects=False)
    truths = {t.card: t for t in scene_truth(scene, rendered, record)}
    assert not truths["Ah"].labelled and truths["Ah"].visible < 0.2
    assert truths["Ks"].labelled and truths["Ks"].visible > 0.95
    assert not any(i.labelled for i in truths["Ah"].indices)


def test_overlapped_row_keeps_the_left_index_and_loses_the_covered_one() -> None:
    width = (
        8.8 * deck_faces(deck_by_id("kde-standard")).size[0] / deck_faces(deck_by_id("kde-standard")).size[1]
    )
    left = CardItem(parse_card("7c"), True, 0.0, 0.0, 0.0, layer=0, width_cm=width)
    right = CardItem(parse_card("2d"), True, width * 0.5, 0.0, 0.0, layer=1, width_cm=width)
    scene = _flat_scene([left, right])
    record = deck_by_id("kde-standard")
    rendered = render(scene, deck_faces(record), np.random.default_rng(0), effects=False)
    truths = {t.card: t for t in scene_truth(scene, rendered, record)}
    idx = {i.corner: i for i in truths["7c"].indices}
    assert truths["7c"].labelled and 0.4 < truths["7c"].visible < 0.6
    assert idx["tl"].labelled and not idx["br"].labelled
    assert all(i.labelled for i in truths["2d"].indices)


def test_a_hand_over_most_of_a_card_hides_it() -> None:
    card = CardItem(parse_card("Qd"), True, 0.0, 0.0, 0.0)
    hand = Hand(0.0, 5.0, 0.0, -40.0, height=1.0, width=16.0)
    scene = _flat_scene([card], [hand])
    record = deck_by_id("kde-standard")
    rendered = render(scene, deck_faces(record), np.random.default_rng(0), effects=False)
    (truth,) = scene_truth(scene, rendered, record)
    assert truth.visible < 1 / 3 and not truth.labelled


def test_index_crop_is_the_printed_index_upright() -> None:
    record = deck_by_id("kde-standard")
    faces = deck_faces(record)
    card = CardItem(parse_card("9h"), True, 0.0, 0.0, math.pi, width_cm=8.8 * faces.size[0] / faces.size[1])
    scene = _flat_scene([card])
    rendered = render(scene, faces, np.random.default_rng(0), effects=False)
    truths = scene_truth(scene, rendered, record)
    crops: dict[str, np.ndarray | None] = dict.fromkeys(["tl", "br"])
    for (name, image), idx in zip(index_crops(rendered.image, truths), truths[0].indices, strict=True):
        assert name == "9h"
        crops[idx.corner] = image
    face = faces.face(parse_card("9h"))
    w, h = faces.size
    x0, y0, x1, y1 = record.index_box_at("tl")
    patch = face[round(y0 * h) : round(y1 * h), round(x0 * w) : round(x1 * w), :3]
    ref = cv2.resize(patch, (40, 64), interpolation=cv2.INTER_AREA).astype(np.float32).mean(axis=2)
    for crop in crops.values():
        assert crop is not None
        got = crop.astype(np.float32).mean(axis=2)
        corr = np.corrcoef(ref.ravel(), got.ravel())[0, 1]
        assert corr > 0.8
        flipped = np.corrcoef(ref.ravel(), got[::-1, ::-1].ravel())[0, 1]
        assert corr > flipped


def test_same_seed_writes_the_same_bytes(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    write_dataset(a, 4, seed=9, val=0.25, test=0.25, workers=1)
    write_dataset(b, 4, seed=9, val=0.25, test=0.25, workers=2)
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file() and p.name != "data.yaml")
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file() and p.name != "data.yaml")
    assert files_a == files_b and len(files_a) > 12
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    data = (a / "data.yaml").read_text()
    assert "train: images/train" in data and "  1: index" in data
