"""README's two newcomer commands stay true: CI runs the second one verbatim."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    head = text.split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", head, re.S)]


def test_readme_opens_with_exactly_two_commands() -> None:
    commands = readme_commands()
    assert len(commands) == 2
    assert all("\n" not in command for command in commands)


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert readme_commands()[1] in ci
