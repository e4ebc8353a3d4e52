"""Issue 32 defect 10: writes and symbolic links.

* ``openclaw mcp export --output link.json`` writes *through* the link: the file it points to is replaced
  atomically (a temporary sibling of the target, then a rename), the link stays a link, the backup is
  ``link.json.bak`` (the path the user named).
* The config store follows the reference: ``openclaw mcp set`` on an ``openclaw.json`` that is a symlink replaces
  the link with a regular file holding the merged config and leaves the old target as it was (observed with
  OpenClaw 2026.9.6; the differential below reruns that observation when the reference is installed). The lock,
  the ``.bak`` ring and the clobber guard keep working.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_interchange_cli import oc

OURS = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "openclaw")
REFERENCE_BIN = (
    Path(os.environ.get("OPENCLAW_REFERENCE_DIR", str(Path.home() / ".cache" / "openclaw-reference")))
    / "node_modules"
    / ".bin"
)


def make_state(root: Path, servers: dict[str, Any]) -> Path:
    (root / "home").mkdir(parents=True)
    (root / "openclaw.json").write_text(json.dumps({"mcp": {"servers": servers}}, indent=2) + "\n")
    return root


@pytest.mark.parametrize("fmt", ["claude", "codex"])
def test_export_writes_through_a_symlinked_output_and_keeps_the_link(tmp_path: Path, fmt: str) -> None:
    state = make_state(tmp_path / "s", {"local": {"command": "node"}})
    real = tmp_path / "dotfiles" / "client.conf"
    real.parent.mkdir()
    before = '[mcp_servers.keep]\ncommand = "k"\n' if fmt == "codex" else '{"mcpServers": {"keep": {"command": "k"}}}\n'
    real.write_text(before)
    real.chmod(0o640)
    link = tmp_path / "project" / "client.conf"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(real, link.parent))
    result = oc(state, "export", "--format", fmt, "--output", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and link.resolve() == real.resolve()
    text = real.read_text()
    assert "keep" in text and "local" in text
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    backup = Path(f"{link}.bak")
    assert backup.read_text() == before and not backup.is_symlink()
    assert sorted(p.name for p in real.parent.iterdir()) == ["client.conf"]  # no temporary file left behind
    assert f"Previous file saved as {backup}." in result.stdout


def test_export_through_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    state = make_state(tmp_path / "s", {"local": {"command": "node"}})
    real = tmp_path / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    link = tmp_path / "mcp.json"
    link.symlink_to(real)
    result = oc(state, "export", "--format", "claude", "--output", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    assert json.loads(real.read_text())["mcpServers"]["local"]["command"] == "node"


def test_export_to_a_symlink_loop_fails_with_one_line_and_writes_nothing(tmp_path: Path) -> None:
    state = make_state(tmp_path / "s", {"local": {"command": "node"}})
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.symlink_to(second)
    second.symlink_to(first)
    result = oc(state, "export", "--format", "claude", "--output", str(first))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"export: {first}: "), result.stderr
    assert first.is_symlink() and second.is_symlink()


def _symlinked_config(root: Path) -> tuple[Path, Path, str]:
    (root / "home").mkdir(parents=True)
    real = root / "real" / "target.json"
    real.parent.mkdir()
    before = json.dumps({"mcp": {"servers": {"a": {"command": "x"}}}}) + "\n"
    real.write_text(before)
    link = root / "openclaw.json"
    link.symlink_to(real)
    return link, real, before


def _set(binary: list[str], root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": f"{REFERENCE_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(root / "home"),
        "OPENCLAW_STATE_DIR": str(root),
        "OPENCLAW_CONFIG_PATH": str(root / "openclaw.json"),
        "LANG": "C.UTF-8",
    }
    return subprocess.run(
        [*binary, "mcp", *argv], env=env, cwd=root, capture_output=True, text=True, timeout=180, check=False
    )


def _layout(root: Path, link: Path, real: Path, before: str) -> dict[str, object]:
    saved = json.loads(link.read_text())["mcp"]["servers"]
    return {
        "link is a regular file": link.is_file() and not link.is_symlink(),
        "target untouched": real.read_text() == before,
        "servers": saved,
        "backup": Path(f"{link}.bak").read_text() == before,
        "mode": stat.S_IMODE(link.stat().st_mode),
        "lock left": Path(f"{link}.lock").exists(),
    }


def test_config_store_replaces_a_symlinked_config_like_the_reference(tmp_path: Path) -> None:
    link, real, before = _symlinked_config(tmp_path)
    result = _set([OURS], tmp_path, "set", "b", '{"command": "y"}')
    assert result.returncode == 0, result.stderr
    assert _layout(tmp_path, link, real, before) == {
        "link is a regular file": True,
        "target untouched": True,
        "servers": {"a": {"command": "x"}, "b": {"command": "y"}},
        "backup": True,
        "mode": 0o600,
        "lock left": False,
    }
    again = _set([OURS], tmp_path, "set", "c", '{"command": "z"}')
    assert again.returncode == 0, again.stderr
    assert Path(f"{link}.bak.1").read_text() == before  # the ring rotates as for any config
    assert set(json.loads(link.read_text())["mcp"]["servers"]) == {"a", "b", "c"}


@pytest.mark.skipif(not (REFERENCE_BIN / "openclaw").exists(), reason="reference OpenClaw not installed")
def test_config_store_symlink_behaviour_matches_the_reference(tmp_path: Path) -> None:
    layouts = []
    for impl, binary in (("ours", [OURS]), ("reference", [str(REFERENCE_BIN / "openclaw")])):
        root = tmp_path / impl
        link, real, before = _symlinked_config(root)
        result = _set(binary, root, "set", "b", '{"command": "y"}')
        assert result.returncode == 0, (impl, result.stderr)
        layouts.append(_layout(root, link, real, before))
        shutil.rmtree(root / "home", ignore_errors=True)
    assert layouts[0] == layouts[1]
