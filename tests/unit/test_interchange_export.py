"""Export and import use cases over the in-memory adapters (no container, no processes)."""

from __future__ import annotations

import json

import anyio
import pytest

from openclaw_mcp.adapters.memory import InMemoryConfigStore
from openclaw_mcp.adapters.memory.foreign_files import InMemoryForeignFiles
from openclaw_mcp.adapters.memory.oauth_status import InMemoryOAuthStore
from openclaw_mcp.application.config_service import ConfigService
from openclaw_mcp.application.errors import CommandError
from openclaw_mcp.application.interchange import ExportRequest, ImportRequest, ImportSource, Interchange
from openclaw_mcp.domain.interchange.refs import from_client_syntax, header_var, token_var
from openclaw_mcp.domain.names import operator_store_key

pytestmark = pytest.mark.asyncio


class FixedClock:
    def now_ms(self) -> int:
        return 1_700_000_000_000


def service(
    servers: dict[str, object], oauth: InMemoryOAuthStore | None = None
) -> tuple[Interchange, InMemoryForeignFiles, InMemoryConfigStore]:
    store = InMemoryConfigStore(text=json.dumps({"mcp": {"servers": servers}}))
    files = InMemoryForeignFiles()
    config = ConfigService(store, {}, FixedClock(), lambda _: None)
    return Interchange(config, files, oauth), files, store


OAUTH = {"url": "https://o.example/mcp", "transport": "streamable-http", "auth": "oauth"}


async def test_oauth_servers_export_url_only_without_secrets() -> None:
    interchange, files, _ = service({"o": OAUTH})
    with anyio.fail_after(5):
        report = await interchange.export(ExportRequest("claude", "/x/.mcp.json"))
        document = await files.read("/x/.mcp.json", "json")
    assert document is not None and document.data["mcpServers"]["o"] == {"type": "http", "url": "https://o.example/mcp"}
    assert any("own OAuth login" in note for note in report.notes)


async def test_oauth_token_is_exported_with_include_secrets_and_warned_about() -> None:
    key = operator_store_key("o", "https://o.example/mcp")
    oauth = InMemoryOAuthStore({key: {"tokens": {"access_token": "sek-oauth-9999", "token_type": "Bearer"}}})
    interchange, files, _ = service({"o": OAUTH}, oauth)
    with anyio.fail_after(5):
        report = await interchange.export(ExportRequest("codex", "/x/config.toml", include_secrets=True))
        document = await files.read("/x/config.toml", "toml")
    assert document is not None
    assert document.data["mcp_servers"]["o"]["http_headers"] == {"Authorization": "Bearer sek-oauth-9999"}
    assert any("expires" in warning for warning in report.warnings)
    assert files.modes["/x/config.toml"] == 0o600


async def test_oauth_token_never_leaks_without_include_secrets() -> None:
    key = operator_store_key("o", "https://o.example/mcp")
    oauth = InMemoryOAuthStore({key: {"tokens": {"access_token": "sek-oauth-9999"}}})
    for fmt in ("claude", "codex", "gemini", "cursor", "vscode"):
        interchange, files, _ = service({"o": OAUTH}, oauth)
        with anyio.fail_after(5):
            await interchange.export(ExportRequest(fmt, "/x/f"))
        assert "sek-oauth-9999" not in (files.text("/x/f") or "")


async def test_agent_filter_and_per_requester_servers_for_codex() -> None:
    servers = {
        "a": {"command": "a", "codex": {"agents": ["Main"]}},
        "b": {"command": "b", "codex": {"agents": ["ops"]}},
        "pr": {**OAUTH, "oauth": {"identity": "per-requester"}},
    }
    interchange, _, _ = service(servers)
    with anyio.fail_after(5):
        report = await interchange.export(ExportRequest("codex", "/x/c.toml", agent="main"))
        everything = await interchange.export(ExportRequest("claude", "/x/.mcp.json"))
    assert report.servers == ["a"]
    assert everything.servers == ["a", "b", "pr"]


async def test_a_wildcard_tool_filter_is_a_one_line_error_naming_the_server() -> None:
    interchange, files, _ = service({"w": {"command": "w", "toolFilter": {"include": ["read_*"]}}})
    with anyio.fail_after(5), pytest.raises(CommandError, match=r'^export: server "w": Cannot project'):
        await interchange.export(ExportRequest("codex", "/x/c.toml"))
    assert files.text("/x/c.toml") is None


async def test_import_validates_like_set_and_writes_all_in_one_commit() -> None:
    interchange, files, store = service({"keep": {"command": "k"}})
    files._texts["/p/mcp.json"] = json.dumps(
        {"mcpServers": {"x": {"command": "x", "env": {"K": "${env:K}"}}, "y": {"url": "https://y", "type": "sse"}}}
    )
    request = ImportRequest("cursor", (ImportSource("/p/mcp.json", "/p/mcp.json", "cursor"),), True)
    with anyio.fail_after(5):
        report = await interchange.import_servers(request)
    assert report.written and not report.problems
    assert json.loads(store.text or "{}")["mcp"]["servers"] == {
        "keep": {"command": "k"},
        "x": {"command": "x", "env": {"K": "${K}"}},
        "y": {"url": "https://y", "transport": "sse"},
    }


async def test_variable_names_and_client_syntax() -> None:
    assert header_var("my-docs", "X-Api-Key") == "OPENCLAW_MCP_MY_DOCS_X_API_KEY"
    assert token_var("docs") == "OPENCLAW_MCP_DOCS_TOKEN"
    warnings: list[str] = []
    assert from_client_syntax("${A:-x}/$B/${C}", "dollar", "w", warnings) == "${A}/$B/${C}"
    assert from_client_syntax("$B-${C}", "gemini", "w", warnings) == "${B}-${C}"
    assert from_client_syntax("${env:A} ${input:api-key}", "env-colon", "w", warnings) == "${A} ${API_KEY}"
    assert len(warnings) == 2
