"""Projections of ``mcp.servers`` into Codex, Claude Code and the Gemini CLI: the fourteen acceptance tests of
spec runtime-projection §10, with the spec's fixtures (§3.3, §5.3) and the reference's observed outputs."""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.adapters.collation import UcaCollator
from openclaw_mcp.adapters.filesystem.projection_files import FilesystemProjectionFiles
from openclaw_mcp.adapters.http.oauth import HttpOAuthProtocol
from openclaw_mcp.adapters.memory.mcp_connector import InMemoryMcpConnector
from openclaw_mcp.adapters.memory.projection_files import InMemoryBearerTokens
from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore
from openclaw_mcp.adapters.sqlite.oauth_store import SqliteOAuthCredentialStore
from openclaw_mcp.application.oauth import McpOAuth
from openclaw_mcp.application.ports.leases import MCP_OAUTH_LEASE
from openclaw_mcp.application.projection import (
    CLAUDE_MODE,
    CODEX_MODE,
    GEMINI_MODE,
    CliProjection,
    CliProjectionRequest,
    McpOAuthBearerTokens,
    build_codex_thread_patch,
    native_policy_of,
    prepare_cli_projection,
)
from openclaw_mcp.application.runtime import SessionRuntime
from openclaw_mcp.domain.codex import codex_approval_mode
from openclaw_mcp.domain.names import operator_store_key
from openclaw_mcp.domain.projection.codex import (
    CodexProjectionError,
    codex_agent_allowed,
    codex_fingerprint,
    codex_tool_overrides_for_agent,
    mcp_tool_grants,
    normalize_codex,
)
from openclaw_mcp.domain.projection.codex_cli import build_codex_servers
from openclaw_mcp.domain.projection.inline_toml import toml_inline
from openclaw_mcp.domain.projection.oauth_bearer import oauth_token_env_var
from tests.fixtures.mcp_servers.contract_server import build_server
from tests.fixtures.projection.driver import CLI_CONFIG, SERVERS
from tests.unit.test_runtime_fakes import FakeClock, fake_services, session

COLLATOR = UcaCollator()
asyncio = pytest.mark.asyncio
EXISTING = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "projection" / "existing.json"


def sort(names: Any) -> list[str]:
    return COLLATOR.sort(list(names))


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


CODEX_SERVERS = SERVERS  # the §3.3 servers (``check/proj.mjs``)

