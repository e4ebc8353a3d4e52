"""The generated completion scripts in real shells: bash's completion function driven through ``COMP_WORDS``,
zsh and fish loading them, fish's ``complete -C``, PowerShell when ``pwsh`` is installed.

An ``openclaw`` shim first on PATH runs this checkout (``completion …`` through ``completion_main``, the rest
through ``python -m openclaw_mcp``), over a temp config with two servers. A missing bash, zsh or fish skips
with a reason, except under CI (env ``CI`` set), where it fails: ``scripts/install_shells.sh`` installs them.
``pwsh`` is not in Debian: without it the PowerShell test always skips.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from openclaw_mcp.entrypoints.cli.completion import completion_script

TIMEOUT = 60
SERVERS = ["alpha", "beta-two"]

SHIM = """#!{python}
import os
import sys

if sys.argv[1:2] == ["completion"]:
    from openclaw_mcp.entrypoints.cli.completion import completion_main
    from openclaw_mcp.entrypoints.cli.console import Console

    console = Console()
    code = completion_main(sys.argv[2:], os.environ, console)
    console.flush()
    sys.exit(code)
from openclaw_mcp.entrypoints.cli.main import main

sys.exit(main(sys.argv[1:]))
"""


def _require(shell: str) -> str:
    path = shutil.which(shell)
    if path is not None:
        return path
    if shell != "pwsh" and os.environ.get("CI"):
        pytest.fail(f"{shell} is not installed (run scripts/install_shells.sh)")
    pytest.skip(f"{shell} is not installed" + ("" if shell != "pwsh" else " (PowerShell is not in Debian)"))


@pytest.fixture
def sandbox(tmp_path: Path) -> dict[str, str]:
    """The environment of a shell whose ``openclaw`` is this checkout, configured with :data:`SERVERS`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "openclaw"
    shim.write_text(SHIM.format(python=sys.executable))
    shim.chmod(0o755)
    config = tmp_path / "openclaw.json"
    config.write_text(
        json.dumps({"mcp": {"servers": {"beta-two": {"url": "https://b.example/mcp"}, "alpha": {"command": "uvx"}}}})
    )
    home = tmp_path / "home"
    home.mkdir()
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "OPENCLAW_CONFIG_PATH": str(config),
        "OPENCLAW_STATE_DIR": str(tmp_path / "state"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
    }


def _script(tmp_path: Path, shell: str) -> Path:
    path = tmp_path / f"openclaw.{shell}"
    path.write_text(completion_script(shell))  # type: ignore[arg-type]
    return path


def _run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)


# ------------------------------------------------------------------------------------------------- bash

BASH_DRIVER = textwrap.dedent(
    """\
    source "$1" || exit 3
    complete -p openclaw >/dev/null || exit 4
    shift
    # The words as bash splits them (COMP_WORDBREAKS splits at '='); the last one is being completed.
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    current="${COMP_WORDS[COMP_CWORD]}"
    [[ $current == "=" ]] && current=""
    _openclaw_completion openclaw "$current" "${COMP_WORDS[COMP_CWORD-1]}"
    printf '%s\\n' "${COMPREPLY[@]}"
    """
)


def _bash_complete(tmp_path: Path, env: dict[str, str], *words: str) -> list[str]:
    bash = _require("bash")
    driver = tmp_path / "drive.bash"
    driver.write_text(BASH_DRIVER)
    result = _run([bash, "--norc", "--noprofile", str(driver), str(_script(tmp_path, "bash")), *words], env)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return sorted(line for line in result.stdout.splitlines() if line)


def test_bash_completes_mcp_subcommands_by_prefix(tmp_path: Path, sandbox: dict[str, str]) -> None:
    assert _bash_complete(tmp_path, sandbox, "openclaw", "mcp", "s") == ["serve", "set", "show", "status"]
    assert _bash_complete(tmp_path, sandbox, "openclaw", "") == ["completion", "config", "doctor", "help", "mcp"]


@pytest.mark.parametrize("command", ["show", "set", "unset", "probe", "login", "logout"])
def test_bash_completes_server_names_from_the_config(tmp_path: Path, sandbox: dict[str, str], command: str) -> None:
    assert _bash_complete(tmp_path, sandbox, "openclaw", "mcp", command, "") == SERVERS
    assert _bash_complete(tmp_path, sandbox, "openclaw", "--log-level", "info", "mcp", command, "b") == ["beta-two"]


