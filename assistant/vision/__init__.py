"""The camera side: frames in, a calibrated table and rectified zones out.

- :mod:`~assistant.vision.sources`: camera, video file or image folder behind one interface
- :mod:`~assistant.vision.layout`, :mod:`~assistant.vision.default_layouts`: the table layout
  file (versioned JSON, millimetres) and the defaults for 4 to 10 seats on an oval table
- :mod:`~assistant.vision.markers`, :mod:`~assistant.vision.marker_sheet`: ArUco markers,
  their detection and the printable sheet
- :mod:`~assistant.vision.calibration`, :mod:`~assistant.vision.lens`: the image-to-table
  mapping (homography plus radial lens distortion), saved with its layout
- :mod:`~assistant.vision.bump`: noticing that the camera moved
- :mod:`~assistant.vision.rectify`, :mod:`~assistant.vision.motion`,
  :mod:`~assistant.vision.zone_feed`: fixed-scale zone crops, motion gating
- :mod:`~assistant.vision.stacks`: where a chip stack stands, from its box
- :mod:`~assistant.vision.synthetic_view`: synthetic camera views for tests and benchmarks

Nothing here imports the rules engine, Qt or a model library; heavy imports stay out of
:mod:`~assistant.vision.cli` so the command line starts fast.
"""
