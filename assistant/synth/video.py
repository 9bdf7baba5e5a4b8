"""Video fixtures: a game script replayed through the rules engine, frame by frame.

The table (camera, seats, surface, light) is fixed by the script's seed. Each action is
applied to a real :class:`~assistant.engine.Session` (face-down cards as ``None``, as a
camera sees them) and animated: the dealer's hand carries dealt cards from the deck,
bets slide from a player's stack to the bet line, bets are pushed to the pot when a
round closes, folded hands are turned face down, shown hands turned up, and the pot
goes to the winners. ``NAME.truth.json`` holds the events with the frame at which each
is complete, the camera calibration and table layout, and the result with ``awards``
as ``dealer-assistant score`` writes them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from assistant.engine.cards import parse_card
from assistant.synth.camera import Camera
from assistant.synth.dataset import deck_faces
from assistant.synth.decks import Split, deck_by_id
from assistant.synth.effects import sample_light
from assistant.synth.render import Rendered, render
from assistant.synth.scene import CARD_HEIGHT_CM, CardItem, ChipStack, Hand, Scene
from assistant.synth.script import GameScript, ScriptError
from assistant.synth.surfaces import sample_surface
from assistant.synth.table import STACK_MAX, SeatModel, Table, calibration_json, layout_json, table_mm_to_px

MOVE_FRAMES = 5
HOLD_FRAMES = 2


class VideoRenderer:
    def __init__(self, script: GameScript) -> None:
        try:
            self.record = deck_by_id(script.deck)
        except KeyError as error:
            raise ScriptError(str(error.args[0])) from error
        self.faces = deck_faces(self.record)
        w, h = self.faces.size
        self.table = Table(script, CARD_HEIGHT_CM * w / h)
        rng = np.random.default_rng([script.seed, 2])
        self.surface = sample_surface(rng, Split(script.surface_split))
        width, height = script.size
        hfov = 62.0
        vfov = 2 * math.atan(math.tan(math.radians(hfov) / 2) * height / width)
        # the whole table in view, markers at its rim included, whichever side is tighter
        distance = 1.12 * max(
            self.table.a / math.tan(math.radians(hfov) / 2), self.table.b / math.tan(vfov / 2)
        )
        self.camera = Camera.looking_at(
            width,
            height,
            hfov_deg=hfov,
            target=(0.0, 0.0),
            distance=distance,
            tilt_deg=float(rng.uniform(5, 25)),
            yaw_deg=float(rng.uniform(-20, 20)),
            k1=float(rng.uniform(0.0, 0.08)),
        )
        self.light = sample_light(rng, strong=False)
        self.light.update({"motion": 0.0, "jpeg": 0.0, "noise": 0.6, "defocus": 0.0})
        self.seed = script.seed
        self.frames: list[np.ndarray] = []

    def frame(
        self,
        extra_cards: Sequence[CardItem] = (),
        extra_chips: Sequence[ChipStack] = (),
        hands: Sequence[Hand] = (),
    ) -> None:
        scene = self.scene(extra_cards, extra_chips, hands)
        self.frames.append(self.render(scene, len(self.frames)).image)

    def render(self, scene: Scene, index: int) -> Rendered:
        """Frame ``index`` of the video showing ``scene`` (its noise seeded by the index)."""
        return render(scene, self.faces, np.random.default_rng([self.seed, 3, index]))

    def scene(
        self,
        extra_cards: Sequence[CardItem] = (),
        extra_chips: Sequence[ChipStack] = (),
        hands: Sequence[Hand] = (),
    ) -> Scene:
        """What the camera sees now: the table's cards and chips plus anything moving."""
        cards, chips = self.table.items()
        return Scene(
            self.camera,
            self.surface,
            self.record.id,
            [*cards, *extra_cards],
            [*chips, *extra_chips],
            list(hands),
            [],
            (self.table.a, self.table.b),
            self.light,
            self.table.decals,
        )

    def hand_at(self, p: np.ndarray, seat: SeatModel) -> Hand:
        base = p + seat.ey * 45 + seat.ex * 8
        return Hand(
            float(p[0]),
            float(p[1]),
            float(base[0]),
            float(base[1]),
            3.0,
            self.table.skin,
            self.table.sleeve,
        )

    def hold(self, n: int = HOLD_FRAMES) -> None:
        for _ in range(n):
            self.frame()


def _ease(i: int, n: int) -> float:
    t = (i + 1) / n
    return t * t * (3 - 2 * t)


@dataclass
class Animated:
    """A script played through the engine and drawn frame by frame by a renderer."""

    events: list[dict[str, Any]]
    state: Any  # the engine's final TableState
    awards: dict[str, int]
    showdown_frame: int