CLI_ARGS = ["-p", "--mcp-config", "existing.json", "--strict-mcp-config", "--disallowedTools", "Bash"]
BETA_WARNING = (
    'bundle MCP skipped unavailable OAuth server Beta: MCP server "Beta" requires OAuth authorization. '
    "Run openclaw mcp login Beta."
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    shutil.copy(EXISTING, ws / "existing.json")
    return ws


async def project(request: CliProjectionRequest, tokens: McpOAuthBearerTokens | None = None) -> CliProjection:
    return await prepare_cli_projection(request, files=FilesystemProjectionFiles(), collator=COLLATOR, tokens=tokens)


def cli_request(mode: str, workspace: Path, **extra: Any) -> CliProjectionRequest:
    fields: dict[str, Any] = {
        "mode": mode,
        "args": CLI_ARGS,
        "resume_args": ["--resume", "x"],
        "workspace_dir": str(workspace),
        "config": CLI_CONFIG,
        "env": {"OPENCLAW_MCP_FOO": "bar", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": ""},
        "process_env": {"MY_TOKEN": "tok"},
        "tool_overrides": {"mcpToolsDeny": {"zeta": ["b.x", "a"]}},
    }
    fields.update(extra)
    return CliProjectionRequest(**fields)


# --- 1–5: the Codex mapping ----------------------------------------------------------------------------


def test_1_normalize_codex_gives_the_observed_entries_in_key_order() -> None:
    grants = ["zz", "aa"]
    got = {name: compact(normalize_codex(name, CODEX_SERVERS[name], grants, sort=sort)) for name in CODEX_SERVERS}
    assert got["zeta"] == (
        '{"command":"node","cwd":"/w","env":{"A":"1"},"startup_timeout_sec":1.5,"tool_timeout_sec":2.5,'
        '"supports_parallel_tool_calls":true,"enabled_tools":["read","list"],"disabled_tools":["del"],'
        '"default_tools_approval_mode":"prompt"}'
    )
    assert got["alpha"] == (
        '{"url":"https://x.example/mcp","default_tools_approval_mode":"approve","bearer_token_env_var":"MY_TOKEN",'
        '"http_headers":{"X-Static":"v","X-Mixed":"pre-${X}"},"env_http_headers":{"X-Api-Key":"API_KEY"}}'
    )
    assert got["openclaw"] == '{"url":"http://127.0.0.1:18789/mcp","default_tools_approval_mode":"approve"}'
    assert got["Beta"] == (
        '{"url":"https://b/mcp","tools":{"aa":{"approval_mode":"approve"},"zz":{"approval_mode":"approve"}}}'
    )


@pytest.mark.parametrize(
    ("tool_filter", "text"),
    [
        (
            {"include": ["read_*"]},
            'Cannot project mcp.servers.g.toolFilter.include pattern "read_*" into Codex enabled_tools: '
            "Codex MCP projection only supports exact tool names.",
        ),
        (
            {"exclude": ["*"]},
            'Cannot project mcp.servers.g.toolFilter.exclude pattern "*" into Codex disabled_tools: '
            "Codex MCP projection only supports exact tool names.",
        ),
    ],
)
def test_2_wildcard_tool_filters_cannot_be_projected(tool_filter: dict[str, Any], text: str) -> None:
    with pytest.raises(CodexProjectionError) as caught:
        normalize_codex("g", {"command": "x", "toolFilter": tool_filter})
    assert str(caught.value) == text


def test_3_lists_maps_and_timers_follow_the_codex_rules() -> None:
    assert "args" not in normalize_codex("s", {"command": "c", "args": ["s.js", 3]})
    assert normalize_codex("s", {"command": "c", "env": {"A": "1", "N": 5}})["env"] == {"A": "1"}
    assert "tool_timeout_sec" not in normalize_codex("s", {"command": "c", "requestTimeoutMs": 0})
    assert normalize_codex("s", {"command": "c", "connectionTimeoutMs": 0.4})["startup_timeout_sec"] == 0.001
    assert compact(normalize_codex("s", {"command": "c", "requestTimeoutMs": 9000})) == (
        '{"command":"c","tool_timeout_sec":9}'
    )
    assert normalize_codex("s", {"command": "c", "requestTimeoutMs": 1e306})["tool_timeout_sec"] == 2_147_000


def test_4_built_servers_are_in_collation_order_without_requester_scoped_ones() -> None:
    assert list(build_codex_servers(CODEX_SERVERS, sort=sort)) == ["alpha", "Beta", "openclaw", "zeta"]


def test_5_approval_modes_and_when_grants_are_emitted() -> None:
    loopback = [
        "http://localhost:1/mcp",
        "https://127.0.0.1:99/mcp?x=1",
        "http://127.0.0.1/mcp",
        "http://127.0.0.1:5/mcp/",
    ]
    assert [codex_approval_mode("openclaw", {"url": url}) for url in loopback] == ["approve", "approve", None, None]
    assert codex_approval_mode("x", {"codex": {"defaultToolsApprovalMode": "APPROVE"}}) is None
    for mode, granted in [(None, True), ("auto", True), ("prompt", False), ("approve", False)]:
        server: dict[str, Any] = {"command": "c"}
        if mode is not None:
            server["codex"] = {"defaultToolsApprovalMode": mode}
        assert ("tools" in normalize_codex("s", server, ["t"])) is granted, mode


# --- 6–7: agent scoping and the thread patch -----------------------------------------------------------

SCOPED = {
    "a": {"command": "x", "codex": {"agents": ["Main", "ops"]}},
    "b": {"command": "y"},
    "c": {"command": "z", "codex": {"agents": []}},
    "d": {"command": "w", "codex": {"agents": ["bad id!"]}},
    "e": {"command": "v", "codex": {}},
}


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        ("main", {"b": False, "c": False, "d": False}),
        ("ops", {"b": False, "c": False, "d": False}),
        ("other", {"b": False, "a": False, "c": False, "d": False}),
        (None, {"b": False, "a": False, "c": False, "d": False}),
    ],
)
def test_6_codex_agents_narrow_the_tool_overrides(agent: str | None, expected: dict[str, bool]) -> None:
    overrides = codex_tool_overrides_for_agent(SCOPED, agent, {"mcpServers": {"b": False}})
    assert compact(overrides) == compact({"mcpServers": expected})
    assert codex_agent_allowed(SCOPED["a"], " MAIN ") is True


