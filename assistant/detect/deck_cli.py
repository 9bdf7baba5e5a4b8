"""``dealer-assistant deck``: learn the table's one deck, list the decks that can be learnt."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    deck = subparsers.add_parser(
        "deck",
        help="learn the deck a table plays with (models tuned to it), or list the decks that can be",
        description="Tune the card models to one deck design: read it better than any unseen design.",
    )
    sub = deck.add_subparsers(dest="action", metavar="ACTION", required=True)
    learn = sub.add_parser(
        "learn",
        help="deal hands from one deck in the renderer and tune stage 1 and the readers on them",
        description="Writes a complete model folder for --models (detect, replay, run, dashboard). "
        "About 6 minutes on 2 CPU cores with the defaults.",
    )
    learn.add_argument("deck_id", metavar="DECK", help="a deck of decks.json (`dealer-assistant deck list`)")
    learn.add_argument("--out", type=Path, required=True, help="the model folder to write (new or empty)")
    learn.add_argument("--base", type=Path, default=None, help="the models to start from (default: models/)")
    learn.add_argument(
        "--hands", type=int, default=None, help="hands to learn from (default 8; 3 more check it)"
    )
    learn.add_argument("--seed", type=int, default=None, help="the hands' seed (default 4500)")
    learn.add_argument("--work", type=Path, help="keep the rendered hands and training runs here")
    learn.add_argument("--workers", type=int, default=2, help="rendering processes (default 2)")
    learn.set_defaults(func=_learn)
    ls = sub.add_parser("list", help="the deck designs that can be learnt, with their split")
    ls.add_argument("--json", action="store_true", help="one JSON object per deck per line")
    ls.set_defaults(func=_list)


def _learn(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from assistant.cli import CommandError
    from assistant.detect.deck_learning import DeckLearningError, DeckLesson, learn_deck
    from assistant.detect.pipeline import MODELS_DIR

    if args.workers < 1:
        raise CommandError("--workers must be at least 1")
    try:
        lesson = DeckLesson()
        if args.hands is not None:
            lesson = replace(lesson, hands=args.hands)
        if args.seed is not None:
            lesson = replace(lesson, seed=args.seed)
    except ValueError as error:
        raise CommandError(str(error)) from error
    try:
        base, work = args.base or MODELS_DIR, args.work
        record = learn_deck(args.deck_id, args.out, base=base, lesson=lesson, work=work, workers=args.workers)
    except (DeckLearningError, ValueError) as error:
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
