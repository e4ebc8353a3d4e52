"""The registry use cases with in-memory adapters (no files, no processes)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.collation import UcaCollator
from openclaw_mcp.adapters.memory import InMemoryConfigStore
from openclaw_mcp.adapters.memory.oauth_status import InMemoryOAuthStatusReader
from openclaw_mcp.adapters.memory.server_refs import InMemoryServerRefs
from openclaw_mcp.application.config_service import ConfigService
from openclaw_mcp.application.errors import (
    ApplicationError,
    CommandError,
    ConfigReadOnlyError,
    InvalidConfigError,
    WriteRejectedError,
)
from openclaw_mcp.application.registry import Registry, TransportWarnings
from openclaw_mcp.application.server_flags import ConfigureRequest
from openclaw_mcp.domain.names import operator_store_key

pytestmark = pytest.mark.asyncio


class FixedClock:
    def now_ms(self) -> int:
        return 1_795_958_899_480


class Harness:
    def __init__(self, config: Any = None, env: dict[str, str] | None = None, text: str | None = None) -> None:
        initial = text if text is not None else (json.dumps(config) if config is not None else None)
        self.store = InMemoryConfigStore(text=initial)
        self.oauth = InMemoryOAuthStatusReader()
        self.warnings: list[str] = []
        self.refs = InMemoryServerRefs({"docs": False})
        service = ConfigService(self.store, env or {}, FixedClock(), self.warnings.append, self.refs)
        self.registry = Registry(service, self.oauth, UcaCollator(), TransportWarnings(self.warnings.append))

    @property
    def document(self) -> Any:
        assert self.store.text is not None
        return json.loads(self.store.text)

    def servers(self) -> Any:
        return self.document.get("mcp", {}).get("servers")


async def test_set_on_no_config_writes_first_write_defaults() -> None:
    h = Harness()
    with anyio.fail_after(5):
        await h.registry.set_server("context7", '{"command":"uvx","args":["context7-mcp"]}')
    assert list(h.document) == ["mcp", "plugins", "meta"]
    assert h.servers() == {"context7": {"command": "uvx", "args": ["context7-mcp"]}}


async def test_set_replaces_an_entry_in_place_and_keeps_other_sections() -> None:
    h = Harness(
        {"gateway": {"port": 1}, "mcp": {"servers": {"a": {"command": "x", "env": {"K": "1"}}, "b": {"command": "y"}}}}
    )
    with anyio.fail_after(5):
        await h.registry.set_server("a", '{"command":"npx"}')
    assert list(h.servers().items()) == [("a", {"command": "npx"}), ("b", {"command": "y"})]
    assert h.document["gateway"] == {"port": 1}


async def test_env_references_survive_a_configure_that_did_not_touch_them() -> None:
    h = Harness({"mcp": {"servers": {"docs": {"url": "${MCP_URL}"}}}}, env={"MCP_URL": "https://x.example.com/mcp"})
    with anyio.fail_after(5):
        analysis = await h.registry.load()
        assert analysis.servers["docs"]["url"] == "https://x.example.com/mcp"
        await h.registry.configure("docs", ConfigureRequest(parallel=True))
    assert h.servers()["docs"] == {"url": "${MCP_URL}", "supportsParallelToolCalls": True}


async def test_a_missing_env_var_makes_the_config_invalid_and_warns() -> None:
    h = Harness({"mcp": {"servers": {"docs": {"url": "${MCP_URL}"}}}})
    with anyio.fail_after(5), pytest.raises(InvalidConfigError) as caught:
        await h.registry.load()
    assert [i.message for i in caught.value.analysis.issues] == ["Invalid URL", "Expected http:// or https:// URL"]
    assert h.warnings == [
        '[config] warnings: mcp.servers.docs.url: Missing env var "MCP_URL" - feature using this value will be '
        "unavailable"
    ]


async def test_schema_rejections_name_the_first_issue_and_write_nothing() -> None:
    h = Harness({"mcp": {"servers": {}}})
    before = h.store.text
    with anyio.fail_after(5), pytest.raises(CommandError) as caught:
        await h.registry.set_server("n", '{"command":"x","timeout":1}')
    assert str(caught.value) == 'Config invalid after MCP set (mcp.servers.n: Unrecognized key: "timeout").'
    assert h.store.text == before


async def test_unset_of_the_last_server_removes_the_mcp_block() -> None:
    h = Harness({"gateway": {"port": 1}, "mcp": {"servers": {"a": {"command": "x"}}}})
    with anyio.fail_after(5):
        await h.registry.unset_server("  a  ")
    assert list(h.document) == ["gateway", "meta"]


async def test_tools_sorts_and_dedupes_and_an_empty_list_clears_the_filter() -> None:
    h = Harness({"mcp": {"servers": {"docs": {"url": "https://x.example.com", "toolFilter": {"exclude": ["b"]}}}}})
    with anyio.fail_after(5):
        await h.registry.update_tools("docs", "search, read_*,search,,", None, False)
        assert h.servers()["docs"]["toolFilter"] == {"exclude": ["b"], "include": ["read_*", "search"]}
        await h.registry.update_tools("docs", " , ,", None, False)
    assert "toolFilter" not in h.servers()["docs"]


async def test_configure_enable_removes_a_bare_disabled_override() -> None:
    h = Harness({"mcp": {"servers": {"ghost": {"enabled": False}, "keep": {"command": "x"}}}})
    with anyio.fail_after(5):
        removed = await h.registry.configure("ghost", ConfigureRequest(enable=True))
    assert removed is True
    assert list(h.servers()) == ["keep"]


async def test_configure_merges_filters_codex_oauth_and_tls() -> None:
    h = Harness(
        {
            "mcp": {
                "servers": {
                    "d": {
                        "url": "https://x.example.com",
                        "toolFilter": {"include": ["z", "z", "a"]},
                        "codex": {"agents": ["main"]},
                    }
                }
            }
        }
    )
    request = ConfigureRequest(
        exclude="b_*,a_*",
        approval="APPROVE",
        auth="OAuth",
        oauth_scope=" docs.read ",
        oauth_redirect_url="http://127.0.0.1:8989/cb",
        ssl_verify="FALSE",
        client_cert=" /c.pem ",
    )
    with anyio.fail_after(5):
        await h.registry.configure("d", request)
    assert h.servers()["d"] == {
        "url": "https://x.example.com",
        "toolFilter": {"include": ["z", "z", "a"], "exclude": ["b_*", "a_*"]},
        "codex": {"agents": ["main"], "defaultToolsApprovalMode": "approve"},
        "auth": "oauth",
        "oauth": {"scope": "docs.read", "redirectUrl": "http://127.0.0.1:8989/cb"},
        "sslVerify": False,
        "clientCert": "/c.pem",
    }


async def test_status_reports_oauth_state_and_connected_principals() -> None:
    url = "https://mcp.example.com/mcp"
    h = Harness(
        {
            "mcp": {
                "servers": {
                    "docs": {"url": url, "transport": "streamable-http", "auth": "oauth"},
                    "perreq": {"url": url, "auth": "oauth", "oauth": {"identity": "per-requester"}},
                    "oauth-stdio": {"command": "x", "auth": "oauth"},
                }
            }
        }
    )
    key = operator_store_key("docs", url)
    h.oauth.stores[key] = {"tokens": {"access_token": "a", "token_type": "Bearer"}, "tokenExpiresAt": 5}
    h.oauth.stores[operator_store_key("perreq", url) + "-r-abc"] = {"tokens": {}}
    with anyio.fail_after(5):
        entries = await h.registry.status(await h.registry.load())
    by_name = {e["name"]: e for e in entries}
    assert by_name["docs"]["authStatus"]["state"] == "authorized"
    assert by_name["docs"]["authStatus"]["expiresAt"] == 5
    assert by_name["perreq"]["connectedPrincipals"] == 1
    assert "authStatus" not in by_name["oauth-stdio"] and by_name["oauth-stdio"]["auth"] == "oauth"


async def test_status_prints_skipped_warnings_twice_and_env_warnings_once() -> None:
    h = Harness(
        {"mcp": {"servers": {"disabled-only": {"enabled": False}, "s": {"command": "x", "env": {"LD_PRELOAD": "y"}}}}}
    )
    with anyio.fail_after(5):
        analysis = await h.registry.load()
        await h.registry.status(analysis)
        await h.registry.status(analysis)
    skipped = '[bundle-mcp] skipped server "disabled-only" because its command is missing and its url is missing.'
    blocked = '[bundle-mcp] server "s": env "LD_PRELOAD" is blocked for stdio startup safety and was ignored.'
    assert h.warnings == [skipped, skipped, blocked, skipped, skipped]


async def test_readonly_mode_refuses_before_touching_the_store() -> None:
    h = Harness({"mcp": {"servers": {}}}, env={"OPENCLAW_CONFIG_READONLY": "1"})
    with anyio.fail_after(5), pytest.raises(ConfigReadOnlyError):
        await h.registry.set_server("b", '{"command":"y"}')


async def test_a_suspicious_size_drop_is_rejected_and_the_payload_kept_aside() -> None:
    h = Harness({"mcp": {"servers": {"big": {"command": "x" * 1400}, "small": {"command": "y"}}}})
    before = h.store.text
    with anyio.fail_after(5), pytest.raises(WriteRejectedError) as caught:
        await h.registry.unset_server("big")
    assert str(caught.value).startswith("Config write rejected: /memory/openclaw.json (size-drop:")
    assert str(caught.value).endswith(
        "Rejected payload saved to /memory/openclaw.json.rejected.2026-11-29T13-28-19-480Z."
    )
    assert h.store.text == before
    assert list(h.store.rejected) == ["/memory/openclaw.json.rejected.2026-11-29T13-28-19-480Z"]


async def test_json5_comments_are_announced_when_a_write_drops_them() -> None:
    h = Harness(text='{ // comment\n  mcp: { servers: { a: { command: "x", }, }, },\n}\n')
    with anyio.fail_after(5):
        await h.registry.set_server("b", '{"command":"y"}')
    assert h.warnings == ["Config write will strip JSON5 comments from /memory/openclaw.json."]
    assert list(h.servers()) == ["a", "b"]


def _with_includes(root: str, files: dict[str, str]) -> Harness:
    h = Harness(text=root)
    h.store.files.update(files)
    return h


async def test_servers_from_an_include_file_are_listed() -> None:
    h = _with_includes(
        '{"mcp": {"$include": "./mcp.json5"}}', {"/memory/mcp.json5": "{servers: {inc: {command: 'x'}}}"}
    )
    with anyio.fail_after(5):
        analysis = await h.registry.load()
    assert analysis.servers == {"inc": {"command": "x"}}


async def test_a_change_to_included_servers_is_refused_without_writing() -> None:
    root = '{"mcp": {"servers": {"$include": "./servers.json"}}}'
    h = _with_includes(root, {"/memory/servers.json": '{"docs": {"command": "x"}}'})
    with (
        anyio.fail_after(5),
        pytest.raises(ApplicationError, match=r"^Config include write-through is not supported for mcp\.servers\.$"),
    ):
        await h.registry.set_server("new", '{"command":"y"}')
    assert h.store.text == root


async def test_an_unrelated_top_level_include_survives_a_write_verbatim() -> None:
    h = _with_includes(
        '{"$include": "./gw.json5", "mcp": {"servers": {}}}', {"/memory/gw.json5": "{gateway: {port: 1}}"}
    )
    with anyio.fail_after(5):
        await h.registry.set_server("b", '{"command":"y"}')
    assert h.document["$include"] == "./gw.json5"
    assert "gateway" not in h.document
    assert list(h.servers()) == ["b"]


async def test_a_broken_include_makes_the_config_invalid() -> None:
    h = _with_includes('{"$include": "./missing.json"}', {})
    with anyio.fail_after(5), pytest.raises(InvalidConfigError) as caught:
        await h.registry.load()
    [issue] = caught.value.analysis.issues
    assert (issue.path, issue.message) == (
        "<root>",
        "Failed to read include file: ./missing.json (resolved: /memory/missing.json)",
    )


async def test_a_direct_edit_marks_a_lifecycle_managed_server_independent() -> None:
    h = Harness({"mcp": {"servers": {"docs": {"command": "x"}}}})
    with anyio.fail_after(5):
        await h.registry.configure("docs", ConfigureRequest(parallel=True))
    assert h.refs.owners == {"docs": True}
    assert h.refs.updated_at == {"docs": FixedClock().now_ms()}


async def test_a_write_waits_for_the_servers_lifecycle_lease() -> None:
    from openclaw_mcp.adapters.memory.leases import InMemoryLeaseRows, InMemoryLeaseStore
    from openclaw_mcp.application.ports.leases import MCP_LIFECYCLE_LEASE as P

    rows = InMemoryLeaseRows()
    h = Harness({"mcp": {"servers": {"docs": {"command": "x"}}}})
    service = ConfigService(h.store, {}, FixedClock(), h.warnings.append, None, InMemoryLeaseStore(rows))
    registry = Registry(service, h.oauth, UcaCollator(), TransportWarnings(h.warnings.append))
    other = InMemoryLeaseStore(rows)
    order: list[str] = []
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            held = anyio.Event()

            async def holder() -> None:
                async with other.hold(P.scope, "docs", duration_ms=P.duration_ms, wait_ms=P.wait_ms):
                    held.set()
                    await anyio.sleep(0.3)
                    order.append("released")

            tg.start_soon(holder)
            await held.wait()
            await registry.configure("docs", ConfigureRequest(parallel=True))
            order.append("written")
    assert order == ["released", "written"]
    assert h.servers()["docs"]["supportsParallelToolCalls"] is True
