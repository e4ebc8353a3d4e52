"""Every Python block of the README and of the ``docs/`` pages it links for its examples (``PAGES``) runs as
written: each one as its own script (``python block.py``) from a temporary directory outside the repository,
with an isolated HOME and OpenClaw state and no ``PYTHONPATH`` to the checkout, so an example that needs the
repository's tests fails here. The examples that connect a server write that server themselves.

A block whose first line is ``# <module>.py`` is a module the next blocks of its page import (the plugin of
docs/plugin-tools.md): it is written to that file name in a directory on ``PYTHONPATH`` instead of being run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the README and the pages its long material moved to (other docs/ pages hold fragments, not whole programs)
PAGES = ["README.md", "docs/plugin-tools.md", "docs/interchange.md", "docs/runtime-library.md"]
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)
BLOCKS = [(page, block) for page in PAGES for block in FENCE.findall((ROOT / page).read_text(encoding="utf-8"))]
MODULE_LINE = re.compile(r"# (\w+\.py)\b")
TIMEOUT_S = 120
EXPECTED = [  # what each runnable block prints, in order of PAGES (fragments)
    ["memo__echo", "({'type': 'text', 'text': 'hi'},)"],  # README quick start
    ["would run: ls", "no rm -rf"],  # docs/plugin-tools.md
    ["--disallowedTools", "mcp__files__write_file", "'type': 'http'"],  # docs/interchange.md (projections)
    ["memo__echo", 'failed to start server "gone"', "({'type': 'text', 'text': 'hi'},)"],  # docs/runtime-library.md
    ["rm -rf is not allowed"],  # docs/runtime-library.md (hooks)
]


def test_the_readme_and_docs_have_python_examples() -> None:
    assert len(BLOCKS) >= 6
    assert any(page == "README.md" for page, _ in BLOCKS)


def test_every_python_example_runs_as_written_outside_the_repository(tmp_path: Path) -> None:
    modules = tmp_path / "modules"
    modules.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPENCLAW_") and key != "PYTHONPATH"}
    env.update(
        HOME=str(tmp_path),
        OPENCLAW_STATE_DIR=str(tmp_path / "state"),
        OPENCLAW_CONFIG_PATH=str(tmp_path / "state" / "openclaw.json"),
        PYTHONPATH=str(modules),
    )
    printed: list[str] = []
    for index, (page, block) in enumerate(BLOCKS, start=1):
        module = MODULE_LINE.match(block)
        if module:
            (modules / module.group(1)).write_text(block, encoding="utf-8")
            continue
        script = tmp_path / f"example_{index}.py"
        script.write_text(block, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, str(script)], cwd=work, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
        )
        assert done.returncode == 0, f"python block {index} of {page} failed:\n{done.stderr}"
        assert "Traceback" not in done.stderr, done.stderr
        printed.append(done.stdout)
    assert len(printed) == len(EXPECTED)
    for index, (out, fragments) in enumerate(zip(printed, EXPECTED, strict=True), start=1):
        missing = [fragment for fragment in fragments if fragment not in out]
        assert not missing, f"runnable block {index} printed {out!r}"


@pytest.mark.parametrize("block", [block for _, block in BLOCKS if not MODULE_LINE.match(block)])
def test_a_runnable_block_uses_no_top_level_await(block: str) -> None:
    compile(block, "README.md", "exec")  # a SyntaxError here is the top-level `await` / `async with` a user hits