@asyncio
async def test_7_the_thread_patch_keeps_enabled_shared_servers_with_session_denials() -> None:
    unavailable: list[tuple[str, str]] = []
    config = {"mcp": {"servers": {**CODEX_SERVERS, "off": {"command": "o", "enabled": False}}}}
    with anyio.fail_after(10):
        patch = await build_codex_thread_patch(
            config,
            collator=COLLATOR,
            agent_id="main",
            tool_overrides={"mcpToolsDeny": {"zeta": ["x"]}},
            tokens=InMemoryBearerTokens(),
            on_server_unavailable=lambda name, message: unavailable.append((name, message)),
        )
    assert patch is not None
    assert list(patch["mcp_servers"]) == ["alpha", "openclaw", "zeta"]
    assert patch["mcp_servers"]["zeta"]["disabled_tools"] == ["del", "x"]
    assert [name for name, _ in unavailable] == ["Beta"]
    assert compact(patch["mcp_servers"]["openclaw"]) == (
        '{"url":"http://127.0.0.1:18789/mcp","default_tools_approval_mode":"approve"}'
    )


@asyncio
async def test_a_remote_app_server_gets_no_oauth_server_and_an_empty_selection_no_patch() -> None:
    seen: list[tuple[str, str]] = []
    config = {"mcp": {"servers": {"tokd": {"url": "https://t/mcp", "auth": "oauth"}}}}
    with anyio.fail_after(10):
        patch = await build_codex_thread_patch(
            config,
            collator=COLLATOR,
            agent_id="main",
            tokens=InMemoryBearerTokens({"tokd": "at"}),
            allow_literal_oauth=False,
            on_server_unavailable=lambda name, message: seen.append((name, message)),
        )
    assert patch is None
    assert seen == [("tokd", "MCP OAuth bearer projection is only supported for local app-server connections.")]


def test_grants_come_from_the_agents_exec_approvals_entry_and_only_when_auto() -> None:
    approvals = {
        "agents": {
            "main": {
                "mcpTools": [
                    {"server": "Beta", "tool": "zz", "source": "allow-always", "addedAt": 1},
                    {"server": "Beta", "tool": "aa", "source": "allow-always", "addedAt": 2},
                    {"server": " ", "tool": "x"},
                    "bad",
                ]
            }
        }
    }
    grants = mcp_tool_grants(approvals, "main")
    assert grants == {"Beta": ["zz", "aa"]}
    assert mcp_tool_grants(approvals, "*") == {} and mcp_tool_grants(approvals, "ops") == {}
    servers = {"Beta": CODEX_SERVERS["Beta"], "zeta": CODEX_SERVERS["zeta"]}
    built = build_codex_servers(servers, sort=sort, grants={**grants, "zeta": ["t"]})
    assert list(built["Beta"]["tools"]) == ["aa", "zz"]
    assert "tools" not in built["zeta"]  # its mode is prompt


def test_the_fingerprint_ignores_key_order_and_changes_with_content() -> None:
    one = {"b": {"url": "u", "http_headers": {"Y": "1", "X": "2"}}, "a": {"command": "c"}}
    two = {"a": {"command": "c"}, "b": {"http_headers": {"X": "2", "Y": "1"}, "url": "u"}}
    assert codex_fingerprint(one, COLLATOR.key) == codex_fingerprint(two, COLLATOR.key)
    assert len(codex_fingerprint(one, COLLATOR.key)) == 64
    assert codex_fingerprint(one, COLLATOR.key) != codex_fingerprint({"a": {"command": "d"}}, COLLATOR.key)


# --- 8: TOML -------------------------------------------------------------------------------------------


