"""The rules engine is pure Python: importing it pulls in no camera, UI, ML or serial code."""

import subprocess
import sys

FORBIDDEN = ("PySide6", "cv2", "torch", "ultralytics", "serial", "numpy", "onnxruntime")


def test_engine_imports_no_qt_opencv_torch_or_serial() -> None:
    code = (
        "import sys\n"
        "import assistant.engine, assistant.engine.autoplay, assistant.engine.history\n"
        "import assistant.scoring, assistant.store, assistant.recording\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_engine_source_names_no_forbidden_module() -> None:
    from pathlib import Path

    import assistant.engine

    root = Path(assistant.engine.__file__).parent
    for path in root.glob("*.py"):
        text = path.read_text()
        for name in FORBIDDEN:
            assert f"import {name}" not in text and f"from {name}" not in text, (path, name)
