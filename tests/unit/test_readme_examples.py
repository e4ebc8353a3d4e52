"""Every Python block of the README runs as written: each one as its own script (``python block.py``) from the
repository root, with an isolated HOME and OpenClaw state, against the stdio fixture server the examples name.

A block whose first line is ``# <module>.py`` is a module the next blocks import (the README's plugin): it is
written to that file name in a directory on ``PYTHONPATH`` instead of being run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S | re.M)
MODULE_LINE = re.compile(r"# (\w+\.py)\b")
TIMEOUT_S = 120
EXPECTED = [  # what each runnable block prints, in order (fragments)
    ["memo__echo", 'failed to start server "gone"', "({'type': 'text', 'text': '{\"text\": \"hi\"}'},)"],
    ["rm -rf is not allowed"],
    ["would run: ls", "no rm -rf"],
    ["--disallowedTools", "mcp__files__write_file", "'type': 'http'"],
]


def test_the_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 5


def test_every_python_example_of_the_readme_runs_as_written(tmp_path: Path) -> None:
    modules = tmp_path / "modules"
    modules.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPENCLAW_") and key != "PYTHONPATH"}
    env.update(
        HOME=str(tmp_path),
        OPENCLAW_STATE_DIR=str(tmp_path / "state"),
        OPENCLAW_CONFIG_PATH=str(tmp_path / "state" / "openclaw.json"),
        PYTHONPATH=str(modules),
    )
    printed: list[str] = []
    for index, block in enumerate(BLOCKS, start=1):
        module = MODULE_LINE.match(block)
        if module:
            (modules / module.group(1)).write_text(block, encoding="utf-8")
            continue
        script = tmp_path / f"readme_block_{index}.py"
        script.write_text(block, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
        )
        assert done.returncode == 0, f"README python block {index} failed:\n{done.stderr}"
        assert "Traceback" not in done.stderr, done.stderr
        printed.append(done.stdout)
    assert len(printed) == len(EXPECTED)
    for index, (out, fragments) in enumerate(zip(printed, EXPECTED, strict=True), start=1):
        missing = [fragment for fragment in fragments if fragment not in out]
        assert not missing, f"runnable block {index} printed {out!r}"


@pytest.mark.parametrize("block", [block for block in BLOCKS if not MODULE_LINE.match(block)])
def test_a_runnable_block_uses_no_top_level_await(block: str) -> None:
    compile(block, "README.md", "exec")  # a SyntaxError here is the top-level `await` / `async with` a user hits
