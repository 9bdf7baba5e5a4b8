"""The dealer's dashboard (PySide6): the table, whose decision it is, advice, showdown, camera.

Qt-free parts (tested without a window): :mod:`.controller` (the dealer's keys and
actions, all through the Session), :mod:`.presenter` (what is shown, from the state) and
:mod:`.history_text` (hand history). Widgets: :mod:`.main_window`, :mod:`.table_widgets`,
:mod:`.camera_view`, :mod:`.dialogs`. Start-up: :mod:`.app`, :mod:`.qt_env` (OpenCV's Qt
variables), :mod:`.cli` (``dealer-assistant dashboard``).
"""
