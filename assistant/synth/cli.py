"""``dealer-assistant synth ...``: training data and video fixtures from the renderer."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "synth",
        help="render synthetic tables: detector datasets and recorded-hand videos",
        description="Render synthetic 7/27 tables from the SVG decks of kdegames-card-data-kf5 "
        "and gnome-cards-data.",
    )
    sub = parser.add_subparsers(dest="synth_command", metavar="WHAT", required=True)

    ds = sub.add_parser("dataset", help="write a YOLO dataset with truth and index crops")
    ds.add_argument("--out", type=Path, required=True, help="output directory (keep it out of the repo)")
    ds.add_argument("--images", type=int, required=True, help="number of images")
    ds.add_argument("--seed", type=int, default=0)
    ds.add_argument("--val", type=float, default=0.1, help="fraction for val (validation decks)")
    ds.add_argument("--test", type=float, default=0.1, help="fraction for test (held-out decks)")
    ds.add_argument("--workers", type=int, default=0, help="processes (default: up to 2)")
    ds.add_argument("--no-crops", action="store_true", help="skip the corner-index crops")
    ds.add_argument(
        "--closeups",
        type=float,
        default=0.25,
        help="fraction of close-up photos (a few cards filling a hand-held shot); the rest show whole tables",
    )
    ds.add_argument(
        "--sizes",
        type=_sizes,
        default=(),
        help="image sizes, one drawn per image, like 1280x960,960x1280 (default: the layouts' 640 px sizes)",
    )
    ds.set_defaults(func=_dataset)

    zn = sub.add_parser(
        "zones",
        help="write a YOLO dataset of zone crops: random hands seen as the camera pipeline sees them",
    )
    zn.add_argument("--out", type=Path, required=True, help="output directory (keep it out of the repo)")
    zn.add_argument("--hands", type=int, required=True, help="number of random hands to render")
    zn.add_argument("--seed", type=int, default=0)
    zn.add_argument("--rate", type=float, default=0.06, help="fraction of each hand's frames rendered")
    zn.add_argument("--val", type=float, default=0.05, help="fraction of hands for val (validation decks)")
    zn.add_argument("--test", type=float, default=0.1, help="fraction of hands for test (held-out decks)")
    zn.add_argument("--workers", type=int, default=0, help="processes (default: up to 2)")
    zn.add_argument(
        "--chips",
        type=int,
        default=0,
        metavar="SHOTS",
        help="chip-focused instead: SHOTS stills per hand from oblique cameras, bet and pot zones "
        "only, stacks of 1-20 chips of every colour (for the chip reader; --rate unused)",
    )
    zn.add_argument(
        "--sizes",
        type=_sizes,
        default=None,
        metavar="WxH[,WxH...]",
        help="camera resolutions, one drawn per hand (default: mostly 1280x720, some 1920x1080 and 960x540)",
    )
    zn.add_argument(
        "--random-backs",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of hands whose cards carry a back drawn at random instead of their deck's (default 0)",
    )
    zn.add_argument(
        "--only",
        type=_splits,
        default=(),
        metavar="SPLIT[,SPLIT]",
        help="render only the hands of these splits (train, val, test) as the whole run renders them",
    )
    zn.add_argument(
        "--decks",
        choices=("standard", "extra", "all"),
        default="standard",
        help="deal from the Debian packages' decks (default), the extra npm training designs "
        "(synth fetch-decks; train only: give --val 0 --test 0), or both",
    )
    zn.add_argument(
        "--deck",
        metavar="ID",
        help="deal every hand from this one deck of decks.json (any split's), on its split's surfaces "
        "(what `deck learn` learns a deck from)",
    )
    zn.add_argument(
        "--margins",
        action="store_true",
        help="cut each seat's card zone with the margin the camera pipeline cuts it with (32 x 20 mm), "
        "its truth saying where the zone lies, so that an evaluation counts a zone's cards as the "
        "pipeline does (default: cut at the zone's edge, as the detector's training crops are)",
    )
    zn.set_defaults(func=_zones)

    st = sub.add_parser(
        "stacks",
        help="write stack views with true counts (the stack counter's data): chip hands from oblique cameras",
    )
    st.add_argument("--out", type=Path, required=True, help="output directory: writes stacks_SPLIT.npz")
    st.add_argument("--split", choices=("train", "val", "test"), required=True, help="deck and surface split")
    st.add_argument("--hands", type=int, required=True, help="number of chip hands to render")
    st.add_argument("--seed", type=int, default=0)
    st.add_argument("--shots", type=int, default=5, help="stills per hand, each with its own camera")
    st.add_argument("--copies", type=int, default=2, help="views per stack, around moved bases")
    st.add_argument("--workers", type=int, default=0, help="processes (default: up to 2)")
    st.set_defaults(func=_stacks)

    sf = sub.add_parser(
        "stack-frames",
        help="write a YOLO dataset of bet and pot zones cut from the frame (the stack finder's data)",
    )
    sf.add_argument("--out", type=Path, required=True, help="output directory (keep it out of the repo)")
    sf.add_argument("--hands", type=int, required=True, help="number of chip hands to render")
    sf.add_argument("--seed", type=int, default=0)
    sf.add_argument("--shots", type=int, default=5, help="stills per hand, each with its own camera")
    sf.add_argument("--val", type=float, default=0.06, help="fraction of hands for val (validation decks)")
    sf.add_argument("--workers", type=int, default=0, help="processes (default: up to 2)")
    sf.set_defaults(func=_stack_frames)

    fl = sub.add_parser(
        "finder-data",
        help="relabel a `synth dataset` with each card's four corners (the card finder's data)",
    )
    fl.add_argument("--dataset", type=Path, required=True, help="a folder written by `synth dataset`")
    fl.add_argument("--out", type=Path, required=True, help="output directory (keep it out of the repo)")
    fl.set_defaults(func=_finder_data)

    vid = sub.add_parser("video", help="render a game script into NAME.mp4 and NAME.truth.json")
    vid.add_argument(
        "--script", type=Path, required=True, help="game script JSON (see assistant.synth.script)"
    )
    vid.add_argument("--out", type=Path, required=True, help="output directory")
    vid.set_defaults(func=_video)

    sp = sub.add_parser(
        "scan-photos",
        help="photos of one deck's 52 faces laid out for `deck scan`, with their truth",
    )
    sp.add_argument("--deck", required=True, help="a deck of decks.json (`dealer-assistant deck list`)")
    sp.add_argument("--out", type=Path, required=True, help="output directory (keep it out of the repo)")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument(
        "--surfaces",
        choices=("train", "val", "test"),
        default="test",
        help="the split whose surfaces the cards lie on (default: the held-out ones)",
    )
    sp.add_argument(
        "--cards",
        default="",
        metavar="CARD[,CARD...]",
        help="only these cards, face up, and 'back' for one face down (a new photo for `deck retake`)",
    )
    sp.set_defaults(func=_scan_photos)

    dk = sub.add_parser("decks", help="list the deck designs, their split and whether installed")
    dk.add_argument("--render", action="store_true", help="render every usable deck into the face cache")
    dk.set_defaults(func=_decks)

    fd = sub.add_parser(
        "fetch-decks",
        help="fetch the extra training designs (one SVG per card) from the npm registry and "
        "render their faces (needs npm and rsvg-convert)",
    )
    fd.set_defaults(func=_fetch_decks)

    pd = sub.add_parser(
        "pysol-decks",
        help="write the 13 extra training designs of Debian's PySol card sets as scanned-deck "
        "folders (deal them with synth zones --deck scan:OUT/NAME)",
    )
    pd.add_argument("--out", type=Path, required=True, help="folder for one folder per design")
    pd.add_argument(
        "--debs",
        type=Path,
        default=None,
        help="folder holding (or to download) pysolfc-cardsets and pysolfc .deb files (default OUT/debs)",
    )
    pd.set_defaults(func=_pysol_decks)


def _dataset(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.synth.dataset import PhotoKind, default_workers, write_dataset

    if args.images < 1:
        raise CommandError("--images must be at least 1")
    if not 0 <= args.closeups <= 1:
        raise CommandError("--closeups must be a fraction from 0 to 1")
    if not 0 <= args.val < 1 or not 0 <= args.test < 1 or args.val + args.test >= 1:
        raise CommandError("--val and --test must be fractions that leave some training images")
    workers = args.workers or default_workers()

    def progress(done: int, total: int) -> None:
        if done == total or done % 50 == 0:
            print(
                f"{done}/{total} images",
                file=sys.stderr,
                flush=True,
            )

    with _writing("the dataset"):
        args.out.mkdir(parents=True, exist_ok=True)
        summary = write_dataset(
            args.out,
            args.images,
            args.seed,
            val=args.val,
            test=args.test,
            workers=workers,
            crops=not args.no_crops,
            kind=PhotoKind(args.closeups, args.sizes),
            progress=progress,
        )
    print(f"wrote {summary['images']} images, {summary['labels']} labels to {args.out}")
    return 0


def _sizes(text: str) -> tuple[tuple[int, int], ...]:
    """``"1920x1080,3840x2160"`` as ((1920, 1080), (3840, 2160))."""
    out = []
    for part in text.split(","):
        w, sep, h = part.strip().lower().partition("x")
        if not sep or not w.isdigit() or not h.isdigit() or int(w) < 64 or int(h) < 64:
            raise argparse.ArgumentTypeError(f"{part!r} is not a camera size like 1920x1080 (at least 64x64)")
        out.append((int(w), int(h)))
    return tuple(out)


def _splits(text: str) -> tuple[str, ...]:
    """``"val,test"`` as ("val", "test"): the splits a zone run may be limited to."""
    from assistant.synth.dataset import SPLITS

    names = tuple(part.strip().lower() for part in text.split(","))
    if bad := [name for name in names if name not in SPLITS]:
        raise argparse.ArgumentTypeError(f"{', '.join(map(repr, bad))}: the splits are {', '.join(SPLITS)}")
    return names


@contextmanager
def _writing(what: str) -> Iterator[None]:
    """Turns missing decks, a rendering worker that died and a write that fails into the
    command's clear error."""
    from assistant.cli import CommandError
    from assistant.synth.dataset import WorkerDiedError
    from assistant.synth.decks import DecksMissingError

    try:
        yield
    except (DecksMissingError, WorkerDiedError) as error:
        raise CommandError(str(error)) from error
    except OSError as error:
        raise CommandError(f"cannot write {what}: {error}") from error


