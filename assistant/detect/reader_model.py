"""The stage-2 network: a small CNN over a crop with one softmax head per target.

One architecture serves two readers: the corner-index reader (heads ``rank`` 13 and
``suit`` 4, and ``index`` 2 when trained with crops of no index too) and the chip
reader (head ``count``: 0 for unknown, else 1..MAX_CHIPS).
It also reads a card's upright left strip (index and pip column, see
:func:`assistant.detect.crops.strip_crop`) with the heads of the index reader.
The input is a float32 (N, 3, H, W) batch of BGR pixels in 0..255, as OpenCV reads them;
the network normalises and returns probabilities, so the ONNX file needs no pre-step.
"""

from __future__ import annotations

import torch
from torch import nn


def _block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
    )


class CropReader(nn.Module):
    """Three conv blocks (16, 32, 64 channels unless told), a 128-unit layer, named softmax heads."""

    def __init__(
        self,
        heads: dict[str, int],
        size: int = 32,
        width: int | None = None,
        channels: tuple[int, int, int] = (16, 32, 64),
    ) -> None:
        super().__init__()
        width = width or size
        if size % 8 or width % 8:
            raise ValueError("the crop's height and width must be multiples of 8")
        self.head_names = tuple(heads)
        self.size = size
        self.width = width
        a, b, c = channels
        self.channels = (a, b, c)
        self.features = nn.Sequential(_block(3, a), _block(a, b), _block(b, c))
        self.neck = nn.Sequential(
            nn.Flatten(),
            nn.Linear(c * (size // 8) * (width // 8), 128),
            nn.ReLU(inplace=True),
            nn.Dropout(0.2),
        )
        self.heads = nn.ModuleList(nn.Linear(128, n) for n in heads.values())

    def logits(self, x: torch.Tensor) -> list[torch.Tensor]:
        z = self.neck(self.features(x / 127.5 - 1.0))
        return [head(z) for head in self.heads]

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(torch.softmax(t, dim=1) for t in self.logits(x))


def reader_checkpoint(model: CropReader) -> dict[str, object]:
    """What a reader's ``best.pt`` holds: its weights and what rebuilds its network."""
    return {
        "model": model.state_dict(),
        "heads": {name: head.out_features for name, head in zip(model.head_names, model.heads, strict=True)},
        "size": model.size,
        "width": model.width,
        "channels": model.channels,
    }


INDEX_HEADS = {"rank": 13, "suit": 4}
#: The index reader with a third head: is this crop a corner index at all (1) or not (0)?
CHECKED_INDEX_HEADS = {**INDEX_HEADS, "index": 2}
#: The back reader: does a card box's strip show a card lying face up (1) or its back (0)?
BACK_HEADS = {"face": 2}


def chip_heads(max_chips: int) -> dict[str, int]:
    return {"count": max_chips + 1}
