"""Every Python example of the README runs (in order, in one namespace, top-level ``await`` allowed), from the
repository root with an isolated HOME and OpenClaw state."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import anyio
import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S | re.M)


def test_the_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 4


@pytest.mark.asyncio
async def test_every_python_example_of_the_readme_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(tmp_path / "state" / "openclaw.json"))
    namespace: dict[str, object] = {"__name__": "readme"}
    for index, block in enumerate(BLOCKS):
        code = compile(block, f"README.md python block {index + 1}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        with anyio.fail_after(60):
            result = eval(code, namespace)  # the README's own examples
            if inspect.iscoroutine(result):
                await result
    printed = capsys.readouterr().out
    assert "memo__echo" in printed
    assert "rm -rf is not allowed" in printed
    assert "would run: ls" in printed and "no rm -rf" in printed
