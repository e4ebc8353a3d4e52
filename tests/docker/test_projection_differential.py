"""Differential: our projections against the reference's own functions (OpenClaw 2026.9.6), through the
specification's check scripts (spec runtime-projection §11 steps 1, 2 and 6; copies in
tests/fixtures/projection, identical to ``../shared/spec/check`` when that folder is present).

``proj.mjs`` (Codex mapping, approval, agent scoping, TOML, ``to_cli``) and ``projcli.mjs`` (the Claude /
Gemini / Codex CLI modes end to end) print labelled JSON lines; ``tests.fixtures.projection.driver`` prints
ours for the same inputs and every line must be equal (generated temporary paths normalised, the config hashes
left out: decision D-RP3). ``projoauth.mjs`` runs on a state database the reference CLI created and that holds
a token row; ours reads the *same* database.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import time
from pathlib import Path

import anyio
import pytest

from openclaw_mcp.adapters.collation import UcaCollator
from openclaw_mcp.adapters.filesystem.projection_files import FilesystemProjectionFiles
from openclaw_mcp.application.projection import (
    CLAUDE_MODE,
    GEMINI_MODE,
    CliProjectionRequest,
    build_codex_thread_patch,
    prepare_cli_projection,
)
from tests.docker.gateway_harness import Reference, isolated_env
from tests.fixtures.projection.driver import proj_lines, projcli_lines
from tests.unit.test_projection import stored_bearer_tokens

pytestmark = [pytest.mark.reference]

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "projection"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "spec" / "check"
TIMEOUT_S = 120
_TMP_DIR = re.compile(r"/tmp/openclaw-(?:cli|gemini)-mcp-[^/\"]+/")


def _run_node(reference: Reference, script: str, state: Path, extra: dict[str, str] | None = None) -> list[str]:
    env = isolated_env(
        state, path=reference.path_env, extra={"OPENCLAW_REFERENCE_DIR": str(reference.root), **(extra or {})}
    )
    done = subprocess.run(
        [str(reference.node), str(HERE / script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
        cwd=str(HERE),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _normalised(lines: list[str]) -> list[str]:
    return [_TMP_DIR.sub("<tmp>/", line) for line in lines if " hash " not in line]


@pytest.mark.parametrize("script", ["proj.mjs", "projcli.mjs", "projoauth.mjs", "existing.json"])
def test_the_check_scripts_are_the_specifications_copies(script: str) -> None:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is not present")
    assert (HERE / script).read_bytes() == (SHARED / script).read_bytes()


def test_codex_mapping_approval_scoping_and_toml_equal_the_reference(reference: Reference, tmp_path: Path) -> None:
    theirs = _run_node(reference, "proj.mjs", tmp_path / "state")
    ours = anyio.run(proj_lines)
    assert ours == theirs


def test_claude_gemini_and_codex_cli_modes_equal_the_reference(reference: Reference, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    theirs = _run_node(reference, "projcli.mjs", tmp_path / "state", {"MY_TOKEN": "tok", "WS": str(workspace)})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MY_TOKEN", "tok")
        ours = anyio.run(projcli_lines, str(workspace))
    assert _normalised(ours) == _normalised(theirs)


def test_oauth_bearer_projection_reads_the_reference_state_database(reference: Reference, tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = isolated_env(state, path=reference.path_env)
    server = {"url": "https://tokd.example.com/mcp", "transport": "streamable-http", "auth": "oauth"}
    created = subprocess.run(
        reference.command("mcp", "set", "tokd", json.dumps(server)),
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert created.returncode == 0, created.stderr
    db = state / "state" / "openclaw.sqlite"
    row = {
        "clientInformation": {"client_id": "c1"},
        "tokens": {"access_token": "at-1", "token_type": "Bearer", "refresh_token": "rt"},
        "tokenExpiresAt": int(time.time() * 1000) + 3_600_000,
    }
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute(
            "INSERT OR REPLACE INTO mcp_oauth_stores (store_key, format_version, store_json, updated_at) "
            "VALUES (?, 1, ?, ?)",
            ("tokd-26db092555f41444", json.dumps(row), int(time.time() * 1000)),
        )
    finally:
        conn.close()
    theirs = _run_node(reference, "projoauth.mjs", state, {"WS": str(tmp_path)})
    expected: dict[str, tuple[object, object]] = {}
    for line in theirs:
        mode, rest = line.split(" ", 1)
        if rest.startswith("env "):
            env_text, file_text = rest[len("env ") :].split(" file ", 1)
            expected[mode] = (json.loads(env_text), json.loads(file_text))
        else:
            expected[mode] = (None, json.loads(rest))
    config = {
        "plugins": {"enabled": False},
        "mcp": {"servers": {"tokd": {**server, "headers": {"authorization": "old", "X-A": "b"}}}},
    }
    additional = {
        "mcpServers": {
            "openclaw": {
                "type": "http",
                "url": "http://127.0.0.1:5555/mcp",
                "alwaysLoad": True,
                "headers": {
                    "Authorization": "Bearer ${OPENCLAW_MCP_TOKEN}",
                    "x-openclaw-cli-capture-key": "${OPENCLAW_MCP_CLI_CAPTURE_KEY}",
                },
            }
        }
    }

    async def ours() -> dict[str, tuple[object, object]]:
        got: dict[str, tuple[object, object]] = {}
        async with stored_bearer_tokens(db) as tokens:
            for mode in (CLAUDE_MODE, GEMINI_MODE):
                request = CliProjectionRequest(
                    mode=mode,
                    args=["-p"],
                    workspace_dir=str(tmp_path),
                    config=config,
                    env={"OPENCLAW_MCP_TOKEN": "grant", "OPENCLAW_MCP_CLI_CAPTURE_KEY": ""},
                    additional_config=additional,
                )
                projection = await prepare_cli_projection(
                    request, files=FilesystemProjectionFiles(), collator=UcaCollator(), tokens=tokens
                )
                async with projection.held():
                    assert projection.config_path is not None
                    document = json.loads(Path(projection.config_path).read_text(encoding="utf-8"))
                    got[mode] = (projection.env, document)
            got["thread"] = (
                None,
                await build_codex_thread_patch(config, collator=UcaCollator(), agent_id="main", tokens=tokens),
            )
        return got

    got = anyio.run(ours)
    assert list(got) == list(expected)
    for mode, (their_env, their_file) in expected.items():
        our_env, our_file = got[mode]
        assert json.dumps(our_file) == json.dumps(their_file), mode
        if isinstance(their_env, dict) and isinstance(our_env, dict):
            assert _normalised([json.dumps(our_env)]) == _normalised([json.dumps(their_env)]), mode
