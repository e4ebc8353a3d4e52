"""Config faults of issue 14 through the real CLI: unknown root keys, an unwritable config file, a directory
where the config should be, control characters in server names."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from openclaw_mcp.adapters.filesystem import FileConfigStore
from openclaw_mcp.application.errors import ConfigStoreError
from openclaw_mcp.entrypoints.cli.printable import printable, printable_lines

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "openclaw_mcp.entrypoints.cli.main", "mcp"]
INVALID_HEAD = "OpenClaw config is invalid\n"


def oc(state: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    (state / "home").mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
    }
    return subprocess.run([*CLI, *argv], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- unknown root keys (item 4) --------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [("list",), ("set", "a", '{"command":"x"}'), ("unset", "a"), ("status",)])
def test_an_unknown_root_key_rejects_the_config_and_writes_nothing(tmp_path: Path, argv: tuple[str, ...]) -> None:
    config = tmp_path / "openclaw.json"
    config.write_text('{"big":"x","mcp":{"servers":{"a":{"command":"y"}}}}', encoding="utf-8")
    before = digest(config)
    done = oc(tmp_path, *argv)
    assert done.returncode == 1
    assert done.stderr.startswith(INVALID_HEAD)
    assert '  - <root>: Unrecognized key: "big"\n' in done.stderr
    assert "Traceback" not in done.stderr
    assert digest(config) == before


# --- a directory in place of the config (item 6) ---------------------------------------------------------


@pytest.mark.parametrize("argv", [("list",), ("set", "a", '{"command":"x"}'), ("status",), ("doctor",)])
def test_a_directory_config_path_is_an_invalid_config(tmp_path: Path, argv: tuple[str, ...]) -> None:
    (tmp_path / "openclaw.json").mkdir()
    done = oc(tmp_path, *argv)
    assert done.returncode == 1, done
    assert done.stderr.startswith(INVALID_HEAD), done.stderr
    assert "  - <root>: read failed: Error: EISDIR: illegal operation on a directory, read\n" in done.stderr
    assert "The CLI command failed" not in done.stderr


def test_a_directory_config_path_in_json_mode(tmp_path: Path) -> None:
    (tmp_path / "openclaw.json").mkdir()
    done = oc(tmp_path, "list", "--json")
    assert done.returncode == 1
    envelope = json.loads(done.stdout)
    assert envelope["issues"] == [
        {"path": "<root>", "message": "read failed: Error: EISDIR: illegal operation on a directory, read"}
    ]


# --- a config file the user may not write (item 5) ------------------------------------------------------


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A world-writable directory outside the (root-only) pytest temp tree, removed afterwards."""
    directory = Path(tempfile.mkdtemp(prefix="oc-unwritable-"))
    directory.chmod(0o777)
    try:
        yield directory
    finally:
        for child in directory.iterdir():
            child.unlink()
        directory.rmdir()


def _write_as_user(config: Path, uid: int | None) -> tuple[int, str]:
    """``set``'s store write of ``config``, as ``uid`` (a forked child that drops root) or as ourselves."""

    async def write() -> None:
        store = FileConfigStore(str(config))
        async with store.edit() as edit:
            await edit.replace('{"mcp":{"servers":{"a":{"command":"x"}}}}\n')

    if uid is None:
        try:
            anyio.run(write)
        except ConfigStoreError as exc:
            return 1, str(exc)
        return 0, ""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery, only the store
        code = 0
        try:
            os.close(read_end)
            os.setgid(uid)
            os.setuid(uid)
            try:
                anyio.run(write)
            except ConfigStoreError as exc:
                os.write(write_end, str(exc).encode())
                code = 1
        except BaseException:
            code = 2
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        message = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), message


def test_an_unwritable_config_is_refused_and_kept(shared_dir: Path) -> None:
    config = shared_dir / "openclaw.json"
    config.write_text('{"mcp":{"servers":{}}}\n', encoding="utf-8")
    config.chmod(0o444)
    before, owner = digest(config), config.stat().st_uid
    uid = 65534 if os.geteuid() == 0 else None  # root may write anything: act as "nobody", as the user
    code, message = _write_as_user(config, uid)
    assert code == 1, message
    assert message.startswith(f"OpenClaw cannot write the config file {config}: it is not writable for this user.")
    assert "\n" not in message
    assert digest(config) == before and config.stat().st_uid == owner
    assert sorted(path.name for path in shared_dir.iterdir()) == ["openclaw.json"]  # no temp, backup or lock left


# --- control characters in names (item 7) ---------------------------------------------------------------


def test_printable_escapes_control_characters() -> None:
    assert printable("a\nb\r\t\x1b[31m\x07\x9b\x7f") == "a\\nb\\r\\t\\x1b[31m\\x07\\x9b\\x7f"
    assert printable_lines("one\ntwo\x1b]0;x\x07\tend") == "one\ntwo\\x1b]0;x\\x07\tend"
    assert printable("plain ünïcødé") == "plain ünïcødé"


def test_a_name_with_a_newline_and_escape_codes_is_escaped_in_human_output_only(tmp_path: Path) -> None:
    name = "evil\n\x1b[31mred"
    done = oc(tmp_path, "set", name, '{"command":"x"}')
    assert done.returncode == 0
    assert done.stdout == f'Saved MCP server "evil\\n\\x1b[31mred" to {tmp_path}/openclaw.json.\n'
    listed = oc(tmp_path, "list")
    assert "- evil\\n\\x1b[31mred\n" in listed.stdout and "\x1b" not in listed.stdout
    status = oc(tmp_path, "status")
    assert "- evil\\n\\x1b[31mred: stdio" in status.stdout and "\x1b" not in status.stdout
    assert list(json.loads(oc(tmp_path, "list", "--json").stdout)) == [name]  # JSON unchanged
    removed = oc(tmp_path, "unset", name)
    assert removed.stdout.startswith('Removed MCP server "evil\\n\\x1b[31mred" from ')
