"""Drawing a :class:`~assistant.synth.scene.Scene` into pixels and an object-id map.

The scene is drawn into an ideal (undistorted) canvas, padded where the lens needs
pixels beyond the frame, together with an id map that records which object owns each
pixel; both are then warped through the lens model. Card faces come from the face
cache and are warped only inside their own bounding box, which keeps a 640 px scene
in the tens of milliseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.synth.effects import apply_effects
from assistant.synth.facecache import DeckFaces
from assistant.synth.scene import (
    CARD_HEIGHT_CM,
    CHIP_COLOURS,
    CHIP_RADIUS_CM,
    CHIP_THICKNESS_CM,
    CardItem,
    ChipStack,
    Clutter,
    Decal,
    Hand,
    Scene,
)

Image = npt.NDArray[Any]  # uint8 pixels (cv2 returns loosely typed arrays)
Array = npt.NDArray[np.float64]
SHIFT = 4  # sub-pixel bits for cv2 polygon drawing
ONE = 1 << SHIFT

Object = CardItem | ChipStack | Hand | Clutter


@dataclass
class Rendered:
    image: Image  # BGR, output size, after lens and effects
    ids: npt.NDArray[np.uint16]  # object id per output pixel (0: table)
    objects: list[Object]  # object of id i is objects[i - 1]


def _fill(img: np.ndarray, pts: Array, colour: tuple[int, ...] | int, aa: bool = True) -> None:
    if not np.all(np.isfinite(pts)) or np.abs(pts).max() > 1e5:
        return  # behind the camera or absurdly far: nothing to draw
    poly = np.round(pts * ONE).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillPoly(img, [poly], colour, cv2.LINE_AA if aa else cv2.LINE_8, SHIFT)


class Canvas:
    """The ideal canvas being drawn, with its id map."""

    def __init__(self, scene: Scene) -> None:
        cam = scene.camera
        self.camera = cam
        self.pad = cam.canvas_padding()
        self.w = cam.width + 2 * self.pad[0]
        self.h = cam.height + 2 * self.pad[1]
        self.image = np.zeros((self.h, self.w, 3), np.uint8)
        self.ids = np.zeros((self.h, self.w), np.uint16)
        self.light_dx = scene.light.get("shadow_dx", 0.6)
        self.light_dy = scene.light.get("shadow_dy", -0.6)

    def project(self, pts: Array) -> Array:
        return self.camera.project_ideal(pts, (float(self.pad[0]), float(self.pad[1])))

    # -- surface -------------------------------------------------------------------
    def draw_surface(self, scene: Scene) -> None:
        tex = scene.surface.texture
        s = scene.surface.size_cm / tex.shape[1]
        A = np.array([[s, 0, 0], [0, s, 0], [0, 0, 1.0]])
        H = self.camera.plane_homography((float(self.pad[0]), float(self.pad[1])))
        cv2.warpPerspective(
            tex,
            H @ A,
            (self.w, self.h),
            dst=self.image,
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REFLECT_101,
        )

    def shade(self, pts: Array, strength: float, blur: int) -> None:
        """Darken a soft polygon (a shadow) given in canvas pixels."""
        x0, y0 = np.floor(pts.min(axis=0)).astype(int) - blur * 2
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + blur * 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, self.w), min(y1, self.h)
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        _fill(mask, pts - [x0, y0], 255)
        if blur > 0:
            k = blur * 2 + 1
            mask = cv2.blur(mask, (k, k))
        roi = self.image[y0:y1, x0:x1]
        factor = 1.0 - strength * (mask.astype(np.float32) / 255.0)
        roi[:] = (roi * factor[:, :, None]).astype(np.uint8)

    def draw_decal(self, decal: Decal) -> None:
        corners = self.project(decal.corners)
        if not np.all(np.isfinite(corners)) or np.abs(corners).max() > 1e5:
            return
        x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, self.w), min(y1, self.h)
        if cx1 <= cx0 or cy1 <= cy0:
            return
        h, w = decal.image.shape[:2]
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        M = cv2.getPerspectiveTransform(src, (corners - [cx0, cy0]).astype(np.float32))
        alpha_src = np.full((h, w), 255, np.uint8)
        size = (cx1 - cx0, cy1 - cy0)
        warped = cv2.warpPerspective(decal.image, M, size, flags=cv2.INTER_AREA)
        alpha = cv2.warpPerspective(alpha_src, M, size, flags=cv2.INTER_LINEAR)[:, :, None] / 255.0
        roi = self.image[cy0:cy1, cx0:cx1]
        roi[:] = (warped * alpha + roi * (1.0 - alpha)).astype(np.uint8)

    # -- cards -----------------------------------------------------------------------
    def draw_card(self, item: CardItem, faces: DeckFaces, oid: int) -> None:
        corners = self.project(item.corners())
        if not np.all(np.isfinite(corners)) or np.abs(corners).max() > 1e5:
            return
        height_px = max(np.linalg.norm(corners[3] - corners[0]), np.linalg.norm(corners[2] - corners[1]))
        x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, self.w), min(y1, self.h)
        if cx1 <= cx0 or cy1 <= cy0:
            return
        # shadow, offset away from the light and softened
        scale = height_px / CARD_HEIGHT_CM
        offset = np.array([self.light_dx, self.light_dy]) * scale * (0.25 + item.lift * 0.5)
        self.shade(corners + offset, 0.3, max(1, int(scale * 0.15)))
        face = faces.face(item.card if item.face_up else None, min_height=float(height_px))
        fh, fw = face.shape[:2]
        src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
        dst = (corners - [cx0, cy0]).astype(np.float32)
        M = cv2.getPerspectiveTransform(src, dst)
        warped = cv2.warpPerspective(
            face, M, (cx1 - cx0, cy1 - cy0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
        )
        alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
        roi = self.image[cy0:cy1, cx0:cx1]
        roi[:] = (warped[:, :, :3] * alpha + roi * (1.0 - alpha)).astype(np.uint8)
        self.ids[cy0:cy1, cx0:cx1][warped[:, :, 3] > 127] = oid

    # -- chips -----------------------------------------------------------------------
    def draw_chips(self, stack: ChipStack, oid: int) -> None:
        """A stack: side band with edge spots and a line between chips, then the top chip."""
        body, spot = CHIP_COLOURS[stack.colour]
        side = tuple(int(c * 0.72) for c in body)
        edge = tuple(int(c * 0.45) for c in body)
        n = 24
        count = stack.count
        angles = np.linspace(0, 2 * math.pi, n, endpoint=False)
        unit = np.column_stack([np.cos(angles), np.sin(angles)])
        ring = unit * CHIP_RADIUS_CM + [stack.x, stack.y]
        z = stack.lift + np.arange(count + 1) * CHIP_THICKNESS_CM
        rings3 = np.concatenate([np.column_stack([ring, np.full(n, zk)]) for zk in z])
        rings = self.project(rings3).reshape(count + 1, n, 2)
        if not np.all(np.isfinite(rings)) or np.abs(rings).max() > 1e5:
            return
        hull = cv2.convexHull(np.vstack([rings[0], rings[-1]]).astype(np.float32)).reshape(-1, 2)
        _fill(self.image, hull.astype(np.float64), side)
        cam = np.array(self.camera.position)
        facing = ((cam[:2] - ring) * unit).sum(axis=1) > 0  # rim points seen from the camera
        # edge spots of every chip on the visible side, in one call
        spot_angles = stack.phase + np.arange(6) * (math.pi / 3)
        seen = [
            a
            for a in spot_angles
            if np.dot(cam[:2] - [stack.x, stack.y], [math.cos(a), math.sin(a)]) > CHIP_RADIUS_CM
        ]
        if seen:
            quads = []
            for a in seen:
                for da0, da1 in ((-0.16, 0.16),):
                    c0, s0, c1, s1 = (
                        math.cos(a + da0),
                        math.sin(a + da0),
                        math.cos(a + da1),
                        math.sin(a + da1),
                    )
                    for k in range(count):
                        z0, z1 = z[k], z[k] + CHIP_THICKNESS_CM * 0.97
                        quads.append([[c0, s0, z0], [c1, s1, z0], [c1, s1, z1], [c0, s0, z1]])
            q = np.array(quads, dtype=np.float64)
            q[:, :, :2] = q[:, :, :2] * CHIP_RADIUS_CM + [stack.x, stack.y]
            pq = self.project(q.reshape(-1, 3)).reshape(-1, 4, 2)
            polys = [np.round(p * ONE).astype(np.int32).reshape(-1, 1, 2) for p in pq]
            cv2.fillPoly(self.image, polys, spot, cv2.LINE_AA, SHIFT)
        # the visible front arc of each joint between chips
        if facing.any() and not facing.all():
            start = int(np.argmax(~facing & np.roll(facing, -1))) + 1
            order = (np.arange(n) + start) % n
            arc = order[facing[order]]
            lines = [
                np.round(rings[k][arc] * ONE).astype(np.int32).reshape(-1, 1, 2) for k in range(1, count)
            ]
            if lines:
                cv2.polylines(self.image, lines, False, edge, 1, cv2.LINE_AA, SHIFT)
        top = rings[-1]
        _fill(self.image, top, body)
        zt = z[-1]
        quads = []
        for a in spot_angles:
            quads.append(
                [
                    [math.cos(aa) * r, math.sin(aa) * r, zt]
                    for r, aa in ((0.78, a - 0.17), (1.0, a - 0.2), (1.0, a + 0.2), (0.78, a + 0.17))
                ]
            )
        q = np.array(quads, dtype=np.float64)
        q[:, :, :2] = q[:, :, :2] * CHIP_RADIUS_CM + [stack.x, stack.y]
        pq = self.project(q.reshape(-1, 3)).reshape(-1, 4, 2)
        cv2.fillPoly(
            self.image,
            [np.round(p * ONE).astype(np.int32).reshape(-1, 1, 2) for p in pq],
            spot,
            cv2.LINE_AA,
            SHIFT,
        )
        inner = self.project(
            np.column_stack([unit * CHIP_RADIUS_CM * 0.62 + [stack.x, stack.y], np.full(n, zt)])
        )
        lighter = tuple(int(min(255, c * 1.25 + 20)) for c in body)
        cv2.polylines(
            self.image,
            [np.round(inner * ONE).astype(np.int32).reshape(-1, 1, 2)],
            True,
            lighter,
            1,
            cv2.LINE_AA,
            SHIFT,
        )
        _fill(self.ids, hull.astype(np.float64), oid, aa=False)

    def chip_shadow(self, stack: ChipStack) -> None:
        n = 20
        angles = np.linspace(0, 2 * math.pi, n, endpoint=False)
        h = stack.lift + stack.count * CHIP_THICKNESS_CM
        off = np.array([self.light_dx, self.light_dy]) * h * 0.8
        ring = np.column_stack([np.cos(angles), np.sin(angles)]) * CHIP_RADIUS_CM
        base = np.column_stack([ring + np.array([stack.x, stack.y]), np.zeros(n)])
        moved = np.column_stack([ring + np.array([stack.x + off[0], stack.y + off[1]]), np.zeros(n)])
        pts = cv2.convexHull(np.vstack([self.project(base), self.project(moved)]).astype(np.float32))
        self.shade(pts.reshape(-1, 2).astype(np.float64), 0.35, 2)

    # -- hands and clutter -----------------------------------------------------------
    def hand_polygons(self, hand: Hand, z: float) -> list[tuple[Array, str]]:
        d = np.array([hand.x - hand.bx, hand.y - hand.by])
        length = float(np.linalg.norm(d)) or 1.0
        d /= length
        nrm = np.array([-d[1], d[0]])
        tip = np.array([hand.x, hand.y])
        palm_c = tip - d * 7.0
        polys: list[tuple[Array, str]] = []
        wrist = palm_c - d * 4.0
        w = hand.width
        sleeve = np.array(
            [
                wrist + nrm * w * 0.55,
                wrist - nrm * w * 0.55,
                [hand.bx, hand.by] - nrm * w * 0.7,
                [hand.bx, hand.by] + nrm * w * 0.7,
            ]
        )
        polys.append((sleeve, "sleeve"))
        t = np.linspace(0, 2 * math.pi, 20, endpoint=False)
        palm = palm_c + np.outer(np.cos(t), d) * 4.5 + np.outer(np.sin(t), nrm) * w * 0.45
        polys.append((palm, "skin"))
        for i, off in enumerate((-0.33, -0.11, 0.11, 0.33)):
            base = palm_c + nrm * off * w + d * 2.5
            end = tip + nrm * off * w * 1.1 - d * (0.8 if i in (0, 3) else 0.0)
            fn = nrm * 0.75
            polys.append((np.array([base + fn, end + fn, end - fn, base - fn]), "skin"))
        thumb_base = palm_c + nrm * w * 0.4
        thumb_end = thumb_base + (d * 0.5 + nrm * 0.8) * 4.5
        polys.append(
            (
                np.array(
                    [
                        thumb_base + d * 0.9,
                        thumb_end + d * 0.8,
                        thumb_end - d * 0.8,
                        thumb_base - d * 0.9,
                    ]
                ),
                "skin",
            )
        )
        out = []
        for poly, kind in polys:
            pts3 = np.column_stack([poly, np.full(len(poly), z)])
            out.append((pts3, kind))
        return out

    def draw_hand(self, hand: Hand, oid: int) -> None:
        shift = np.array([self.light_dx, self.light_dy, 0.0]) * hand.height
        for pts3, _ in self.hand_polygons(hand, 0.0):
            self.shade(self.project(pts3 + shift), 0.35, 6)
        polygons = [(self.project(pts3), kind) for pts3, kind in self.hand_polygons(hand, hand.height)]
        for p, kind in polygons:  # outlines first: fingers read as separate shapes
            colour = hand.skin if kind == "skin" else hand.sleeve
            dark = tuple(int(c * 0.6) for c in colour)
            if np.all(np.isfinite(p)) and np.abs(p).max() < 1e5:
                poly = np.round(p * ONE).astype(np.int32).reshape(-1, 1, 2)
                cv2.polylines(self.image, [poly], True, dark, 3, cv2.LINE_AA, SHIFT)
        for p, kind in polygons:
            colour = hand.skin if kind == "skin" else hand.sleeve
            _fill(self.image, p, colour)
            _fill(self.ids, p, oid, aa=False)
        # a soft highlight along the middle of the sleeve and the back of the hand
        sleeve = polygons[0][0]
        mid = np.array([(sleeve[0] + sleeve[1]) / 2, (sleeve[2] + sleeve[3]) / 2])
        if np.all(np.isfinite(mid)) and np.abs(mid).max() < 1e5:
            width = max(1, int(np.linalg.norm(sleeve[0] - sleeve[1]) * 0.25))
            light = tuple(min(255, int(c * 1.15 + 10)) for c in hand.sleeve)
            line = np.round(mid * ONE).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(self.image, [line], False, light, width, cv2.LINE_AA, SHIFT)

    def draw_clutter(self, item: Clutter, oid: int) -> None:
        c, s = math.cos(item.angle), math.sin(item.angle)
        if item.kind in ("cup", "glass"):
            t = np.linspace(0, 2 * math.pi, 28, endpoint=False)
            height = item.size * (1.3 if item.kind == "glass" else 1.0)
            base = np.column_stack(
                [
                    item.x + np.cos(t) * item.size / 2,
                    item.y + np.sin(t) * item.size / 2,
                    np.zeros(28),
                ]
            )
            top = base.copy()
            top[:, 2] = height
            self.shade(
                self.project(base + np.array([self.light_dx * height, self.light_dy * height, 0])),
                0.3,
                5,
            )
            hull = cv2.convexHull(
                np.vstack([self.project(base), self.project(top)]).astype(np.float32)
            ).reshape(-1, 2)
            _fill(self.image, hull.astype(np.float64), tuple(int(v * 0.8) for v in item.colour))
            _fill(self.image, self.project(top), item.colour)
            inner = top.copy()
            inner[:, :2] = (inner[:, :2] - [item.x, item.y]) * 0.85 + [item.x, item.y]
            _fill(
                self.image,
                self.project(inner),
                (40, 50, 60) if item.kind == "cup" else (200, 210, 215),
            )
            _fill(self.ids, hull.astype(np.float64), oid, aa=False)
            return
        w, h = (item.size * 0.5, item.size) if item.kind == "phone" else (item.size * 0.7, item.size)
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
        pts = np.column_stack(
            [
                item.x + c * local[:, 0] - s * local[:, 1],
                item.y + s * local[:, 0] + c * local[:, 1],
                np.full(4, 0.8 if item.kind == "phone" else 0.02),
            ]
        )
        p = self.project(pts)
        self.shade(p + np.array([self.light_dx, self.light_dy]) * 2, 0.3, 3)
        _fill(self.image, p, item.colour)
        if item.kind == "phone":
            inner = (p - p.mean(axis=0)) * 0.88 + p.mean(axis=0)
            _fill(self.image, inner, (25, 25, 25))
        _fill(self.ids, p, oid, aa=False)


def render(scene: Scene, faces: DeckFaces, rng: np.random.Generator, *, effects: bool = True) -> Rendered:
    """Draw ``scene``; ``rng`` drives the photometric effects (noise, blur, glare)."""
    canvas = Canvas(scene)
    canvas.draw_surface(scene)
    for decal in scene.decals:
        canvas.draw_decal(decal)
    objects: list[Object] = []
    for item in scene.clutter:
        objects.append(item)
        canvas.draw_clutter(item, len(objects))
    drawables: list[CardItem | ChipStack] = [*scene.cards, *scene.chips]
    drawables.sort(key=lambda o: (o.layer, 0 if isinstance(o, CardItem) else 1))
    for stack in scene.chips:
        canvas.chip_shadow(stack)
    for drawable in drawables:
        objects.append(drawable)
        if isinstance(drawable, CardItem):
            canvas.draw_card(drawable, faces, len(objects))
        else:
            canvas.draw_chips(drawable, len(objects))
    for hand in scene.hands:
        objects.append(hand)
        canvas.draw_hand(hand, len(objects))
    cam = scene.camera
    if cam.k1 != 0.0:
        mx, my = cam.distortion_maps(canvas.pad)
        image = cv2.remap(canvas.image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        ids = cv2.remap(canvas.ids, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    else:
        image, ids = canvas.image, canvas.ids
    card_mask = np.zeros(len(objects) + 1, bool)
    for i, obj in enumerate(objects, start=1):
        card_mask[i] = isinstance(obj, CardItem)
    if effects:
        image = apply_effects(image, card_mask[ids], scene.light, rng)
    return Rendered(image, np.asarray(ids, dtype=np.uint16), objects)
