"""Training code paths on a tiny dataset made of the fixtures (seconds, not a real run)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np
import pytest

from assistant.detect.readers import OnnxReader
from assistant.detect.recipe import DEFAULT_RECIPE, ReaderRecipe, Recipe, RecipeError
from tests.detect.datasets import fixture_dataset
from tests.detect.images import as_bgr

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture()
def tiny_dataset(tmp_path: Path) -> Path:
    return fixture_dataset(tmp_path / "data")


def test_the_shipped_recipe_loads_and_builds_from_a_model_yaml() -> None:
    recipe = Recipe.load(DEFAULT_RECIPE)
    assert recipe.model.suffix == ".yaml" and recipe.model.is_file()
    assert recipe.detector_args["imgsz"] >= 320
    assert "pretrained" not in recipe.detector_args  # forced off by the trainer


def test_the_face_reader_recipe_cuts_strips_72_mm_wide_as_the_shipped_face_reader_reads() -> None:
    recipe = Recipe.load(DEFAULT_RECIPE.parent / "train_faces.yaml")
    shipped = OnnxReader(DEFAULT_RECIPE.parent / "face_reader.onnx")
    assert (recipe.faces.crop, recipe.faces.crop_width) == (shipped.size, shipped.width) == (88, 72)
    assert recipe.faces.out != Recipe.load(DEFAULT_RECIPE).strips.out  # its own run and caches


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("dataset: /x\n", "needs a 'dataset' and a 'detector'"),
        ("dataset: /x\ndetector: {imgsz: 320}\n", "detector.model"),
        ("dataset: [unclosed\n", "not valid YAML"),
        ("dataset: /x\ndetector: {model: m.yaml}\nreader: {colour: 3}\n", "colour"),
    ],
)
def test_a_bad_recipe_is_refused_with_the_reason(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "train.yaml"
    path.write_text(text)
    with pytest.raises(RecipeError, match=message):
        Recipe.load(path)


def test_a_missing_recipe_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RecipeError, match="cannot read"):
        Recipe.load(tmp_path / "absent.yaml")


@pytest.mark.parametrize("kind", ["index", "chips"])
def test_reader_trains_resumes_and_exports_to_onnx(tiny_dataset: Path, tmp_path: Path, kind: str) -> None:
    from assistant.detect.train_reader import export_reader, train_reader

    out = tmp_path / kind
    recipe = ReaderRecipe(crop=32, epochs=2, batch=64, out=str(out), balance=kind == "chips")
    train_reader(kind, tiny_dataset, recipe, epochs=1, log=lambda _: None)
    assert (out / "last.pt").is_file() and (out / "crops_train.npz").is_file()
    with pytest.raises(ValueError, match="--resume"):  # a fresh run never overwrites one
        train_reader(kind, tiny_dataset, recipe, epochs=1, log=lambda _: None)
    best = train_reader(kind, tiny_dataset, recipe, resume=True, log=lambda _: None)
    import json

    history = json.loads((out / "history.json").read_text())
    assert [h["epoch"] for h in history] == [1, 2]  # resumed at epoch 2, not from scratch
    assert (out / "epoch1.pt").is_file() and (out / "epoch2.pt").is_file()  # each epoch's weights kept
    onnx = export_reader(best, tmp_path / f"{kind}.onnx")
    reader = OnnxReader(onnx)
    image = (np.random.default_rng(0).random((100, 100, 3)) * 255).astype(np.uint8)
    probs = reader.read(image, [(10, 10, 20, 28), (50, 50, 70, 70)])
    expected = {"index": {"rank": 13, "suit": 4}, "chips": {"count": 21}}[kind]
    assert {k: v.shape for k, v in probs.items()} == {k: (2, n) for k, n in expected.items()}
    for v in probs.values():
        np.testing.assert_allclose(v.sum(1), 1, atol=1e-4)


def test_a_reader_recipe_seed_makes_its_training_repeatable(tiny_dataset: Path, tmp_path: Path) -> None:
    """Readers read together must be trained apart: a recipe's ``seed`` fixes the first
    weights and the batch order, so the same seed trains the same weights and another
    seed other ones."""
    import torch

    from assistant.detect.train_reader import train_reader

    def weights(seed: int, run: str) -> dict[str, torch.Tensor]:
        recipe = ReaderRecipe(crop=32, epochs=1, batch=64, seed=seed, out=str(tmp_path / run))
        best = train_reader("index", tiny_dataset, recipe, log=lambda _: None)
        state: dict[str, torch.Tensor] = torch.load(best, weights_only=False)["model"]
        return state

    first, again, other = weights(3, "a"), weights(3, "b"), weights(4, "c")
    assert first.keys() == again.keys() == other.keys()
    assert all(torch.equal(first[k], again[k]) for k in first)
    assert not all(torch.equal(first[k], other[k]) for k in first)


def _yolo_dataset(root: Path) -> Path:
    """The fixtures as an ultralytics dataset (labels made from their truth files)."""
    from assistant.detect.labels import DETECTOR_CLASSES
    from assistant.detect.reader_data import quad_box

    ids = {name: i for i, name in enumerate(DETECTOR_CLASSES)}
    for split in ("train", "val"):
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
        for jpg in sorted(FIXTURES.glob("*.jpg")):
            truth = json.loads(jpg.with_suffix(".json").read_text())
            w, h = truth["size"]
            lines = []
            for obj in truth["objects"]:
                if not obj["labelled"] or obj["box"] is None:
                    continue
                name = f"chips_{obj['colour']}" if obj["kind"] == "chips" else obj["kind"]
                boxes = [(name, obj["box"])]
                boxes += [("index", quad_box(i["quad"])) for i in obj.get("indices", []) if i["labelled"]]
                for cls, (x0, y0, x1, y1) in boxes:
                    lines.append(
                        f"{ids[cls]} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} "
                        f"{(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"
                    )
            shutil.copy(jpg, root / "images" / split / jpg.name)
            (root / "labels" / split / jpg.with_suffix(".txt").name).write_text("\n".join(lines) + "\n")
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(DETECTOR_CLASSES))
    (root / "data.yaml").write_text(f"path: {root}\ntrain: images/train\nval: images/val\nnames:\n{names}\n")
    return root


@pytest.mark.slow
def test_detector_trains_offline_from_our_weights_and_exports_a_working_onnx(tmp_path: Path) -> None:
    import dataclasses

    from assistant.detect.backends import OnnxDetector
    from assistant.detect.pipeline import MODELS_DIR
    from assistant.detect.train_detector import export_detector, train_detector

    data = _yolo_dataset(tmp_path / "data")
    recipe = Recipe.load(DEFAULT_RECIPE)
    args = {
        **recipe.detector_args,
        "imgsz": 160,
        "batch": 4,
        "project": str(tmp_path / "runs"),
        "mosaic": 0.0,
        "val": False,
        "lr0": 1e-7,  # so the trained weights stay where they started
        "warmup_epochs": 0.0,
    }
    recipe = dataclasses.replace(recipe, dataset=data, detector_args=args)
    best = train_detector(recipe, weights=MODELS_DIR / "detector.pt", epochs=1, name="t")
    last = best.parent / "last.pt"
    assert last.is_file()
    # it started from our weights, not from a fresh model built from the .yaml
    from ultralytics.nn.tasks import load_checkpoint

    load: Callable[[str], Any] = load_checkpoint  # ultralytics leaves it unannotated
    ours = load(str(MODELS_DIR / "detector.pt"))[0].state_dict()
    trained = load(str(last))[0].state_dict()
    first = next(k for k, v in ours.items() if k.endswith("conv.weight"))
    assert (trained[first].float() - ours[first].float()).abs().max() < 1e-2
    onnx = export_detector(last, tmp_path / "d.onnx", imgsz=160)
    det = OnnxDetector(onnx, imgsz=160)
    assert det.names[:3] == ("card", "index", "face_down")
    import cv2

    boxes = det(as_bgr(cv2.imread(str(next(FIXTURES.glob("*.jpg"))))))
    assert boxes.xyxy.shape[1] == 4


@pytest.fixture()
def tiny_zones(tmp_path: Path) -> Path:
    root = tmp_path / "zones"
    for split in ("train", "val"):
        (root / "images" / split).mkdir(parents=True)
        (root / "truth" / split).mkdir(parents=True)
        for jpg in sorted((FIXTURES / "zones").glob("*.jpg")):
            shutil.copy(jpg, root / "images" / split / jpg.name)
            shutil.copy(jpg.with_suffix(".json"), root / "truth" / split / jpg.with_suffix(".json").name)
    return root


def test_strip_reader_trains_on_the_left_strips_of_upright_cards_and_reads_them_from_card_boxes(
    tiny_zones: Path, tmp_path: Path
) -> None:
    from assistant.detect.crops import STRIP_SIZE, strip_crop
    from assistant.detect.reader_data import card_turns, strip_crops
    from assistant.detect.train_reader import export_reader, train_reader

    crops = strip_crops(tiny_zones, "train")
    assert crops.patches.shape[1:] == (STRIP_SIZE[1] + 12, STRIP_SIZE[0] + 12, 3)
    # one strip per labelled upright card with a target, cut at its card box
    expected = []
    for truth_path in sorted((tiny_zones / "truth" / "train").glob("*.json")):
        truth = json.loads(truth_path.read_text())
        image = as_bgr(cv2.imread(str(tiny_zones / "images" / "train" / truth["image"])))
        for obj in truth["objects"]:
            if obj["kind"] == "card" and obj["labelled"] and card_turns(obj["corners"]) == 0:
                expected.append(strip_crop(image, obj["box"], 6))
    kept = [any(np.array_equal(e, c) for c in crops.patches) for e in expected]
    # the ninth, a queen of the Skat deck (D for Dame), has no target to teach
    assert len(expected) == 9 and len(crops.rank) == 8 and sum(kept) == 8
    out = tmp_path / "strips"
    recipe = ReaderRecipe(crop=88, crop_width=40, epochs=1, batch=16, out=str(out))
    best = train_reader("strips", tiny_zones, recipe, log=lambda _: None)
    reader = OnnxReader(export_reader(best, tmp_path / "strips.onnx"))
    assert (reader.size, reader.width) == (88, 40)
    image = (np.random.default_rng(0).random((130, 280, 3)) * 255).astype(np.uint8)
    probs = reader.read_strips(image, [(10, 10, 73, 98), (250, 60, 313, 148)])  # one half outside
    assert probs["rank"].shape == (2, 13) and probs["suit"].shape == (2, 4)
    np.testing.assert_allclose(probs["rank"].sum(1), 1, atol=1e-4)


def test_the_back_reader_learns_from_the_strips_of_every_upright_card_face_up_or_face_down(
    tiny_zones: Path, tmp_path: Path
) -> None:
    """Its one head, ``face``, tells a card lying face up from a back: each labelled
    upright card's strip is cut at its box, a face-up card's whether or not its index
    shows, with whether the card lies face up or face down as its target."""
    from assistant.detect.crops import strip_crop
    from assistant.detect.reader_data import FACE_DOWN, FACE_UP, NO_TARGET, face_or_back_strips
    from assistant.detect.train_reader import export_reader, train_reader

    crops = face_or_back_strips(tiny_zones, "train")
    expected = []
    for truth_path in sorted((tiny_zones / "truth" / "train").glob("*.json")):
        truth = json.loads(truth_path.read_text())
        image = as_bgr(cv2.imread(str(tiny_zones / "images" / "train" / truth["image"])))
        for obj in truth["objects"]:
            if obj["kind"] in ("card", "face_down") and obj["labelled"]:
                target = FACE_UP if obj["kind"] == "card" else FACE_DOWN
                expected.append((strip_crop(image, obj["box"], 6), target))
    assert len(expected) == 16  # nine face-up cards (the Skat queen too) and seven backs
    assert crops.rank.tolist() == [t for _, t in expected]
    assert all(np.array_equal(patch, e) for patch, (e, _) in zip(crops.patches, expected, strict=True))
    assert set(crops.suit.tolist()) == {NO_TARGET}
    recipe = ReaderRecipe(crop=88, crop_width=40, epochs=1, batch=16, out=str(tmp_path / "backs"))
    said: list[str] = []
    best = train_reader("backs", tiny_zones, recipe, log=said.append)
    assert "backs reader: 16 train crops, 16 val crops" in said
    assert "train strips face down / face up: [7, 9]" in said
    reader = OnnxReader(export_reader(best, tmp_path / "back_reader.onnx"))
    assert reader.heads == ("face",) and (reader.size, reader.width) == (88, 40)
    image = (np.random.default_rng(0).random((130, 280, 3)) * 255).astype(np.uint8)
    face = reader.read_strips(image, [(10, 10, 73, 98), (250, 60, 313, 148)])["face"]
    assert face.shape == (2, 2)
    np.testing.assert_allclose(face.sum(1), 1, atol=1e-4)


def test_train_backs_trains_on_the_dataset_its_section_names_and_export_writes_the_back_reader(
    tiny_zones: Path, tmp_path: Path
) -> None:
    """The back reader learns from hands dealt with drawn backs, not the recipe's dataset."""
    from assistant.cli import main
    from assistant.detect.pipeline import BACK_READER

    out = tmp_path / "runs" / "backs"
    (tmp_path / "models").mkdir()
    recipe = tmp_path / "models" / "r.yaml"
    recipe.write_text(
        f"dataset: {tmp_path / 'no such dataset'}\ndetector: {{model: m.yaml}}\n"
        f"backs: {{dataset: {tiny_zones}, epochs: 1, batch: 16, out: {out}}}\n"
    )
    assert main(["train", "backs", "--config", str(recipe)]) == 0
    assert (out / "best.pt").is_file()
    models = tmp_path / "models"
    assert main(["train", "export", "--backs", str(out / "best.pt"), "--out", str(models)]) == 0
    assert OnnxReader(models / BACK_READER).heads == ("face",)


