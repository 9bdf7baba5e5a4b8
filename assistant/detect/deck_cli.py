"""``dealer-assistant deck``: learn the table's one deck, list the decks that can be learnt."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    deck = subparsers.add_parser(
        "deck",
        help="learn the deck a table plays with (models tuned to it), scan a deck's faces, list the decks",
        description="Tune the card models to one deck design: read it better than any unseen design.",
    )
    sub = deck.add_subparsers(dest="action", metavar="ACTION", required=True)
    learn = sub.add_parser(
        "learn",
        help="deal hands from one deck in the renderer and tune stage 1 and the readers on them",
        description="Writes a complete model folder for --models (detect, replay, run, dashboard). "
        "6 to 15 minutes on 2 CPU cores with the defaults.",
    )
    learn.add_argument(
        "deck_id",
        metavar="DECK",
        help="a deck of decks.json (`dealer-assistant deck list`), or a folder `deck scan` wrote",
    )
    learn.add_argument("--out", type=Path, required=True, help="the model folder to write (new or empty)")
    learn.add_argument("--base", type=Path, default=None, help="the models to start from (default: models/)")
    learn.add_argument(
        "--hands", type=int, default=None, help="hands to learn from (default 8; 3 more check it)"
    )
    learn.add_argument("--seed", type=int, default=None, help="the hands' seed (default 4500)")
    learn.add_argument(
        "--reader-share",
        type=float,
        default=None,
        help="the tuned readers' share of the readers written, weight by weight with the base's "
        "(default 1: as tuned; 0.75 read eight held-out decks better pooled, models/README.md)",
    )
    learn.add_argument("--work", type=Path, help="keep the rendered hands and training runs here")
    learn.add_argument("--workers", type=int, default=2, help="rendering processes (default 2)")
    learn.set_defaults(func=_learn)
    scan = sub.add_parser(
        "scan",
        help="make a deck's design from photos of its 52 faces, for `deck learn`",
        description="Lay the cards face up, a dozen at a time and not touching, and photograph them "
        "from above (a phone, or the table camera); one card face down in a photo gives the back. "
        "Writes the faces, design.json and sheet.png (the faces under their names: check them).",
    )
    scan.add_argument("photos", nargs="+", type=Path, metavar="PHOTO", help="photos of the faces")
    scan.add_argument("--out", type=Path, required=True, help="the design folder to write (new or empty)")
    scan.add_argument("--name", default="", help="the deck's name (default: the folder's)")
    scan.add_argument("--models", type=Path, default=None, help="the models that read it (default: models/)")
    scan.set_defaults(func=_scan)
    swap = sub.add_parser(
        "swap",
        help="swap two faces' names in a scanned deck (a misread seen on its sheet.png)",
    )
    swap.add_argument("folder", type=Path, metavar="DIR", help="a folder `deck scan` wrote")
    swap.add_argument("first", metavar="CARD", help="a card name, such as Qh")
    swap.add_argument("second", metavar="CARD", help="the card it really is, such as Qd")
    swap.set_defaults(func=_swap)
    retake = sub.add_parser(
        "retake",
        help="put one face of a scanned deck again from a new photo of that card",
        description="For a face sheet.png shows wrong that `deck swap` cannot mend (a patch of cloth "
        "taken for a card, a face photographed badly): photograph the card face up, alone or beside a "
        "few others, on a plain dark cloth; CARD back takes the deck's back from a card face down.",
    )
    retake.add_argument("folder", type=Path, metavar="DIR", help="a folder `deck scan` wrote")
    retake.add_argument("card", metavar="CARD", help="the card photographed, such as Jh, or back")
    retake.add_argument("photo", type=Path, metavar="PHOTO", help="the new photo of it")
    retake.add_argument("--models", type=Path, default=None, help="the models that read it (default models/)")
    retake.set_defaults(func=_retake)
    ls = sub.add_parser("list", help="the deck designs that can be learnt, with their split")
    ls.add_argument("--json", action="store_true", help="one JSON object per deck per line")
    ls.set_defaults(func=_list)


def _stop_cleanly_on_sigterm() -> None:
    """A lesson or scan stopped with SIGTERM (``kill``, a service manager) raises SystemExit
    in the main thread, as Ctrl+C raises KeyboardInterrupt, so that its staged folder is
    removed on the way out (Python's default for SIGTERM runs no cleanup)."""

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)


