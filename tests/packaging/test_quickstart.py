"""The README's quick start is a test: a user following only its first screen in a clean directory gets a working
``openclaw``, a probed server, Claude Code and Codex wired to it, the settings page, and a library example that runs
outside the repository.

The blocks are found by their fence's info string in README.md:

* ``bash quickstart-install``: the three ways to install. The ``uv tool install`` line runs as written with the
  clone ``./openclaw-mcp`` being this checkout; the ``pipx`` and
  plain-venv lines are checked for presence here and run from the same wheel by tests/packaging/test_wheel.py.
* ``bash quickstart``: run as written, in order, as one bash script (``set -euo pipefail``) in an empty project
  directory with ``HOME`` in the temporary directory and ``PATH`` = a clean venv holding the wheel (installed with
  its dependencies pinned by requirements/lock.txt, through uv's cache) + the real Claude Code and Codex CLIs of
  scripts/install_agent_clients.sh. A line ``openclaw mcp ui`` is started on its own (with ``BROWSER=true``):
  its URL must serve the page, then it is stopped with SIGINT and must exit 0.
* ``python quickstart``: run with the venv's python from the temporary directory.

Claude Code lists the exported project server as "Pending approval" (the README says so); the test then approves
it the way the README describes (``enabledMcpjsonServers`` in ``~/.claude/settings.json``) and requires
``✔ Connected``. Missing agent CLIs skip those checks locally and fail under ``CI``, like tests/clients.
Needs the package index (dependencies through uv's cache); skipped without it, except under ``CI``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.clients.conftest import CLIENTS, INSTALL_HINT, clients_dir
from tests.docker.gateway_harness import find_reference, running_under_ci
from tests.packaging._build import build_wheel

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements" / "lock.txt"
README = (ROOT / "README.md").read_text(encoding="utf-8")
TIMEOUT_S = 300
QUIET = {"DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}


def blocks(info: str) -> list[str]:
    return re.findall(rf"^```{re.escape(info)}\n(.*?)^```", README, re.S | re.M)


def commands(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


def _needs_index(done: subprocess.CompletedProcess[str]) -> None:
    text = done.stderr + done.stdout
    if (
        done.returncode != 0
        and not running_under_ci()
        and ("Could not find a version" in text or "No solution" in text)
    ):
        pytest.skip(f"the package index is not reachable: {done.stderr.strip().splitlines()[-1:]}")
    assert done.returncode == 0, text


@dataclass(frozen=True, slots=True)
class Sandbox:
    root: Path
    wheel: Path
    venv: Path
    home: Path
    project: Path
    clients: Path | None
    """The agent CLIs' bin directory, or None when they are not installed (skipped locally)."""

    def env(self, **extra: str) -> dict[str, str]:
        path = [str(self.venv / "bin")]
        if self.clients is not None:
            path.append(str(self.clients))
            reference = find_reference()
            node = str(reference.node.parent) if reference is not None else shutil.which("node")
            if node:
                path.append(str(Path(node).parent) if Path(node).is_file() else node)
        path += ["/usr/bin", "/bin"]
        env = {"PATH": os.pathsep.join(path), "HOME": str(self.home), "LANG": "C.UTF-8", "TERM": "dumb"}
        env.update(QUIET, BROWSER="true", UV_SYSTEM_CERTS="1")
        for key in ("UV_CACHE_DIR", "XDG_CACHE_HOME"):
            if os.environ.get(key):
                env[key] = os.environ[key]
        env.setdefault("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv"))  # warm cache: the real user's
        env.update(extra)
        return env


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    root = tmp_path_factory.mktemp("quickstart")
    assert not root.resolve().is_relative_to(ROOT)
    wheel = build_wheel(root, TIMEOUT_S)
    venv = root / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    uv = Path(sys.executable).parent / "uv"
    assert uv.exists(), "uv is not in the virtualenv (it is in requirements/lock.txt: run scripts/bootstrap.sh)"
    bin_dir = clients_dir() / "node_modules" / ".bin"
    missing = [name for name in CLIENTS if not (bin_dir / name).exists()]
    if missing and running_under_ci():
        pytest.fail(f"CI=true but agent clients not installed ({', '.join(missing)}): {INSTALL_HINT}", pytrace=False)
    box = Sandbox(root, wheel, venv, root / "home", root / "project", None if missing else bin_dir)
    box.home.mkdir()
    box.project.mkdir()
    installed = _run(
        [str(uv), "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), "-c", str(LOCK), str(wheel)],
        env=box.env(),
    )
    _needs_index(installed)
    return box


def test_the_quick_start_is_the_first_thing_in_the_readme() -> None:
    first = README.index("## ")
    assert README[first:].startswith("## Quick start")
    assert README.index("```bash quickstart-install") < README.index("```bash quickstart\n")
    assert README.index("```python quickstart") < README.index("## Contributing")
    assert README.index("## Contributing") < README.index("bash scripts/demo_serve.sh") < README.index("bash .ci/run")


def test_the_three_install_ways_and_uv_tool_install_as_written(sandbox: Sandbox) -> None:
    (install,) = blocks("bash quickstart-install")
    lines = commands(install)
    assert [line.split()[:2] for line in lines] == [["uv", "tool"], ["pipx", "install"], ["python3", "-m"]]
    assert "pip install ./openclaw-mcp" in lines[2]
    argv = shlex.split(lines[0])
    clone = sandbox.root / "openclaw-mcp"  # the reader's clone: this checkout
    if not clone.exists():
        clone.symlink_to(ROOT, target_is_directory=True)
    home = sandbox.root / "tool-home"
    home.mkdir()
    env = sandbox.env(HOME=str(home), UV_CONSTRAINT=str(LOCK), UV_TOOL_DIR=str(home / "tools"))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # `uv` as the user has it
    _needs_index(_run(argv, env=env, cwd=sandbox.root))
    version = _run([str(home / ".local" / "bin" / "openclaw"), "--version"], env=env, cwd=sandbox.root)
    assert version.stdout == "OpenClaw 2026.9.6 (openclaw-mcp 0.1.0)\n", version.stderr


def test_the_quick_start_commands_run_as_written(sandbox: Sandbox) -> None:
    main, *rest = blocks("bash quickstart")
    ui_lines = [line for block in rest for line in commands(block)]
    assert [line.split("#")[0].split() for line in ui_lines] == [["openclaw", "mcp", "ui"]]
    stubs = "" if sandbox.clients else "claude() { echo 'claude: skipped'; }; codex() { echo 'codex: skipped'; }\n"
    script = f"set -euo pipefail\n{stubs}{main}"
    done = _run(["bash", "-c", script], env=sandbox.env(), cwd=sandbox.project)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert f'Saved MCP server "openclaw-tools" to {sandbox.home}/.openclaw/openclaw.json.' in out
    assert "- openclaw-tools: 1 tools" in out
    assert f"Exported 1 MCP server to {sandbox.project}/.mcp.json (Claude Code): openclaw-tools." in out
    assert f"Exported 1 MCP server to {sandbox.home}/.codex/config.toml (Codex): openclaw-tools." in out
    codex_line = next(line for line in commands(main) if "--format codex" in line)
    again = _run(["bash", "-c", codex_line], env=sandbox.env(), cwd=sandbox.project)  # idempotent on a second run
    assert again.returncode == 0, again.stderr
    toml = (sandbox.home / ".codex" / "config.toml").read_text(encoding="utf-8")
    assert toml.count("[mcp_servers.openclaw-tools]") == 1, toml
    if sandbox.clients is None:
        pytest.skip(f"agent clients not installed; install them with: {INSTALL_HINT}")
    assert "openclaw-tools: openclaw-tools  - ⏸ Pending approval" in done.stdout, out  # what the README says
    assert any(
        line.split()[:2] == ["openclaw-tools", "openclaw-tools"] and "enabled" in line for line in out.splitlines()
    )
    # approve it as the README describes, then Claude Code connects to the server
    approval = re.search(r"`(\{\"enabledMcpjsonServers\": \[\"openclaw-tools\"\]\})`", README)
    assert approval, "the README shows how to approve the project server"
    settings = sandbox.home / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(approval.group(1), encoding="utf-8")
    export = re.search(r"^export (\w+)=(\S+)", main, re.M)
    assert export
    listed = _run(
        [str(sandbox.clients / "claude"), "mcp", "list"],
        env=sandbox.env(**{export.group(1): export.group(2)}),
        cwd=sandbox.project,
    )
    assert "openclaw-tools: openclaw-tools  - ✔ Connected" in listed.stdout, listed.stdout + listed.stderr


def test_the_quick_start_opens_the_settings_page(sandbox: Sandbox) -> None:
    (ui,) = [line for block in blocks("bash quickstart")[1:] for line in commands(block)]
    argv = shlex.split(ui, comments=True)
    with subprocess.Popen(
        argv, env=sandbox.env(), cwd=sandbox.project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as page:
        try:
            assert page.stdout is not None
            first = page.stdout.readline()
            found = re.match(r"MCP settings: (http://127\.0\.0\.1:\d+/settings/mcp)#token=\S+$", first)
            assert found, first
            with urllib.request.urlopen(found.group(1), timeout=10) as answer:  # loopback
                assert answer.status == 200
                assert "<html" in answer.read().decode("utf-8", "replace").lower()
        finally:
            page.send_signal(signal.SIGINT)
            assert page.wait(timeout=15) == 0


def test_the_quick_start_library_example_runs_outside_the_repository(sandbox: Sandbox) -> None:
    (example,) = blocks("python quickstart")
    script = sandbox.root / "quickstart_example.py"
    script.write_text(example, encoding="utf-8")
    done = _run([str(sandbox.venv / "bin" / "python"), str(script)], env=sandbox.env(), cwd=sandbox.root)
    assert done.returncode == 0, done.stderr
    assert "'memo__echo'" in done.stdout
    assert "({'type': 'text', 'text': 'hi'},)" in done.stdout
