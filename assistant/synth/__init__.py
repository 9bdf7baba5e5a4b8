"""Synthetic table renderer: training scenes and recorded-session video fixtures.

The renderer draws a Seven Twenty-Seven table as a camera sees it, from the real SVG
deck designs that Debian ships (``kdegames-card-data-kf5``, ``gnome-cards-data``), and
writes exact labels from the scene geometry: a YOLO dataset for the detector, rectified
corner-index crops for the rank/suit classifier, per-object ground truth, and video
fixtures of whole hands driven through the rules engine.
"""
