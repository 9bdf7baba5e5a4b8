"""Stage-2 readers at run time: ONNX Runtime over batches of square crops."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from assistant.detect.crops import Box, batch_crops, strip_crop

INDEX_CROP_SCALE = 1.15  # the crop the reader saw in training (see reader_data)


class OnnxReader:
    """A reader network exported by :func:`assistant.detect.train_reader.export_reader`."""

    def __init__(self, path: Path, threads: int = 0) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        inp = self.session.get_inputs()[0]
        self.input = inp.name
        self.size = int(inp.shape[2])
        self.width = int(inp.shape[3])
        self.heads = tuple(o.name for o in self.session.get_outputs())

    def read(self, image: npt.NDArray[np.uint8], boxes: Sequence[Box]) -> dict[str, npt.NDArray[np.float32]]:
        """Probabilities per head, (N, classes), for the crops of ``boxes``."""
        return self._run(batch_crops(image, boxes, self.size, INDEX_CROP_SCALE))

    def read_strips(
        self, image: npt.NDArray[np.uint8], boxes: Sequence[Box]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Rank and suit from the upright strips of cards whose top-left indices are ``boxes``."""
        if not boxes:
            return self._run(np.zeros((0, self.size, self.width, 3), np.uint8))
        return self._run(np.stack([strip_crop(image, b) for b in boxes]))

    def read_turned(
        self, image: npt.NDArray[np.uint8], boxes: Sequence[Box], turns: int
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Like :meth:`read`, each crop first turned ``turns`` quarter turns (``np.rot90``)."""
        crops = batch_crops(image, boxes, self.size, INDEX_CROP_SCALE)
        return self._run(np.ascontiguousarray(np.rot90(crops, turns, axes=(1, 2))))

    def read_any_turn(
        self, image: npt.NDArray[np.uint8], boxes: Sequence[Box]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Like :meth:`read`, for a reader trained on upright crops (within 45 degrees).

        Each crop is read in its four quarter turns; the turn whose reading is surest
        (product of the heads' top probabilities) is kept. Upside down, a printed index
        has its pip above the rank, which the reader never saw upright, so 6 and 9 part.
        """
        crops = batch_crops(image, boxes, self.size, INDEX_CROP_SCALE)
        n = len(crops)
        if n == 0:
            return self._run(crops)
        turns = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(4)])
        probs = self._run(turns)
        sure = np.ones((4, n), np.float32)
        for p in probs.values():
            sure *= p.max(1).reshape(4, n)
        best = sure.argmax(0)
        pick = best * n + np.arange(n)
        return {h: p[pick] for h, p in probs.items()}

    def read_views(self, views: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[np.float32]]:
        """Probabilities per head for crops already cut to the reader's size, (N, H, W, 3)."""
        return self._run(views)

    def _run(self, crops: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[np.float32]]:
        if len(crops) == 0:
            return {h: np.zeros((0, 0), np.float32) for h in self.heads}
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32)
        outputs = self.session.run(None, {self.input: x})
        return {h: np.asarray(o, np.float32) for h, o in zip(self.heads, outputs, strict=True)}
