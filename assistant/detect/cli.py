"""``dealer-assistant detect`` (cards and chips in images) and ``dealer-assistant train``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    det = subparsers.add_parser(
        "detect",
        help="find cards (rank and suit), face-down cards and chip stacks in images",
        description="Run the shipped detector on images; one result per image.",
    )
    det.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    det.add_argument("--json", action="store_true", help="one JSON object per image per line")
    det.add_argument("--models", type=Path, default=None, help="model folder (default: models/)")
    det.add_argument("--backend", choices=("onnx", "ultralytics"), default="onnx")
    det.add_argument(
        "--quick",
        action="store_true",
        help="one pass of stage 1 over the whole image (tens of milliseconds) instead of the "
        "search for cards at every scale and angle (seconds per photo, far more cards read)",
    )
    det.add_argument(
        "--search",
        action="store_true",
        help="photos: search for cards view by view (turned and scaled copies of the photo) "
        "instead of asking the card finder (models/card_finder.onnx) for their corners",
    )
    det.add_argument("--imgsz", type=int, default=640, help="with --quick: input size (long side)")
    det.add_argument("--conf", type=float, default=None, help="with --quick: stage-1 confidence threshold")
    det.add_argument(
        "--calibration",
        type=Path,
        help="the images are frames of this calibrated table camera: read them zone by zone, as "
        "the camera pipeline does (a calibration file from `dealer-assistant calibrate`)",
    )
    det.set_defaults(func=_detect)

    tr = subparsers.add_parser(
        "train",
        help="train the card and chip detector from the recipe (models/train.yaml)",
        description="Train one stage of the detector, or export trained weights into models/.",
    )
    sub = tr.add_subparsers(dest="stage", metavar="STAGE", required=True)
    d = sub.add_parser("detector", help="stage 1: the YOLO detector (ultralytics)")
    d.add_argument("--resume", type=Path, help="continue a stopped run from its last.pt")
    d.add_argument("--weights", type=Path, help="start from this project's earlier weights")
    d.add_argument("--hours", type=float, help="time budget (overrides epochs)")
    d.add_argument("--epochs", type=int)
    d.add_argument("--name", help="run name under the recipe's project folder")
    for name, helptext in (
        ("reader", "stage 2: rank and suit from a corner index"),
        ("strips", "stage 2: rank and suit from a card's upright left strip (zone crops)"),
        ("faces", "stage 2: rank and suit from a card's whole face, a strip 72 mm wide (zone crops)"),
        ("backs", "stage 2: whether a card box's strip shows a card face up or its back (zone crops)"),
        ("chips", "stage 2: chip count"),
        ("stacks", "stack counter: chips in a stack from its side view (synth stacks data)"),
    ):
        r = sub.add_parser(name, help=helptext)
        r.add_argument("--resume", action="store_true", help="continue from OUT/last.pt")
        r.add_argument("--epochs", type=int)
        r.add_argument(
            "--threads",
            type=int,
            default=1,
            help="CPU threads torch may use (default 1: leaves a core to another run beside it)",
        )
    fo = sub.add_parser(
        "from-onnx",
        help="a reader checkpoint rebuilt from its ONNX file (a recipe's init when the run is gone)",
    )
    fo.add_argument("onnx", type=Path, help="an exported reader, e.g. models/index_reader.onnx")
    fo.add_argument("--out", type=Path, required=True, help="the checkpoint to write (best.pt)")
    ex = sub.add_parser("export", help="write ONNX files (and detector.pt) into the model folder")
    ex.add_argument("--detector", type=Path, help="stage-1 weights (best.pt)")
    ex.add_argument("--reader", type=Path, help="index reader checkpoint (best.pt)")
    ex.add_argument(
        "--reader-wide",
        type=Path,
        help="second index reader checkpoint (best.pt, models/train_wide_reader.yaml), read beside the first",
    )
    ex.add_argument("--strips", type=Path, help="strip reader checkpoint (best.pt)")
    ex.add_argument(
        "--faces",
        type=Path,
        help="face reader checkpoint (OUT/epochN.pt or best.pt): a strip reader trained 72 mm wide",
    )
    ex.add_argument("--backs", type=Path, help="back reader checkpoint (best.pt): face up or back")
    ex.add_argument("--chips", type=Path, help="chip reader checkpoint (best.pt)")
    ex.add_argument("--stacks", type=Path, help="stack counter checkpoint (best.pt)")
    ex.add_argument(
        "--stack-finder",
        type=Path,
        help="stage-1 weights fine-tuned on zones cut from the frame (best.pt): finds stacks to count",
    )
    ex.add_argument(
        "--card-finder",
        type=Path,
        help="card finder weights (best.pt): cards and their corners in whole photos",
    )
    ex.add_argument("--out", type=Path, default=None, help="model folder (default: models/)")
    for p in sub.choices.values():
        p.add_argument("--config", type=Path, default=None, help="recipe (models/train.yaml)")
    tr.set_defaults(func=_train)


def _detect(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.detect.photo import PhotoDetector
    from assistant.detect.pipeline import (
        DEFAULT_CONF,
        MODELS_DIR,
        CardDetector,
        ImageError,
        ModelMissingError,
    )

    models = args.models or MODELS_DIR
    if args.calibration is not None and args.quick:
        raise CommandError("--quick is for photos; with --calibration the frame is read zone by zone")
    try:
        if args.quick:  # one pass over the whole image
            conf = DEFAULT_CONF if args.conf is None else args.conf
            detector = CardDetector.load(models, backend=args.backend, imgsz=args.imgsz, conf=conf)
        else:  # the zone detector, on a photo's card patches or a calibrated frame's zones
            # a calibrated frame is read as the camera pipeline reads it, by both index readers;
            # a photo's many patches by the first alone (models/README.md, stop 53)
            detector = CardDetector.for_zones(
                models, backend=args.backend, with_wide_reader=args.calibration is not None
            )
    except ModelMissingError as error:
        raise CommandError(f"{error}; train and export one with `dealer-assistant train`") from error
    except Exception as error:  # a corrupt model file: onnxruntime raises its own types
        raise CommandError(f"cannot load the models: {error}") from error
    finder = None
    if not (args.quick or args.search or args.calibration is not None or args.backend != "onnx"):
        from assistant.detect.card_finder import load_card_finder

        try:
            finder = load_card_finder(models)
        except Exception as error:  # a corrupt model file: onnxruntime raises its own types
            raise CommandError(f"cannot load the card finder: {error}") from error
    read = detector.detect_file if args.quick else PhotoDetector(detector, finder=finder).detect_file
    if args.calibration is not None:
        from assistant.detect.pipeline import read_image
        from assistant.detect.table_frames import TableFrameDetector
        from assistant.vision.calibration import CalibrationError, load_calibration
        from assistant.vision.layout import LayoutError

        try:
            calibration = load_calibration(args.calibration)
        except (CalibrationError, LayoutError, OSError) as error:
            raise CommandError(f"cannot use the calibration {args.calibration}: {error}") from None
        from assistant.detect.stack_counter import load_stack_counter

        try:
            counter = load_stack_counter(models, calibration)
        except Exception as error:  # a corrupt model file: onnxruntime raises its own types
            raise CommandError(f"cannot load the stack counter: {error}") from error
        zones = TableFrameDetector(detector, calibration, counter)

        def read(path: Path) -> Any:
            return zones.detect(read_image(path), str(path))

    failed = 0
    for path in args.images:
        try:
            result = read(path)
        except ImageError as error:
            print(f"dealer-assistant detect: error: {error}", file=sys.stderr)
            failed += 1
            continue
        if args.json:
            print(json.dumps(result.to_json()), flush=True)
        else:
            cards = " ".join(c.card for c in result.cards) or "-"
            chips = " ".join(f"{s.colour}x{'?' if s.count is None else s.count}" for s in result.chips) or "-"
            print(f"{path}: cards {cards}; face down {len(result.face_down)}; chips {chips}")
    return 1 if failed else 0


def _train(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.detect.recipe import DEFAULT_RECIPE, Recipe, RecipeError
    from assistant.synth.dataset import WorkerDiedError

    try:
        recipe = Recipe.load(args.config or DEFAULT_RECIPE)
    except RecipeError as error:
        raise CommandError(str(error)) from error
    try:
        if args.stage == "detector":
            from assistant.detect.train_detector import train_detector

            best = train_detector(
                recipe,
                resume=args.resume,
                weights=args.weights,
                hours=args.hours,
                name=args.name,
                epochs=args.epochs,
            )
            print(f"detector weights: {best}")
        elif args.stage in ("reader", "strips", "faces", "backs", "chips", "stacks"):
            from assistant.detect.train_reader import train_reader

            kind, section = {
                "reader": ("index", recipe.reader),
                "strips": ("strips", recipe.strips),
                "faces": ("strips", recipe.faces),  # a strip reader trained on wider strips
                "backs": ("backs", recipe.backs),
                "chips": ("chips", recipe.chips),
                "stacks": ("stacks", recipe.stacks),
            }[args.stage]
            if args.threads < 1:
                raise CommandError("--threads must be at least 1")
            dataset = Path(section.dataset) if section.dataset else recipe.dataset
            best = train_reader(
                kind, dataset, section, resume=args.resume, epochs=args.epochs, threads=args.threads
            )
            print(f"{args.stage} weights: {best}")
        elif args.stage == "from-onnx":
            _from_onnx(args.onnx, args.out)
        else:
            _export(args)
    except FileNotFoundError as error:
        raise CommandError(str(error)) from error
    except (ValueError, WorkerDiedError) as error:  # a bad recipe, or a data worker killed
        raise CommandError(str(error)) from error
    return 0


def _from_onnx(onnx_path: Path, out: Path) -> None:
    """Rebuild a reader checkpoint; an index reader's batch norms are calibrated on drawn
    corner indices so that it trains on from where it stood."""
    from assistant.detect.onnx_weights import checkpoint_from_onnx

    print(checkpoint_from_onnx(onnx_path, out))


def _export(args: argparse.Namespace) -> None:
    import shutil

    from assistant.cli import CommandError
    from assistant.detect.pipeline import (
        BACK_READER,
        CARD_FINDER_ONNX,
        CHIP_READER,
        DETECTOR_ONNX,
        DETECTOR_PT,
        FACE_READER,
        INDEX_READER,
        INDEX_READER_WIDE,
        MODELS_DIR,
        STACK_COUNTER,
        STACK_FINDER_ONNX,
        STRIP_READER,
    )

    out = args.out or MODELS_DIR
    given_files = (
        args.detector,
        args.reader,
        args.reader_wide,
        args.strips,
        args.faces,
        args.backs,
        args.chips,
        args.stacks,
        args.stack_finder,
        args.card_finder,
    )
    if not any(given_files):
        raise CommandError(
            "name at least one of --detector, --reader, --reader-wide, --strips, --faces, --backs, --chips, "
            "--stacks, --stack-finder, --card-finder"
        )
    for given in given_files:
        if given is not None and not given.is_file():
            raise CommandError(f"{given}: no such file")
    if args.detector:
        from assistant.detect.train_detector import export_detector

        print(export_detector(args.detector, out / DETECTOR_ONNX))
        shutil.copyfile(args.detector, out / DETECTOR_PT)
        from ultralytics.utils.torch_utils import strip_optimizer

        strip_optimizer(str(out / DETECTOR_PT))  # weights only: a few hundred kB
    if args.stack_finder:
        from assistant.detect.train_detector import export_detector

        print(export_detector(args.stack_finder, out / STACK_FINDER_ONNX))
    if args.card_finder:
        from assistant.detect.train_detector import export_detector

        print(export_detector(args.card_finder, out / CARD_FINDER_ONNX, imgsz=320))
    if any((args.reader, args.reader_wide, args.strips, args.faces, args.backs, args.chips, args.stacks)):
        from assistant.detect.train_reader import export_reader

        if args.reader:
            print(export_reader(args.reader, out / INDEX_READER))
        if args.reader_wide:
            print(export_reader(args.reader_wide, out / INDEX_READER_WIDE))
        if args.strips:
            print(export_reader(args.strips, out / STRIP_READER))
        if args.faces:
            print(export_reader(args.faces, out / FACE_READER))
        if args.backs:
            print(export_reader(args.backs, out / BACK_READER))
        if args.chips:
            print(export_reader(args.chips, out / CHIP_READER))
        if args.stacks:
            print(export_reader(args.stacks, out / STACK_COUNTER))