def test_bash_completes_option_values_and_skips_them(tmp_path: Path, sandbox: dict[str, str]) -> None:
    shells = ["bash", "fish", "powershell", "zsh"]
    assert _bash_complete(tmp_path, sandbox, "openclaw", "completion", "--shell", "") == shells
    assert _bash_complete(tmp_path, sandbox, "openclaw", "completion", "--shell", "=", "") == shells
    assert _bash_complete(tmp_path, sandbox, "openclaw", "completion", "--shell", "=", "f") == ["fish"]
    assert _bash_complete(tmp_path, sandbox, "openclaw", "mcp", "add", "--transport", "") == ["sse", "streamable-http"]
    assert _bash_complete(tmp_path, sandbox, "openclaw", "mcp", "show", "--j") == ["--json"]
    assert _bash_complete(tmp_path, sandbox, "openclaw", "mcp", "add", "x", "--command", "") == []


def test_bash_lists_nothing_for_a_broken_config(tmp_path: Path, sandbox: dict[str, str]) -> None:
    Path(sandbox["OPENCLAW_CONFIG_PATH"]).write_text("{broken")
    assert _bash_complete(tmp_path, sandbox, "openclaw", "mcp", "show", "") == []


def test_bash_interactive_session_loads_the_installed_profile(tmp_path: Path, sandbox: dict[str, str]) -> None:
    bash = _require("bash")
    installed = _run(["openclaw", "completion", "--write-state", "--install", "--shell", "bash"], sandbox)
    assert installed.returncode == 0, installed.stderr
    result = _run([bash, "-i", "-c", "source ~/.bash_profile; complete -p openclaw"], sandbox)
    assert "complete -F _openclaw_completion openclaw" in result.stdout, result.stderr


# -------------------------------------------------------------------------------------------------- zsh


def test_zsh_loads_the_script_and_registers_it(tmp_path: Path, sandbox: dict[str, str]) -> None:
    zsh = _require("zsh")
    script = _script(tmp_path, "zsh")
    command = f"autoload -U compinit; compinit -u -D; source {script}; print -r -- $_comps[openclaw]"
    result = _run([zsh, "-f", "-c", command], sandbox)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.strip() == "_openclaw"


def test_zsh_sourced_before_compinit_registers_at_the_next_prompt(tmp_path: Path, sandbox: dict[str, str]) -> None:
    zsh = _require("zsh")
    script = _script(tmp_path, "zsh")
    command = (
        f"source {script}; autoload -U compinit; compinit -u -D; "
        "for f in $precmd_functions; do $f; done; print -r -- $_comps[openclaw]"
    )
    result = _run([zsh, "-f", "-c", command], sandbox)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.strip() == "_openclaw"


# ------------------------------------------------------------------------------------------------- fish


def _fish_complete(tmp_path: Path, env: dict[str, str], line: str) -> list[str]:
    fish = _require("fish")
    script = _script(tmp_path, "fish")
    result = _run([fish, "--no-config", "-c", f"source {script}; and complete -C {_fish_quote(line)}"], env)
    assert (result.returncode, result.stderr) == (0, "")
    return sorted(row.split("\t")[0] for row in result.stdout.splitlines() if row)


def _fish_quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def test_fish_loads_the_script_and_completes_mcp_subcommands(tmp_path: Path, sandbox: dict[str, str]) -> None:
    assert _fish_complete(tmp_path, sandbox, "openclaw mcp s") == ["serve", "set", "show", "status"]


def test_fish_completes_server_names_and_option_values(tmp_path: Path, sandbox: dict[str, str]) -> None:
    assert _fish_complete(tmp_path, sandbox, "openclaw mcp show ") == SERVERS
    assert _fish_complete(tmp_path, sandbox, "openclaw mcp add --command x ") == []
    assert _fish_complete(tmp_path, sandbox, "openclaw completion --shell ") == ["bash", "fish", "powershell", "zsh"]


# ------------------------------------------------------------------------------------------- PowerShell


def test_powershell_loads_the_script_and_completes(tmp_path: Path, sandbox: dict[str, str]) -> None:
    pwsh = _require("pwsh")
    script = _script(tmp_path, "powershell")
    command = (
        f". '{script}'; "
        "(TabExpansion2 -inputScript 'openclaw mcp s' -cursorColumn 15).CompletionMatches | "
        "ForEach-Object { $_.CompletionText }"
    )
    result = _run([pwsh, "-NoProfile", "-NonInteractive", "-Command", command], sandbox)
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.split()) == ["serve", "set", "show", "status"]