def test_a_recipe_without_a_backs_section_trains_the_back_reader_on_40_mm_strips(tmp_path: Path) -> None:
    recipe = Recipe.load(DEFAULT_RECIPE)
    assert (recipe.backs.crop, recipe.backs.crop_width) == (88, 40)
    text = "dataset: d\ndetector: {model: m.yaml}\nbacks: {epochs: 2, out: runs/b}\n"
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "r.yaml").write_text(text)
    backs = Recipe.load(tmp_path / "models" / "r.yaml").backs
    assert (backs.crop, backs.crop_width, backs.epochs, backs.out) == (88, 40, 2, "runs/b")


def test_a_strip_reader_of_whole_card_faces_cuts_and_reads_strips_as_wide_as_its_input(
    tiny_zones: Path, tmp_path: Path
) -> None:
    """``crop_width`` 72 takes in a card's whole face: its zone strips and font strips are
    cut that wide and cached apart from the usual 40 mm ones, and the exported reader reads
    strips as wide as its input."""
    from assistant.detect.reader_data import CropSet
    from assistant.detect.readers import StripViews
    from assistant.detect.train_reader import export_reader, train_reader

    _fonts_or_skip()
    out = tmp_path / "faces"
    recipe = ReaderRecipe(crop=88, crop_width=72, epochs=1, batch=16, font_strips=26, out=str(out))
    said: list[str] = []
    best = train_reader("strips", tiny_zones, recipe, log=said.append)
    assert "strips reader: 34 train crops, 8 val crops" in said
    assert CropSet.load(out / "crops_train_w72.npz").patches.shape[1:] == (100, 84, 3)
    assert CropSet.load(out / "crops_fontstrips26_w72_train.npz").patches.shape == (26, 100, 84, 3)
    assert not (out / "crops_train.npz").exists()
    reader = OnnxReader(export_reader(best, tmp_path / "faces.onnx"))
    assert (reader.size, reader.width) == (88, 72)
    image = (np.random.default_rng(0).random((130, 280, 3)) * 255).astype(np.uint8)
    boxes = [(10, 10, 73, 98), (250, 60, 313, 148)]
    assert StripViews().crops(image, boxes, (reader.width, reader.size)).shape == (1, 2, 88, 72, 3)
    probs = reader.read_strips(image, boxes)
    assert probs["rank"].shape == (2, 13) and probs["suit"].shape == (2, 4)
    np.testing.assert_allclose(probs["suit"].sum(1), 1, atol=1e-4)