def test_8_toml_inline_tables_render_like_the_reference() -> None:
    servers = build_codex_servers(
        {"s": {"command": "node", "args": ["a b", 'q"x'], "env": {"K": "v"}}, "my.server": {"url": "https://u"}},
        sort=sort,
    )
    assert "mcp_servers=" + toml_inline(servers) == (
        'mcp_servers={ "my.server" = { url = "https://u" }, s = { command = "node", args = ["a b", "q\\"x"], '
        'env = { K = "v" } } }'
    )
    assert toml_inline("a\nb") == '"a\nb"'
    assert toml_inline({"n": 1.5, "i": 9.0, "b": False}) == "{ n = 1.5, i = 9, b = false }"


# --- 9–12: the CLI backends ----------------------------------------------------------------------------


@asyncio
async def test_9_claude_gets_a_strict_config_file_and_merged_disallowed_tools(workspace: Path) -> None:
    files = FilesystemProjectionFiles()
    with anyio.fail_after(10):
        projection = await prepare_cli_projection(cli_request(CLAUDE_MODE, workspace), files=files, collator=COLLATOR)
        path = projection.config_path
        assert path is not None
        tail = ["--disallowedTools", "Bash,mcp__zeta__a,mcp__zeta__b_x"]
        assert projection.args == ["-p", "--strict-mcp-config", "--mcp-config", path, *tail]
        assert projection.resume_args == [
            "--resume",
            "x",
            "--strict-mcp-config",
            "--mcp-config",
            path,
            "--disallowedTools",
            "mcp__zeta__a,mcp__zeta__b_x",
        ]
        assert projection.warnings == [BETA_WARNING]
        assert Path(path).parent.name.startswith("openclaw-cli-mcp-")
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        text = Path(path).read_text()
        await projection.cleanup()
    assert not Path(path).exists() and not Path(path).parent.exists()
    assert text.endswith("}\n") and text.startswith('{\n  "mcpServers": {\n    "pre"')
    assert compact(json.loads(text)) == (
        '{"mcpServers":{"pre":{"command":"pre-cmd"},"zeta":{"command":"node","env":{"OLD":"1","A":"1","N":5},'
        '"args":["s.js"],"cwd":"/w","connectionTimeoutMs":1500,"codex":{"defaultToolsApprovalMode":"prompt"},'
        '"enabled":true,"type":"stdio"},"alpha":{"url":"https://x.example/mcp","headers":{"Authorization":'
        '"Bearer ${MY_TOKEN}","X-Num":5},"requestTimeoutMs":9000,"type":"http"},"sse1":{"url":"https://s.example/sse"},'
        '"tmpl":{"command":"t","env":{"K":"bar","J":"${OTHER}"}}}}'
    )


@asyncio
async def test_10_claude_without_servers_is_isolated_and_disabled_mode_only_denies_web_search(tmp_path: Path) -> None:
    files = FilesystemProjectionFiles()
    with anyio.fail_after(10):
        empty = CliProjectionRequest(mode=CLAUDE_MODE, args=["-p"], workspace_dir=str(tmp_path))
        async with (await prepare_cli_projection(empty, files=files, collator=COLLATOR)).held() as projection:
            assert projection.config_path is not None
            assert projection.args == ["-p", "--strict-mcp-config", "--mcp-config", projection.config_path]
            assert Path(projection.config_path).read_text() == '{\n  "mcpServers": {}\n}\n'
        disabled = CliProjectionRequest(
            mode=CLAUDE_MODE,
            args=["-p"],
            workspace_dir=str(tmp_path),
            enabled=False,
            tool_overrides={"webSearch": False},
        )
        projection = await prepare_cli_projection(disabled, files=files, collator=COLLATOR)
    assert projection.args == ["-p", "--disallowedTools", "WebSearch"]
    assert projection.config_path is None


