"""The published artefact: the wheel claims only ``openclaw_mcp`` (no ``domain``, ``entrypoints``, … beside other
projects' packages of those names), carries no tests, and installs into a fresh virtualenv — next to the real PyPI
packages ``entrypoints`` and ``domain`` — and through ``uv tool install`` into a fresh HOME, each giving a working
``openclaw``. Needs the package index (dependencies are downloaded); skipped without it, except under ``CI``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.packaging._build import build_wheel

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements" / "lock.txt"
TIMEOUT_S = 600


def _run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    found = build_wheel(out, TIMEOUT_S)
    return found


def _needs_index(done: subprocess.CompletedProcess[str]) -> None:
    if done.returncode != 0 and not os.environ.get("CI") and "Could not find a version" in done.stderr + done.stdout:
        pytest.skip(f"the package index is not reachable: {done.stderr.strip().splitlines()[-1:]}")
    assert done.returncode == 0, done.stderr


def test_the_wheel_claims_only_its_namespace_and_carries_no_tests(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        dist_info = next(name.split("/")[0] for name in names if name.endswith(".dist-info/RECORD"))
        record = archive.read(f"{dist_info}/RECORD").decode()
        entry_points = archive.read(f"{dist_info}/entry_points.txt").decode()
    tops = {row.split(",")[0].split("/")[0] for row in record.splitlines() if row}
    assert tops == {"openclaw_mcp", dist_info}
    assert not [name for name in names if "/tests/" in name or name.startswith("tests/")]
    assert "openclaw_mcp/entrypoints/ui/static/settings.html" in names
    assert "openclaw = openclaw_mcp.entrypoints.cli.main:main" in entry_points
    assert "openclaw-tools = openclaw_mcp.entrypoints.openclaw_tools.cli:main" in entry_points
    assert "openclaw-plugin-tools = openclaw_mcp.entrypoints.plugin_tools.cli:main" in entry_points
    # the generated reference texts ship with the package as data (the tools' descriptions and schemas)
    assert "openclaw_mcp/entrypoints/openclaw_tools/data/reference_texts.json" in names


def test_a_fresh_venv_runs_it_beside_the_pypi_entrypoints_and_domain(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _needs_index(_run([*pip, "-c", str(LOCK), str(wheel)]))
    _needs_index(_run([*pip, "entrypoints", "domain"]))
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    listed = _run([str(venv / "bin" / "openclaw"), "mcp", "list", "--json"], env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == {}
    probe = "import entrypoints, domain, openclaw_mcp; print(entrypoints.__file__); print(openclaw_mcp.__file__)"
    where = _run([str(venv / "bin" / "python"), "-c", probe], env=env, cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    theirs, ours = where.stdout.splitlines()
    assert theirs.endswith("site-packages/entrypoints.py")  # the PyPI package, not a layer of ours
    assert ours.endswith("site-packages/openclaw_mcp/__init__.py")
    module = _run([str(venv / "bin" / "python"), "-m", "openclaw_mcp", "--version"], env=env, cwd=tmp_path)
    assert module.stdout == "OpenClaw 2026.9.6 (openclaw-mcp 0.1.0)\n"


def test_uv_tool_install_gives_a_working_openclaw_in_a_fresh_home(wheel: Path, tmp_path: Path) -> None:
    uv = Path(sys.executable).parent / "uv"
    if not uv.exists():
        pytest.fail("uv is not installed in the virtualenv (it is in requirements/lock.txt: run scripts/bootstrap.sh)")
    home = tmp_path / "home"
    home.mkdir()
    # UV_SYSTEM_CERTS: the platform's trust store, like pip (a TLS-inspecting proxy's CA is trusted there)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "UV_SYSTEM_CERTS": "1"}
    installed = _run([str(uv), "tool", "install", "--python", sys.executable, str(wheel)], env=env, cwd=tmp_path)
    _needs_index(installed)
    openclaw = home / ".local" / "bin" / "openclaw"
    listed = _run([str(openclaw), "mcp", "list"], env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith(f"No OpenClaw-managed MCP servers configured in {home}/.openclaw/openclaw.json.")


def test_pipx_install_gives_a_working_openclaw_in_a_fresh_home(wheel: Path, tmp_path: Path) -> None:
    tools = tmp_path / "pipx-venv"  # pipx itself, in a venv of its own (it is not a dependency of the project)
    assert _run([sys.executable, "-m", "venv", str(tools)]).returncode == 0
    _needs_index(_run([str(tools / "bin" / "python"), "-m", "pip", "install", "--quiet", "pipx"]))
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PIPX_HOME": str(home / ".local" / "pipx"),
        "PIPX_BIN_DIR": str(home / ".local" / "bin"),
    }
    installed = _run(
        [str(tools / "bin" / "pipx"), "install", "--python", sys.executable, str(wheel)], env=env, cwd=tmp_path
    )
    _needs_index(installed)
    listed = _run([str(home / ".local" / "bin" / "openclaw"), "mcp", "list"], env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith(f"No OpenClaw-managed MCP servers configured in {home}/.openclaw/openclaw.json.")
