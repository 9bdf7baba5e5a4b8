"""The stage-2 readers at run time (ONNX Runtime over batches of crops)."""

from __future__ import annotations

import numpy as np

from assistant.detect.pipeline import INDEX_READER, MODELS_DIR
from assistant.detect.readers import JITTER_OFFSETS, OnnxReader


def test_a_jittered_read_is_the_mean_of_the_reads_one_pixel_off_each_way() -> None:
    reader = OnnxReader(MODELS_DIR / INDEX_READER)
    image = (np.random.default_rng(0).random((60, 60, 3)) * 255).astype(np.uint8)
    boxes = [(10.0, 10.0, 20.0, 30.0), (30.0, 20.0, 39.0, 41.0)]
    jittered = reader.read_turned(image, boxes, 2, jitter=1.0)
    shifted = [
        reader.read_turned(image, [(b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy) for b in boxes], 2)
        for dx, dy in JITTER_OFFSETS
    ]
    for head, probs in jittered.items():
        assert probs.shape == shifted[0][head].shape
        np.testing.assert_allclose(probs, np.mean([s[head] for s in shifted], axis=0), atol=1e-6)
    plain = reader.read(image, boxes)
    assert not np.allclose(plain["rank"], jittered["rank"])  # the shifts do look elsewhere