@asyncio
async def test_11_gemini_gets_system_settings_and_its_argv_is_untouched(workspace: Path) -> None:
    files = FilesystemProjectionFiles()
    with anyio.fail_after(10):
        request = cli_request(GEMINI_MODE, workspace)
        async with (await prepare_cli_projection(request, files=files, collator=COLLATOR)).held() as projection:
            assert projection.args == CLI_ARGS
            assert projection.resume_args == ["--resume", "x"]
            path = projection.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"]
            assert path == projection.config_path and Path(path).parent.name.startswith("openclaw-gemini-mcp-")
            settings = json.loads(Path(path).read_text())
            assert projection.warnings == [BETA_WARNING]
        assert not Path(path).exists()
        assert compact(settings) == (
            '{"mcp":{"allowed":["zeta","alpha","sse1","tmpl"]},"mcpServers":{"zeta":{"command":"node","cwd":"/w",'
            '"type":"stdio","args":["s.js"],"env":{"A":"1"},"includeTools":["read"],"excludeTools":["a","b.x","del"]},'
            '"alpha":{"url":"https://x.example/mcp","type":"http","headers":{"Authorization":"Bearer tok"}},'
            '"sse1":{"url":"https://s.example/sse"},"tmpl":{"command":"t","env":{"K":"${OPENCLAW_MCP_FOO}",'
            '"J":"${OTHER}"}}}}'
        )
        disjoint = {
            "mcp": {"servers": {"z": {"command": "c", "includeTools": ["x"], "toolFilter": {"include": ["y"]}}}}
        }
        request = cli_request(GEMINI_MODE, workspace, config=disjoint, tool_overrides=None)
        async with (await prepare_cli_projection(request, files=files, collator=COLLATOR)).held() as projection:
            assert projection.config_path is not None
            assert json.loads(Path(projection.config_path).read_text()) == {"mcp": {"allowed": []}, "mcpServers": {}}


@asyncio
async def test_codex_cli_appends_the_inline_table_to_both_argv_lists(workspace: Path) -> None:
    with anyio.fail_after(10):
        request = cli_request(
            CODEX_MODE, workspace, tool_overrides={"mcpToolsDeny": {"zeta": ["b.x", "a"]}, "webSearch": False}
        )
        projection = await prepare_cli_projection(request, files=FilesystemProjectionFiles(), collator=COLLATOR)
    table = (
        'mcp_servers={ alpha = { url = "https://x.example/mcp", tool_timeout_sec = 9, '
        'bearer_token_env_var = "MY_TOKEN" }, '
        'sse1 = { url = "https://s.example/sse" }, tmpl = { command = "t", env = { K = "${OPENCLAW_MCP_FOO}", '
        'J = "${OTHER}" } }, zeta = { command = "node", cwd = "/w", args = ["s.js"], env = { A = "1" }, '
        'startup_timeout_sec = 1.5, enabled_tools = ["read"], disabled_tools = ["a", "b.x", "del"], '
        'default_tools_approval_mode = "prompt" } }'
    )
    assert projection.args == [*CLI_ARGS, "-c", table, "-c", 'web_search="disabled"']
    assert projection.resume_args == ["--resume", "x", "-c", table, "-c", 'web_search="disabled"']
    assert projection.config_path is None and projection.warnings == [BETA_WARNING]


TOKD = {
    "url": "https://tokd.example.com/mcp",
    "transport": "streamable-http",
    "auth": "oauth",
    "headers": {"authorization": "old", "X-A": "b"},
}


@asynccontextmanager
async def stored_bearer_tokens(db: Path) -> AsyncIterator[McpOAuthBearerTokens]:
    """Bearer tokens from the SQLite OAuth store at ``db`` (real adapters; a refresh would use HTTP)."""
    clock = SystemClock()
    leases = SqliteLeaseStore(str(db), clock=clock)
    store = SqliteOAuthCredentialStore(str(db), leases, clock=clock)

    @asynccontextmanager
    async def protocol(server_url: str) -> AsyncIterator[HttpOAuthProtocol]:
        wire = HttpOAuthProtocol(server_url)
        try:
            yield wire
        finally:
            await wire.aclose()

    yield McpOAuthBearerTokens(McpOAuth(store, leases, clock), protocol)