def _fonts_or_skip() -> None:
    """Skip a test that draws font crops on a machine without the font packages."""
    from assistant.synth.font_indices import NoFontsError, system_fonts

    try:
        system_fonts()
    except NoFontsError as error:
        pytest.skip(str(error))


def test_the_strip_reader_also_learns_from_strips_drawn_in_fonts(tiny_zones: Path, tmp_path: Path) -> None:
    from assistant.detect.reader_data import CropSet
    from assistant.detect.train_reader import train_reader

    _fonts_or_skip()
    out = tmp_path / "strips"
    recipe = ReaderRecipe(crop=88, crop_width=40, epochs=1, batch=16, font_strips=26, out=str(out))
    said: list[str] = []
    train_reader("strips", tiny_zones, recipe, log=said.append)
    # the tiny set's 8 strips with a target, then the 26 drawn ones (two of each rank)
    assert "strips reader: 34 train crops, 8 val crops" in said
    drawn = CropSet.load(out / "crops_fontstrips26_train.npz")  # made once, cached
    assert drawn.patches.shape == (26, 100, 52, 3)
    assert sorted(drawn.rank.tolist()) == sorted(list(range(13)) * 2)
    assert set(drawn.deck) == {"font"}


def test_the_strip_reader_also_learns_from_the_recipes_further_zone_datasets(
    tiny_zones: Path, tmp_path: Path
) -> None:
    """``datasets`` adds the strips of more zone crops (the extra npm designs of
    ``synth zones --decks extra``), cut once and cached under the folder's name."""
    import shutil

    from assistant.detect.reader_data import CropSet
    from assistant.detect.train_reader import train_reader

    more = tmp_path / "zones_extra"
    shutil.copytree(tiny_zones, more)
    shutil.rmtree(more / "images" / "val")  # a train-only dataset, as the extra decks give
    out = tmp_path / "strips"
    recipe = ReaderRecipe(crop=88, crop_width=40, epochs=1, batch=16, datasets=(str(more),), out=str(out))
    said: list[str] = []
    train_reader("strips", tiny_zones, recipe, log=said.append)
    assert "strips reader: 16 train crops, 8 val crops" in said  # 8 of each train split
    assert len(CropSet.load(out / "crops_train_zones_extra.npz").rank) == 8
    assert not (out / "crops_val_zones_extra.npz").exists()
    with pytest.raises(ValueError, match="holds no zone crops"):
        bad = ReaderRecipe(crop=88, crop_width=40, epochs=1, batch=16, datasets=(str(tmp_path / "nothing"),))
        train_reader("strips", tiny_zones, replace(bad, out=str(tmp_path / "again")), log=lambda _: None)


