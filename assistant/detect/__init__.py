"""Card and chip detection: a YOLO detector (stage 1) and small readers (stage 2).

Stage 1 finds cards, their corner indices, face-down cards and chip stacks; stage 2 reads
rank and suit from each corner-index crop and counts the chips of a stack seen from the
side. :class:`assistant.detect.pipeline.CardDetector` joins both into per-image results.
Heavy libraries (onnxruntime, torch, ultralytics) are imported only where they are used.
"""

from assistant.detect.labels import DETECTOR_CLASSES, RANKS, SUITS

__all__ = ["DETECTOR_CLASSES", "RANKS", "SUITS"]
