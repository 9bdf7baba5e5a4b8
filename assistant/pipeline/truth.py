"""Ground truth of a rendered video fixture, and the dealer inputs a replay needs from it.

A fixture's ``NAME.truth.json`` (written by ``dealer-assistant synth video``) lists every
action with the frame at which it is complete. A replay must find the same actions in
the same order: the camera's share itself, the rest from the dealer-input sidecar, which
:func:`sidecar_from_truth` writes from the truth.
"""

from __future__ import annotations

from typing import Any

from assistant.engine.actions import action_to_event
from assistant.engine.events import Player, Stakes
from assistant.engine.rules import preset
from assistant.pipeline.sidecar import DealerInput, Sidecar

#: What a camera over the table sees happen (cards arriving, turned up or over).
CAMERA_ACTIONS = frozenset({"deal", "take", "expose", "show", "show_bust", "fold"})
#: Chips pushed forward: seen by the camera when it counts chips, else entered.
BET_ACTIONS = frozenset({"bet", "call", "raise"})


#: How the renderer (:mod:`assistant.synth.video`) times a change: a card dealt or taken
#: moves for MOVE_FRAMES and then rests for HOLD_FRAMES; a card turned over (expose,
#: show, fold) turns in one frame and rests for HOLD_FRAMES. The truth's frame is the
#: last of the resting frames.
MOVE_FRAMES = 5
HOLD_FRAMES = 2
MOVED = frozenset({"deal", "take"})


def visible_frame(truth_frame: int, kind: str) -> int:
    """The first frame that shows the finished change of a truth event at ``truth_frame``:
    a moved card lying at rest, or a turned card turned.

    >>> visible_frame(40, "deal"), visible_frame(40, "show")
    (38, 39)
    """
    return truth_frame - HOLD_FRAMES if kind in MOVED else truth_frame - HOLD_FRAMES + 1


def truth_actions(truth: dict[str, Any]) -> list[tuple[int, list[Any]]]:
    """(frame, action) for every engine action in a truth file, in order."""
    out: list[tuple[int, list[Any]]] = []
    for item in truth["events"]:
        kind = item["action"]
        if kind == "awards":
            continue
        if kind == "start_hand":
            action: list[Any] = ["start_hand"]
        elif kind in ("deal", "take"):
            action = [kind, item["seat"], item.get("card")]
        elif kind == "expose":
            action = [kind, item["seat"], item["card"]]
        elif kind in ("bet", "raise"):
            action = [kind, item["seat"], item["amount"]]
        elif kind == "declare":
            action = [kind, item["seat"], item["declaration"]]
        elif kind in ("show", "show_bust"):
            action = [kind, item["seat"], item["cards"]]
        else:
            action = [kind, item["seat"]]
        out.append((int(item["frame"]), action))
    return out


def sidecar_from_truth(truth: dict[str, Any], bets_from_camera: bool = False) -> Sidecar:
    """The dealer inputs of a fixture: everything the camera cannot see, at its frame."""
    script = truth["script"]
    seen = CAMERA_ACTIONS | (BET_ACTIONS if bets_from_camera else frozenset())
    inputs: list[DealerInput] = []
    for frame, action in truth_actions(truth):
        if action[0] in seen:
            continue
        # the dealer presses "next hand" before the first card moves
        inputs.append(
            DealerInput(0 if action[0] == "start_hand" and not inputs else frame, action_to_event(action))
        )
    return Sidecar(
        rules=preset(truth["rules"]).with_options(**(truth.get("options") or {})),
        stakes=Stakes(**(script.get("stakes") or {})),
        players=tuple(Player(str(name), int(stack)) for name, stack in script["players"]),
        dealer=int(truth["dealer"]),
        inputs=tuple(inputs),
        bets_from_camera=bets_from_camera,
    )