def test_font_crops_of_another_seed_or_ink_share_are_drawn_anew_and_cached_apart(
    tiny_zones: Path, tmp_path: Path
) -> None:
    """A recipe that fine-tunes on font strips of another seed, some inked off their suit's
    colour, must not load the first recipe's cached strips under the same name."""
    from assistant.detect.reader_data import CropSet
    from assistant.detect.train_reader import train_reader

    _fonts_or_skip()
    out = tmp_path / "strips"
    first = ReaderRecipe(crop=88, crop_width=40, epochs=1, batch=16, font_strips=26, out=str(out))
    train_reader("strips", tiny_zones, first, log=lambda line: None)
    again = ReaderRecipe(
        crop=88,
        crop_width=40,
        epochs=1,
        batch=16,
        font_strips=26,
        font_seed=2,
        font_off_colour=0.5,
        init=str(out / "best.pt"),
        out=str(tmp_path / "strips_again"),
    )
    train_reader("strips", tiny_zones, again, log=lambda line: None)
    plain = CropSet.load(out / "crops_fontstrips26_train.npz")
    off = CropSet.load(tmp_path / "strips_again" / "crops_fontstrips26_seed2_off0.5_train.npz")
    assert off.patches.shape == plain.patches.shape
    assert not np.array_equal(off.patches, plain.patches)