@asynccontextmanager
async def stored_token(state: Path, name: str, url: str, token: str) -> AsyncIterator[McpOAuthBearerTokens]:
    """A real SQLite OAuth store holding an unexpired token for (name, url)."""
    state.mkdir(parents=True, exist_ok=True)
    db = state / "openclaw.sqlite"
    clock = SystemClock()
    leases = SqliteLeaseStore(str(db), clock=clock)
    store = SqliteOAuthCredentialStore(str(db), leases, clock=clock)
    row = {
        "clientInformation": {"client_id": "c1"},
        "tokens": {"access_token": token, "token_type": "Bearer", "refresh_token": "rt"},
        "tokenExpiresAt": int(time.time() * 1000) + 3_600_000,
    }
    key = operator_store_key(name, url)
    policy = MCP_OAUTH_LEASE
    async with leases.hold(
        policy.scope, key, duration_ms=policy.duration_ms, wait_ms=policy.wait_ms, label="test"
    ) as lease:
        await store.update(lease, key, lambda _current: row)
    async with stored_bearer_tokens(db) as tokens:
        yield tokens


@asyncio
async def test_12_a_stored_oauth_token_becomes_a_bearer_header_in_every_projection(tmp_path: Path) -> None:
    config = {"mcp": {"servers": {"tokd": TOKD}}}
    variable = oauth_token_env_var("tokd")
    assert variable == "OPENCLAW_MCP_AUTH_A62935CA075C_TOKEN"
    expected_headers = {"X-A": "b", "Authorization": "Bearer at-1"}
    files = FilesystemProjectionFiles()
    with anyio.fail_after(20):
        async with stored_token(tmp_path / "state", "tokd", TOKD["url"], "at-1") as tokens:
            claude = CliProjectionRequest(mode=CLAUDE_MODE, args=["-p"], workspace_dir=str(tmp_path), config=config)
            async with (
                await prepare_cli_projection(claude, files=files, collator=COLLATOR, tokens=tokens)
            ).held() as p:
                assert p.env[variable] == "at-1"
                assert p.config_path is not None
                entry = json.loads(Path(p.config_path).read_text())["mcpServers"]["tokd"]
            assert compact(entry) == compact({"url": TOKD["url"], "headers": expected_headers, "type": "http"})
            gemini = CliProjectionRequest(mode=GEMINI_MODE, args=["-p"], workspace_dir=str(tmp_path), config=config)
            async with (
                await prepare_cli_projection(gemini, files=files, collator=COLLATOR, tokens=tokens)
            ).held() as p:
                assert p.config_path is not None
                entry = json.loads(Path(p.config_path).read_text())["mcpServers"]["tokd"]
            assert entry["headers"] == expected_headers
            patch = await build_codex_thread_patch(config, collator=COLLATOR, agent_id="main", tokens=tokens)
    assert patch is not None
    assert compact(patch) == compact({"mcp_servers": {"tokd": {"url": TOKD["url"], "http_headers": expected_headers}}})


# --- 13: tool profiles decide what is projected ---------------------------------------------------------


async def _claude_with_profile(tmp_path: Path, tools: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    servers = {"docs": {"command": "in-memory"}, "mem": {"command": "in-memory"}}
    config = {"tools": tools, "mcp": {"servers": servers}}
    connector = InMemoryMcpConnector(
        {"docs": build_server(on_exit=lambda: None), "mem": build_server(on_exit=lambda: None)}
    )
    services, _ = fake_services(connector, FakeClock())
    async with SessionRuntime(session(servers), services, collator=COLLATOR) as runtime:
        policy = await native_policy_of(runtime, config, collator=COLLATOR, agent_id="main")
    request = CliProjectionRequest(
        mode=CLAUDE_MODE, args=["-p"], workspace_dir=str(tmp_path), config=config, policy=policy
    )
    async with (
        await prepare_cli_projection(request, files=FilesystemProjectionFiles(), collator=COLLATOR)
    ).held() as p:
        assert p.config_path is not None
        return json.loads(Path(p.config_path).read_text()), p.args


@asyncio
async def test_13_the_minimal_profile_projects_no_mcp_server_unless_bundle_mcp_is_allowed(tmp_path: Path) -> None:
    with anyio.fail_after(20):
        minimal, _ = await _claude_with_profile(tmp_path, {"profile": "minimal"})
        restored, args = await _claude_with_profile(tmp_path, {"profile": "minimal", "alsoAllow": ["bundle-mcp"]})
    assert minimal == {"mcpServers": {}}
    assert restored == {"mcpServers": {"docs": {"command": "in-memory"}, "mem": {"command": "in-memory"}}}
    assert "--disallowedTools" not in args