def render_video(script: GameScript, out: Path) -> tuple[Path, Path]:
    """Render ``script`` to ``out/NAME.mp4`` and ``out/NAME.truth.json``."""
    vr = VideoRenderer(script)
    played = animate(script, vr)
    st, events, awards, showdown_frame = played.state, played.events, played.awards, played.showdown_frame
    table = vr.table
    out.mkdir(parents=True, exist_ok=True)
    video_path = out / f"{script.name}.mp4"
    writer = cv2.VideoWriter(str(video_path), cv2.VideoWriter.fourcc(*"mp4v"), script.fps, script.size)
    if not writer.isOpened():
        raise OSError(f"OpenCV cannot open a video writer for {video_path}")
    for frame in vr.frames:
        writer.write(frame)
    writer.release()
    cam = vr.camera
    mm_to_px = table_mm_to_px(cam)
    truth = {
        "name": script.name,
        "video": video_path.name,
        "fps": script.fps,
        "frames": len(vr.frames),
        "size": list(script.size),
        "rules": script.rules,
        "options": script.options,
        "deck": script.deck,
        "deck_split": vr.record.split.value,
        "surface": {**vr.surface.to_json(), "split": script.surface_split},
        "camera": cam.to_json(),
        "calibration": calibration_json(table, cam, mm_to_px),
        "layout": layout_json(table),
        "seat_numbers": {str(s.seat): table.layout.seats[s.seat].number for s in table.seats},
        "chip_colours": {str(s.seat): s.colour for s in table.seats},
        "dealer": script.dealer,
        "events": events,
        "showdown_frame": showdown_frame,
        "result": {"pot": int(st.result.pot), "awards": awards},
        "final_hands": {str(s.seat): [str(c) for c, _ in s.cards] for s in table.seats},
        "script": script.to_json(),
    }
    truth_path = out / f"{script.name}.truth.json"
    truth_path.write_text(json.dumps(truth, indent=1, allow_nan=False) + "\n")
    return video_path, truth_path