def test_negative_crops_are_index_sized_and_stay_clear_of_every_printed_index(tiny_zones: Path) -> None:
    from assistant.detect.reader_data import NO_TARGET, negative_crops, quad_box

    crops = negative_crops(tiny_zones, "train", 52, per_image=6, seed=3)
    assert len(crops.rank) == 4 * 6  # the four zone crops all hold cards
    assert (crops.rank == NO_TARGET).all() and (crops.suit == NO_TARGET).all()
    again = negative_crops(tiny_zones, "train", 52, per_image=6, seed=3)
    assert np.array_equal(crops.patches, again.patches)
    # and none of them is cut where an index is: a crop of a labelled index differs
    from assistant.detect.crops import square_crop
    from assistant.detect.reader_data import CONTEXT, INFERENCE_SCALE

    for jpg in sorted((tiny_zones / "images" / "train").glob("*.jpg")):
        truth = json.loads((tiny_zones / "truth" / "train" / jpg.with_suffix(".json").name).read_text())
        image = as_bgr(cv2.imread(str(jpg)))
        for obj in truth["objects"]:
            for idx in obj.get("indices", []):
                patch = square_crop(image, quad_box(idx["quad"]), 52, INFERENCE_SCALE * CONTEXT)
                assert not any(np.array_equal(patch, p) for p in crops.patches)