def _learn(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from assistant.cli import CommandError
    from assistant.detect.deck_learning import DeckLearningError, DeckLesson, learn_deck
    from assistant.detect.pipeline import MODELS_DIR
    from assistant.synth.dataset import WorkerDiedError

    if args.workers < 1:
        raise CommandError("--workers must be at least 1")
    try:
        lesson = DeckLesson()
        if args.hands is not None:
            lesson = replace(lesson, hands=args.hands)
        if args.seed is not None:
            lesson = replace(lesson, seed=args.seed)
        if args.reader_share is not None:
            lesson = replace(lesson, reader_share=args.reader_share)
    except ValueError as error:
        raise CommandError(str(error)) from error
    deck_id = args.deck_id
    from assistant.synth.decks import SCAN_FILE, load_records

    known = {record.id for record in load_records()}
    folder = Path(deck_id)
    if folder.is_dir() and ((folder / SCAN_FILE).is_file() or deck_id not in known):  # a scanned deck
        from assistant.synth.decks import scanned_id, scanned_record

        try:
            scanned_record(folder)
        except ValueError as error:
            raise CommandError(str(error)) from error
        deck_id = scanned_id(folder)
    _stop_cleanly_on_sigterm()
    try:
        base, work = args.base or MODELS_DIR, args.work
        record = learn_deck(deck_id, args.out, base=base, lesson=lesson, work=work, workers=args.workers)
    except (DeckLearningError, WorkerDiedError, ValueError) as error:
        raise CommandError(str(error)) from error
    except OSError as error:
        raise CommandError(f"cannot write the learnt deck: {error}") from error
    print(json.dumps({"models": str(args.out), **record}))
    if record.get("reads_check_hands_better") is False:
        print(
            f"deck learn: the tuned models read the check hands no better than {base}: keep using those",
            file=sys.stderr,
        )
    return 0


def _scan(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.detect.deck_scan import DeckScanError, scan_deck
    from assistant.detect.pipeline import MODELS_DIR

    def log(line: str) -> None:
        print(line, file=sys.stderr)

    _stop_cleanly_on_sigterm()
    try:
        design = scan_deck(args.photos, args.out, name=args.name, models=args.models or MODELS_DIR, log=log)
    except DeckScanError as error:
        raise CommandError(str(error)) from error
    except OSError as error:
        raise CommandError(f"cannot write the scanned deck: {error}") from error
    check = design["to_check"]
    print(
        json.dumps(
            {
                "design": str(args.out),
                "faces": len(design["faces"]),
                "to_check": check,
                "left_out": len(design["left_out"]),
                "index_box": design["index_box"],
                "index_corners": design["index_corners"],
                "back": design["back"],
            }
        )
    )
    sheet = args.out / "sheet.png"
    if check:
        log(
            f"deck scan: check {', '.join(check)} on {sheet}; "
            f"fix a misread with: dealer-assistant deck swap {args.out} CARD CARD, "
            f"or photograph the card again: dealer-assistant deck retake {args.out} CARD PHOTO"
        )
    else:
        log(
            f"deck scan: every face read surely; look over {sheet}, "
            f"then: dealer-assistant deck learn {args.out} --out MODELS"
        )
    return 0


def _swap(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.detect.deck_scan import DeckScanError, swap_faces

    try:
        design = swap_faces(args.folder, args.first, args.second)
    except (DeckScanError, ValueError) as error:
        raise CommandError(str(error)) from error
    except OSError as error:
        raise CommandError(f"cannot swap the faces: {error}") from error
    print(
        json.dumps(
            {"design": str(args.folder), "swapped": [args.first, args.second], "to_check": design["to_check"]}
        )
    )
    return 0


def _retake(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.detect.deck_scan import DeckScanError, retake_face
    from assistant.detect.pipeline import MODELS_DIR

    def log(line: str) -> None:
        print(line, file=sys.stderr)

    try:
        design = retake_face(args.folder, args.card, args.photo, models=args.models or MODELS_DIR, log=log)
    except (DeckScanError, ValueError) as error:
        raise CommandError(str(error)) from error
    except OSError as error:
        raise CommandError(f"cannot retake the face: {error}") from error
    said: dict[str, Any] = {"design": str(args.folder), "retaken": args.card}
    face = design["faces"].get(args.card)  # none for the back
    if face is not None:
        said |= {"read_as": face["read_as"], "likelihood": face["likelihood"]}
    print(json.dumps(said | {"to_check": design.get("to_check", [])}))
    return 0


def _list(args: argparse.Namespace) -> int:
    from assistant.synth.decks import load_records

    for record in load_records():
        if not record.usable:
            continue
        installed = record.installed()
        row = {"deck": record.id, "name": record.name, "split": record.split.value, "installed": installed}
        if args.json:
            print(json.dumps(row))
        else:
            state = "" if row["installed"] else "  (not installed)"
            print(f"{record.id:32} {record.split.value:9} {record.name}{state}")
    return 0
