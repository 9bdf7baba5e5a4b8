"""Sub-commands of the rules engine: ``score``, ``value``, ``rules``, ``play-recording``, ``demo``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

BUNDLED_RECORDING = (
    Path(__file__).resolve().parent.parent / "fixtures" / "sessions" / "seven-twenty-seven.json"
)


def register(subparsers: Any) -> None:
    score = subparsers.add_parser(
        "score",
        help="score one showdown: JSON object on stdin, JSON result on stdout",
        description="Read one JSON showdown on stdin and write the division of the pot on stdout.",
    )
    score.set_defaults(func=_score)

    value = subparsers.add_parser("value", help="what a hand is worth under a rule set")
    value.add_argument(
        "cards", nargs="+", help="cards such as 5h Ad As (ranks A 2-10 T J Q K, suits c d h s)"
    )
    value.add_argument("--rules", default="seven-twenty-seven", help="rules preset (default: %(default)s)")
    value.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a house-rule switch, e.g. bust=true or faces=half-or-ten (repeatable)",
    )
    value.add_argument("--json", action="store_true", help="print JSON")
    value.set_defaults(func=_value)

    rules = subparsers.add_parser("rules", help="list the rules presets and their switches")
    rules.set_defaults(func=_rules)

    play = subparsers.add_parser(
        "play-recording", help="replay a recorded session (events JSON) through the engine"
    )
    play.add_argument("recording", type=Path)
    play.add_argument("--json", type=Path, metavar="OUT", help="also write every hand's result as JSON")
    play.set_defaults(func=_play_recording)


def _score(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.scoring import ScoringInputError, score_request

    text = sys.stdin.read()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CommandError(f"the input is not JSON: {error}") from None
    try:
        result = score_request(data)
    except ScoringInputError as error:
        raise CommandError(str(error)) from None
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


def _parse_options(pairs: list[str]) -> dict[str, Any]:
    from assistant.cli import CommandError

    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep:
            raise CommandError(f"--option needs KEY=VALUE, not {pair!r}")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    return options


def _value(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.engine import RulesError, UnknownCardError, format_points, parse_cards, preset
    from assistant.engine.points import json_points
    from assistant.engine.valuation import improvements, value_hand

    try:
        rules = preset(args.rules).with_options(**_parse_options(args.option))
        cards = parse_cards(args.cards)
    except (RulesError, UnknownCardError) as error:
        raise CommandError(str(error)) from None
    if len(set(cards)) != len(cards):
        raise CommandError("a card is listed twice")
    value = value_hand(cards, rules)
    low, high = rules.targets
    gains = improvements(cards, rules)
    if args.json:
        out = {
            "rules": rules.name,
            "cards": [str(c) for c in cards],
            "totals": [json_points(t) for t in value.totals],
            "low": None if value.best_low is None else json_points(value.best_low),
            "high": None if value.best_high is None else json_points(value.best_high),
            "natural": value.natural,
            "busted": value.busted,
            "improve_low": [g.rank.symbol for g in gains if g.improves_low and not g.busts],
            "improve_high": [g.rank.symbol for g in gains if g.improves_high and not g.busts],
        }
        print(json.dumps(out))
        return 0

    def show(total: int | None) -> str:
        return "cannot win (over)" if total is None else format_points(total)

    print(f"{' '.join(str(c) for c in cards)} under {rules.name}")
    print(f"  every total: {', '.join(format_points(t) for t in value.totals)}")
    print(f"  best for {low}: {show(value.best_low)}")
    print(f"  best for {high}: {show(value.best_high)}")
    if value.natural:
        print(f"  natural: exactly {low} and {high} at once")
    if value.busted:
        print(f"  bust: over {high} whatever the cards count")
    for target, name in ((low, "low"), (high, "high")):
        better = [
            (g.rank.symbol, g.best_low if name == "low" else g.best_high)
            for g in gains
            if (g.improves_low if name == "low" else g.improves_high) and not g.busts
        ]
        if better:
            listed = ", ".join(f"{symbol} ({show(best)})" for symbol, best in better)
            print(f"  one more card that improves it for {target}: {listed}")
        else:
            print(f"  no single card improves it for {target}")
    return 0


def _rules(args: argparse.Namespace) -> int:
    from assistant.engine import PRESETS

    for rules in PRESETS:
        aliases = f" (also {', '.join(rules.aliases)})" if rules.aliases else ""
        print(f"{rules.name}{aliases}")
        print("  " + json.dumps(rules.options()))
    return 0


def _points(value: float | None) -> str:
    if value is None:
        return "over"
    whole = int(value)
    return f"{whole}½" if value != whole else str(whole)


def _print_hands(summaries: list[dict[str, Any]], names: list[str]) -> None:
    for hand in summaries:
        awards = ", ".join(f"{names[int(seat)]} +{chips}" for seat, chips in hand["awards"].items() if chips)
        print(f"hand {hand['hand']} (dealer {names[hand['dealer_seat']]}): pot {hand['pot']} -> {awards}")
        showdown = hand.get("showdown")
        if showdown:
            for player in showdown["players"]:
                declared = f", declared {player['declare']}" if "declare" in player else ""
                print(
                    f"    {names[player['seat']]:<10} {' '.join(player['cards']):<24}"
                    f" low {_points(player['low'])}  high {_points(player['high'])}{declared}"
                )
        elif "uncontested" in hand:
            print(f"    everyone else folded: {names[hand['uncontested']]} takes it")
    if summaries:
        stacks = summaries[-1]["stacks"]
        print("stacks: " + ", ".join(f"{n} {c}" for n, c in zip(names, stacks, strict=True)))


def _play_recording(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError
    from assistant.engine.events import SessionStarted
    from assistant.recording import RecordingError, load_recording, replay_summaries

    try:
        events = load_recording(args.recording)
        summaries = replay_summaries(events)
    except RecordingError as error:
        raise CommandError(str(error)) from None
    start = events[0]
    assert isinstance(start, SessionStarted)
    names = [p.name for p in start.players]
    print(f"{args.recording}: {start.rules.name}, {len(names)} players, {len(summaries)} hands")
    _print_hands(summaries, names)
    if args.json:
        args.json.write_text(json.dumps({"rules": start.rules.name, "hands": summaries}, indent=1) + "\n")
    return 0