def test_font_indices_for_coarse_cameras_are_cached_under_their_own_name() -> None:
    from assistant.detect.train_reader import _font_tag

    assert _font_tag(ReaderRecipe()) == ""  # the first recipes' caches still load
    assert _font_tag(ReaderRecipe(font_seed=2, font_coarse=0.4)) == "_seed2_coarse0.4"
    assert _font_tag(ReaderRecipe(font_off_colour=0.25, font_coarse=0.4)) == "_off0.25_coarse0.4"


def test_font_strips_keep_their_cache_name_whatever_the_coarse_share() -> None:
    from assistant.detect.train_reader import _font_tag

    # font_coarse films font indices only: the strips it leaves unchanged share one cache
    coarse = ReaderRecipe(font_off_colour=0.25, font_coarse=0.4)
    assert _font_tag(coarse, strips=True) == _font_tag(ReaderRecipe(font_off_colour=0.25))
    assert _font_tag(ReaderRecipe(font_seed=3, font_coarse=0.4), strips=True) == "_seed3"


def test_reader_training_refuses_fewer_than_one_thread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main

    assert main(["train", "reader", "--threads", "0"]) != 0
    assert "--threads must be at least 1" in capsys.readouterr().err


def test_index_reader_trained_with_negatives_has_an_index_head_and_font_crops_join_training(
    tiny_zones: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assistant.detect.train_reader import export_reader, train_reader

    _fonts_or_skip()
    out = tmp_path / "checked"
    recipe = ReaderRecipe(crop=32, epochs=1, batch=32, out=str(out), negatives=3, font_indices=26)
    lines: list[str] = []
    best = train_reader("index", tiny_zones, recipe, log=lines.append)
    assert (out / "crops_fonts26_train.npz").is_file() and (out / "crops_negatives3_val.npz").is_file()
    history = json.loads((out / "history.json").read_text())
    assert "val_index" in history[0]
    reader = OnnxReader(export_reader(best, tmp_path / "checked.onnx"))
    assert reader.heads == ("rank", "suit", "index")
    image = (np.random.default_rng(0).random((130, 280, 3)) * 255).astype(np.uint8)
    probs = reader.read(image, [(10, 10, 18, 28)])
    assert probs["index"].shape == (1, 2)


def test_index_reader_takes_the_labelled_indices_of_the_recipes_further_datasets(
    tiny_zones: Path, tmp_path: Path
) -> None:
    from assistant.detect.reader_data import index_crops
    from assistant.detect.train_reader import train_reader

    sharp = tmp_path / "sharp"
    shutil.copytree(tiny_zones, sharp)
    out = tmp_path / "more"
    recipe = ReaderRecipe(crop=32, epochs=1, batch=32, out=str(out), datasets=(str(sharp),))
    lines: list[str] = []
    train_reader("index", tiny_zones, recipe, log=lines.append)
    own = len(index_crops(tiny_zones, "train", 52, recipe.min_index_px).rank)
    assert own > 0
    extra = np.load(out / "crops_sharp_train.npz")
    assert len(extra["rank"]) == own and (out / "crops_sharp_val.npz").is_file()
    assert f"index reader: {2 * own} train crops" in lines[0]


def test_a_reader_gaining_an_index_head_starts_from_what_the_old_reader_learned(tmp_path: Path) -> None:
    import torch

    from assistant.detect.reader_model import CHECKED_INDEX_HEADS, INDEX_HEADS, CropReader
    from assistant.detect.train_reader import initialise

    torch.manual_seed(0)
    old = CropReader(INDEX_HEADS)
    torch.save({"model": old.state_dict()}, tmp_path / "best.pt")
    torch.manual_seed(1)
    new = CropReader(CHECKED_INDEX_HEADS)
    fresh_head = cast(torch.nn.Linear, new.heads[2]).weight.detach().clone()
    said = initialise(new, tmp_path / "best.pt")
    assert said == f"{len(old.state_dict())} of {len(new.state_dict())} tensors"
    for (name, a), b in zip(
        old.state_dict().items(), [new.state_dict()[k] for k in old.state_dict()], strict=True
    ):
        assert torch.equal(a, b), name
    assert torch.equal(cast(torch.nn.Linear, new.heads[2]).weight, fresh_head)  # the new head starts fresh
    with pytest.raises(ValueError, match="cannot start from"):
        initialise(new, tmp_path / "absent.pt")


def test_stack_counter_trains_on_stack_views_and_exports_a_count_head(tmp_path: Path) -> None:
    from assistant.detect.train_reader import export_reader, train_reader
    from assistant.synth.stack_views import hand_stack_views
    from assistant.vision.stack_view import VIEW_SIZE

    data = tmp_path / "stacks"
    views = hand_stack_views((5, 0, "train", 1, 2))
    views.save(data / "stacks_train.npz")
    views.save(data / "stacks_val.npz")
    out = tmp_path / "counter"
    width, height = VIEW_SIZE
    recipe = ReaderRecipe(
        crop=height, crop_width=width, epochs=1, batch=16, out=str(out), datasets=(str(data),)
    )
    # the recipe's dataset (zone crops) holds no stack views: those of its datasets are used
    best = train_reader("stacks", tmp_path / "zones", recipe, log=lambda _: None)
    reader = OnnxReader(export_reader(best, tmp_path / "stack_counter.onnx"))
    probs = reader.read_views(views.views[:3])
    assert list(probs) == ["count"] and probs["count"].shape == (3, 21)
    with pytest.raises(ValueError, match="no stacks crops"):
        train_reader("stacks", tmp_path, ReaderRecipe(crop=height, crop_width=width, out=str(tmp_path / "x")))


def test_heavier_ink_spreads_a_stroke_in_its_own_colour_and_lighter_ink_thins_it() -> None:
    torch = pytest.importorskip("torch")
    from assistant.detect.train_reader import reweigh_ink

    card = torch.full((64, 3, 9, 9), 240.0)
    card[:, :, 4, 4] = torch.tensor([30.0, 30.0, 200.0])  # a red dot (BGR)
    out = reweigh_ink(card, 1.0, torch.Generator().manual_seed(3))
    spread = out[:, :, 3:6, 3:6].mean(1).amin((1, 2)) < 240.0  # its neighbours darker
    whole = (out[:, :, 3:6, 3:6] < 240.0).flatten(1).sum(1) > 3
    heavier = spread & whole
    assert 10 < int(heavier.sum()) < 54  # about half each way, every crop changed
    assert bool((out[heavier, 2, 3, 3] > out[heavier, 0, 3, 3] + 50).all())  # spread red, not grey
    lighter = ~heavier
    assert bool((out[lighter, :, 4, 4].mean(1) > 30.0 + 0.3 * 150).all())  # the dot fades
    assert bool((out[:, :, 0, 0] == 240.0).all())  # plain card stays as it was


def test_no_ink_share_leaves_the_crops_and_the_random_stream_as_they_were() -> None:
    torch = pytest.importorskip("torch")
    from assistant.detect.train_reader import augment

    patches = torch.rand((4, 3, 100, 50), generator=torch.Generator().manual_seed(1)) * 255
    gen_a, gen_b = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    a = augment(patches.clone(), (88, 40), gen_a, strong=True)
    b = augment(patches.clone(), (88, 40), gen_b, strong=True, ink=0.0)
    assert torch.equal(a, b) and torch.equal(gen_a.get_state(), gen_b.get_state())
    c = augment(patches.clone(), (88, 40), torch.Generator().manual_seed(5), strong=True, ink=1.0)
    assert not torch.equal(a, c)


def test_a_recipe_names_its_ink_share() -> None:
    assert ReaderRecipe().ink == 0.0
    assert ReaderRecipe(ink=0.5).ink == 0.5
