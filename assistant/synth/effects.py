"""Photometric effects of a real camera: light, glare, blur, noise and compression.

Parameters come from the scene's ``light`` dict (sampled with the layout, so a video
keeps one lighting for all its frames); only sensor noise is drawn per call.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[Any]  # uint8 pixels (cv2 returns loosely typed arrays)


def sample_light(rng: np.random.Generator, *, strong: bool = True) -> dict[str, float]:
    """Random lighting and camera imperfections."""
    angle = rng.uniform(0, 2 * math.pi)
    return {
        "shadow_dx": float(math.cos(angle) * rng.uniform(0.2, 0.9)),
        "shadow_dy": float(math.sin(angle) * rng.uniform(0.2, 0.9)),
        "gradient": float(rng.uniform(0.0, 0.45 if strong else 0.2)),
        "gradient_angle": float(rng.uniform(0, 2 * math.pi)),
        "vignette": float(rng.uniform(0.0, 0.4)),
        "exposure": float(rng.uniform(0.75, 1.2)),
        "temperature": float(rng.uniform(-1.0, 1.0)),
        "glare": float(rng.uniform(0.0, 0.8) if rng.random() < 0.5 else 0.0),
        "glare_x": float(rng.uniform(0.1, 0.9)),
        "glare_y": float(rng.uniform(0.1, 0.9)),
        "glare_size": float(rng.uniform(0.05, 0.2)),
        "defocus": float(rng.uniform(0.0, 1.2) if rng.random() < 0.4 else 0.0),
        "motion": float(rng.uniform(0.0, 5.0) if strong and rng.random() < 0.2 else 0.0),
        "motion_angle": float(rng.uniform(0, 180)),
        "noise": float(rng.uniform(1.0, 9.0)),
        "jpeg": float(rng.integers(45, 96)),
    }


def apply_effects(
    image: Image,
    card_pixels: npt.NDArray[np.bool_],
    light: dict[str, float],
    rng: np.random.Generator,
) -> Image:
    h, w = image.shape[:2]
    # light varies smoothly: work it out on a coarse grid and scale it up
    sh, sw = max(2, h // 8), max(2, w // 8)
    ys = np.linspace(-1, 1, sh, dtype=np.float32)[:, None]
    xs = np.linspace(-1, 1, sw, dtype=np.float32)[None, :]
    gain = np.full((sh, sw), light.get("exposure", 1.0), np.float32)
    g = light.get("gradient", 0.0)
    if g:
        a = light.get("gradient_angle", 0.0)
        gain *= 1.0 + g * 0.5 * (xs * math.cos(a) + ys * math.sin(a))
    v = light.get("vignette", 0.0)
    if v:
        gain *= 1.0 - v * 0.5 * (xs * xs + ys * ys)
    t = light.get("temperature", 0.0)
    tint = np.array([1.0 - 0.12 * t, 1.0, 1.0 + 0.12 * t], np.float32)  # BGR: warm light is red
    gain3 = cv2.resize(gain[:, :, None] * tint, (w, h), interpolation=cv2.INTER_LINEAR)
    img: Image = cv2.multiply(image, gain3, dtype=cv2.CV_32F)
    glare = light.get("glare", 0.0)
    if glare:
        gx, gy = light.get("glare_x", 0.5) * 2 - 1, light.get("glare_y", 0.5) * 2 - 1
        size = light.get("glare_size", 0.1)
        spot = np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * size * size)) * glare * 255
        spot_full = cv2.resize(spot.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        img += (spot_full * card_pixels)[:, :, None]
    img = np.asarray(np.clip(img, 0, 255), dtype=np.uint8)
    sigma = light.get("defocus", 0.0)
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    length = round(light.get("motion", 0.0))
    if length >= 2:
        kernel: Image = np.zeros((length * 2 + 1, length * 2 + 1), np.float32)
        kernel[length, :] = 1.0
        rot = cv2.getRotationMatrix2D((length, length), light.get("motion_angle", 0.0), 1.0)
        kernel = np.asarray(cv2.warpAffine(kernel, rot, kernel.shape[::-1]), dtype=np.float32)
        kernel = kernel / max(float(kernel.sum()), 1e-6)
        img = cv2.filter2D(img, -1, kernel)
    noise = light.get("noise", 0.0)
    if noise > 0:
        grain = np.empty((h, w), np.int16)
        cv2.setRNGSeed(int(rng.integers(2**31)))
        cv2.randn(grain, np.array([0.0]), np.array([noise]))
        img = cv2.add(img, cv2.merge([grain, grain, grain]), dtype=cv2.CV_8U)
    quality = int(light.get("jpeg", 0))
    if quality:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), dtype=np.uint8)
    return img