def animate(script: GameScript, vr: VideoRenderer) -> Animated:
    """Play ``script`` through the engine, drawing every frame with ``vr``."""
    from assistant.engine import Declaration, IllegalActionError, Player, Session, Stakes, preset

    try:
        rules = preset(script.rules)
        if script.options:
            rules = rules.with_options(**script.options)
    except (KeyError, ValueError, TypeError) as error:
        raise ScriptError(f"unknown rules {script.rules!r} or options: {error}") from error
    stakes = Stakes(**script.stakes) if script.stakes else Stakes()
    session = Session.new(rules, stakes, [Player(n, c) for n, c in script.players], script.dealer)
    session.start_hand()
    table = vr.table
    dealer = table.seats[script.dealer]
    events: list[dict[str, Any]] = []

    def sync_money() -> None:
        st = session.state
        for s in table.seats:
            s.stack = st.seats[s.seat].stack
            s.bet = st.seats[s.seat].bet
        bets = sum(s.bet for s in table.seats)
        pot_total = st.pot - bets if st.pot >= bets else st.pot
        have = sum(table.pot.values())
        if pot_total > have:
            table.pot["white"] = table.pot.get("white", 0) + pot_total - have

    sync_money()
    vr.hold(4)
    events.append({"frame": len(vr.frames) - 1, "action": "start_hand", "pot": session.state.pot})
    for i, action in enumerate(script.actions):
        kind, seat_no = action[0], int(action[1])
        if not 0 <= seat_no < len(table.seats):
            raise ScriptError(f"actions[{i}]: no seat {seat_no}")
        seat = table.seats[seat_no]
        before_bets = {s.seat: s.bet for s in table.seats}
        record: dict[str, Any] = {"action": kind, "seat": seat_no}
        try:
            if kind in ("deal", "take"):
                card = parse_card(str(action[2]))
                d = session.decision
                face_up = bool(d.face_up) if d is not None else True
                shown = card if face_up else None
                (session.deal if kind == "deal" else session.take)(seat_no, shown)
                record.update(
                    {
                        "card": str(card) if face_up else None,
                        "true_card": str(card),
                        "face_up": face_up,
                    }
                )
                target, ang = table.slot(seat, len(seat.cards))
                for f in range(MOVE_FRAMES):
                    e = _ease(f, MOVE_FRAMES)
                    p = table.deck_pos + (target - table.deck_pos) * e
                    a = table.deck_angle + (ang - table.deck_angle) * e
                    moving = CardItem(
                        card,
                        face_up and f >= MOVE_FRAMES // 2,
                        float(p[0]),
                        float(p[1]),
                        a,
                        2000,
                        lift=1.5 * math.sin(math.pi * e),
                        width_cm=table.width_cm,
                    )
                    vr.frame([moving], hands=[vr.hand_at(p, dealer)])
                seat.cards.append((card, face_up))
            elif kind == "expose":
                card = parse_card(str(action[2]))
                session.expose(seat_no, card)
                seat.cards = [(c, up or c == card) for c, up in seat.cards]
                record["card"] = str(card)
            elif kind == "refuse":
                session.refuse(seat_no)
            elif kind == "check":
                session.check(seat_no)
            elif kind == "bet":
                session.bet(seat_no, int(action[2]))
                record["amount"] = int(action[2])
            elif kind == "call":
                session.call(seat_no)
            elif kind == "raise":
                session.raise_(seat_no, int(action[2]))
                record["amount"] = int(action[2])
            elif kind == "fold":
                session.fold(seat_no)
                seat.folded = True
            elif kind == "declare":
                session.declare(seat_no, Declaration(str(action[2])))
                record["declaration"] = str(action[2])
            elif kind in ("show", "show_bust"):
                cards = [parse_card(str(c)) for c in action[2]]
                (session.show if kind == "show" else session.show_bust)(seat_no, cards)
                seat.cards = [(c, True) for c, _ in seat.cards]
                record["cards"] = [str(c) for c in cards]
            else:  # pragma: no cover - parse_script rejects unknown actions
                raise ScriptError(f"actions[{i}]: unknown action {kind!r}")
        except IllegalActionError as error:
            raise ScriptError(f"actions[{i}] {action!r} is illegal here: {error}") from error
        # chips slide from the player's stack to the bet line
        added = session.state.seats[seat_no].bet - before_bets[seat_no]
        if kind in ("bet", "call", "raise") and added > 0:
            start, end = table.stack_spot(seat, 0), table.bet_spot(seat) + seat.ex * 4.3
            seat.stack = session.state.seats[seat_no].stack
            for f in range(MOVE_FRAMES):
                p = start + (end - start) * _ease(f, MOVE_FRAMES)
                mover = ChipStack(
                    seat.colour, min(added, STACK_MAX), float(p[0]), float(p[1]), 1500, lift=0.3
                )
                vr.frame(extra_chips=[mover], hands=[vr.hand_at(p, seat)])
        # a closed betting round: the bets go to the pot
        st = session.state
        if any(before_bets.values()) and not any(s.bet for s in st.seats):
            moving_from = [(s, before_bets[s.seat]) for s in table.seats if before_bets[s.seat]]
            for s, _ in moving_from:
                s.bet = 0
            for f in range(MOVE_FRAMES):
                e = _ease(f, MOVE_FRAMES)
                movers = []
                for s, amount in moving_from:
                    p = table.bet_spot(s) + (table.pot_spot(0) - table.bet_spot(s)) * e
                    movers.append(ChipStack(s.colour, min(amount, STACK_MAX), float(p[0]), float(p[1]), 1500))
                hand = np.array([movers[0].x, movers[0].y])
                vr.frame(extra_chips=movers, hands=[vr.hand_at(hand, dealer)])
            for s, amount in moving_from:
                table.pot[s.colour] = table.pot.get(s.colour, 0) + amount
        sync_money()
        vr.hold()
        record["frame"] = len(vr.frames) - 1
        events.append(record)
    st = session.state
    if st.result is None:
        raise ScriptError("the script ends before the hand is over (no result)")
    awards = {str(seat): int(chips) for seat, chips in sorted(st.result.awards.items())}
    # the pot goes to the winners
    showdown_frame = len(vr.frames) - 1
    winners = [table.seats[int(s)] for s, c in awards.items() if c > 0]
    pot_stacks = sum(table.pot.values())
    table.pot = {}
    for f in range(MOVE_FRAMES + 2):
        e = _ease(f, MOVE_FRAMES + 2)
        movers = []
        for w in winners:
            p = table.pot_spot(0) + (table.stack_spot(w, 2) - table.pot_spot(0)) * e
            movers.append(
                ChipStack(
                    "white",
                    min(STACK_MAX, max(1, pot_stacks // max(1, len(winners)))),
                    float(p[0]),
                    float(p[1]),
                    1500,
                )
            )
        vr.frame(extra_chips=movers)
    sync_money()
    table.pot = {}
    vr.hold(6)
    events.append({"frame": len(vr.frames) - 1, "action": "awards", "awards": awards})
    return Animated(events, st, awards, showdown_frame)
