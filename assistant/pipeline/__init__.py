"""From what the camera sees to game events.

``observations`` holds the per-frame reading of the table, ``stability`` turns noisy
readings into changes that persisted, and ``referee`` turns stable changes into engine
events or, when the rules forbid what was seen, into questions for the dealer. Nothing
here imports a model or draws: the detector adapter and the overlays live elsewhere.
"""