@contextmanager
def _deck_errors() -> Iterator[None]:
    """An unknown or undrawable ``--deck`` as the command's clear error."""
    from assistant.cli import CommandError

    try:
        yield
    except ValueError as error:
        raise CommandError(str(error)) from error


def _hands_done(done: int, total: int) -> None:
    """Progress of a dataset run, every tenth hand, on stderr."""
    if done == total or done % 10 == 0:
        print(f"{done}/{total} hands", file=sys.stderr, flush=True)


def _zones(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.synth.dataset import default_workers, split_of
    from assistant.synth.decks import DeckSet
    from assistant.synth.zones import SIZES, write_zone_dataset

    if args.hands < 1:
        raise CommandError("--hands must be at least 1")
    if not 0 < args.rate <= 1:
        raise CommandError("--rate must be a fraction above 0")
    if args.chips < 0:
        raise CommandError("--chips must not be negative")
    if not 0 <= args.val < 1 or not 0 <= args.test < 1 or args.val + args.test >= 1:
        raise CommandError("--val and --test must be fractions that leave some training hands")
    if not 0 <= args.random_backs <= 1:
        raise CommandError("--random-backs must be a share from 0 to 1")
    if args.margins and args.chips:
        raise CommandError("--margins cuts seats' card zones: the chip stills have none")
    if args.deck is not None and (args.chips or args.decks != "standard"):
        raise CommandError("--deck deals one deck's hands: not with --chips or --decks")
    hand_splits = {split_of(i, args.hands, args.val, args.test) for i in range(args.hands)}
    if args.only and not hand_splits & set(args.only):
        raise CommandError(f"no hand falls in {', '.join(args.only)} with these --hands, --val and --test")

    with _writing("the dataset"), _deck_errors():
        summary = write_zone_dataset(
            args.out,
            args.hands,
            args.seed,
            rate=args.rate,
            val=args.val,
            test=args.test,
            workers=args.workers or default_workers(),
            progress=_hands_done,
            chip_shots=args.chips,
            sizes=args.sizes or SIZES,
            drawn_backs=args.random_backs,
            only=args.only,
            deck_set=DeckSet(args.decks),
            deck_id=args.deck,
            margins=args.margins,
        )
    print(json.dumps(summary["crops"]))
    return 0


def _stacks(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.synth.dataset import default_workers
    from assistant.synth.stack_views import StackViews, write_stack_views

    if args.hands < 1 or args.shots < 1 or args.copies < 1:
        raise CommandError("--hands, --shots and --copies must be at least 1")

    with _writing("the stack views"):
        path = write_stack_views(
            args.out,
            args.split,
            args.hands,
            args.seed,
            shots=args.shots,
            copies=args.copies,
            workers=args.workers or default_workers(),
            progress=_hands_done,
        )
    print(json.dumps({"path": str(path), "views": len(StackViews.load(path))}))
    return 0


def _stack_frames(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.synth.dataset import default_workers
    from assistant.synth.stack_frames import write_stack_frame_dataset

    if args.hands < 1 or args.shots < 1:
        raise CommandError("--hands and --shots must be at least 1")
    if not 0 <= args.val < 1:
        raise CommandError("--val must be a fraction below 1")
    with _writing("the dataset"):
        summary = write_stack_frame_dataset(
            args.out,
            args.hands,
            args.seed,
            shots=args.shots,
            val=args.val,
            workers=args.workers or default_workers(),
            progress=_hands_done,
        )
    print(json.dumps(summary["crops"]))
    return 0


def _finder_data(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.synth.finder_labels import write_finder_dataset

    def progress(done: int, total: int) -> None:
        if done == total or done % 500 == 0:
            print(f"{done}/{total} images", file=sys.stderr, flush=True)

    try:
        summary = write_finder_dataset(args.dataset, args.out, progress)
    except FileNotFoundError as error:
        raise CommandError(str(error)) from error
    except OSError as error:
        raise CommandError(f"cannot write the finder's data: {error}") from error
    print(json.dumps(summary))
    return 0


def _scan_photos(args: argparse.Namespace) -> int:
    from assistant.synth.dataset import SPLITS
    from assistant.synth.scan_photos import write_scan_photos

    with _deck_errors(), _writing("the scan photos"):
        only = [card.strip() for card in args.cards.split(",") if card.strip()]
        photos = write_scan_photos(args.deck, args.out, args.seed, SPLITS[args.surfaces], only)
    print(f"wrote {len(photos)} photos and their truth to {args.out}")
    return 0


def _video(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.synth.decks import DecksMissingError
    from assistant.synth.script import ScriptError, load_script
    from assistant.synth.video import render_video

    try:
        script = load_script(args.script)
    except ScriptError as error:
        raise CommandError(str(error)) from error
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        video, truth = render_video(script, args.out)
    except (DecksMissingError, ScriptError) as error:
        raise CommandError(str(error)) from error
    except OSError as error:
        raise CommandError(f"cannot write the video: {error}") from error
    print(f"wrote {video} and {truth}")
    return 0


def _decks(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.synth.decks import INSTALL_HINT, load_records

    records = load_records()
    missing = 0
    for r in records:
        present = r.installed()
        missing += not present
        state = "usable" if r.usable else "unusable"
        print(
            f"{r.id:30} {r.split.value:9} {state:9} {'installed' if present else 'MISSING':9} "
            f"courts={r.court_letters} colours={r.suit_colours} "
            f"index={','.join(r.index_corners)} {r.notes}"
        )
    if missing == len(records):
        raise CommandError(f"no deck is installed; run: {INSTALL_HINT}")
    if args.render:
        from assistant.synth.facecache import ensure_cached

        for r in records:
            if r.usable and r.installed():
                ensure_cached(r)
        print("face cache complete")
    return 0


def _fetch_decks(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.synth.decks import load_records
    from assistant.synth.facecache import ensure_cached
    from assistant.synth.npm_decks import ExtraDecksError, extra_packages, fetch

    try:
        for package in extra_packages():
            fetch(package)
        for record in load_records():
            if record.extra and record.usable:
                if not record.installed():
                    raise CommandError(f"{record.id}: its package does not hold {record.file()}")
                print(f"{record.id}: faces in {ensure_cached(record)}")
    except (ExtraDecksError, OSError) as error:
        raise CommandError(str(error)) from error
    return 0


def _pysol_decks(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.synth.pysol_decks import PysolDecksError, write_designs

    try:
        write_designs(args.out, debs=args.debs)
    except (PysolDecksError, OSError) as error:
        raise CommandError(str(error)) from error
    return 0
