"""Doctor checks with in-memory host files and OAuth store."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.memory.host_files import InMemoryHostFiles
from openclaw_mcp.adapters.memory.oauth_status import InMemoryOAuthStatusReader
from openclaw_mcp.application.doctor import Doctor
from openclaw_mcp.application.errors import OAuthStoreError
from openclaw_mcp.application.registry import TransportWarnings
from openclaw_mcp.domain.doctor import command_candidates, is_literal_value, is_sensitive_key

pytestmark = pytest.mark.asyncio


def make(files: dict[str, int] | None = None, dirs: set[str] | None = None) -> tuple[Doctor, list[str]]:
    warnings: list[str] = []
    host = InMemoryHostFiles("/work", files or {}, dirs or {"/", "/work"})
    doctor = Doctor(host, InMemoryOAuthStatusReader(), TransportWarnings(warnings.append), {"PATH": "/usr/bin:/bin"})
    return doctor, warnings


async def messages(doctor: Doctor, server: dict[str, Any]) -> list[tuple[str, str]]:
    with anyio.fail_after(5):
        return [(i.level, i.message) for i in await doctor.check("s", server)]


async def test_a_disabled_server_only_gets_the_static_secret_warnings() -> None:
    doctor, _ = make()
    server = {
        "enabled": False,
        "command": "nope",
        "env": {"DOCS_API_KEY": "literal"},
        "headers": {"Authorization": "Bearer x"},
    }
    assert await messages(doctor, server) == [
        ("warning", "server is disabled"),
        (
            "warning",
            "headers.Authorization contains a literal sensitive value; prefer an environment-backed value "
            "outside committed config",
        ),
        (
            "warning",
            "env.DOCS_API_KEY contains a literal sensitive value; prefer an environment-backed value "
            "outside committed config",
        ),
    ]


async def test_commands_resolve_through_the_servers_path_and_cwd() -> None:
    doctor, _ = make(
        {"/srv/app/node_modules/.bin/app-mcp": 0o755, "/usr/bin/node": 0o755, "/opt/noexec": 0o644},
        {"/", "/work", "/srv/app"},
    )
    assert await messages(doctor, {"command": "app-mcp", "env": {"PATH": "node_modules/.bin"}, "cwd": "/srv/app"}) == []
    assert await messages(doctor, {"command": "node"}) == []
    assert await messages(doctor, {"command": "/opt/noexec"}) == [
        ("error", "stdio command not found or not executable: /opt/noexec")
    ]
    assert await messages(doctor, {"command": "node", "cwd": "/nowhere"}) == [
        ("error", "stdio cwd does not exist: /nowhere")
    ]


async def test_http_checks_cover_oauth_tls_and_client_files() -> None:
    doctor, _ = make({"/work/certs/c.pem": 0o644})
    server = {
        "url": "https://x.example.com/mcp",
        "auth": "oauth",
        "headers": {"authorization": "Bearer t"},
        "sslVerify": False,
        "clientCert": "certs/c.pem",
        "clientKey": "certs/missing.key",
    }
    assert await messages(doctor, server) == [
        ("warning", "OAuth credentials are not authorized; run openclaw mcp login s"),
        ("warning", "OAuth is enabled and the static Authorization header is ignored"),
        ("warning", "TLS certificate verification is disabled"),
        ("error", "client key file does not exist: certs/missing.key"),
        (
            "warning",
            "headers.authorization contains a literal sensitive value; prefer an environment-backed value "
            "outside committed config",
        ),
    ]


async def test_an_invalid_transport_is_an_error_and_warns_once() -> None:
    doctor, warnings = make()
    assert await messages(doctor, {"transport": "sse"}) == [("error", "server transport is invalid")]
    assert warnings == ['[bundle-mcp] skipped server "s" because its command is missing and its url is missing.']


async def test_an_empty_tool_filter_is_flagged() -> None:
    doctor, _ = make({"/usr/bin/node": 0o755})
    assert await messages(doctor, {"command": "node", "toolFilter": {}}) == [
        ("warning", "toolFilter is present but has no include or exclude list")
    ]


async def test_the_first_failing_check_escapes_after_all_settle() -> None:
    class Broken(InMemoryOAuthStatusReader):
        async def read_store(self, store_key: str) -> dict[str, object] | None:
            raise OAuthStoreError(f"MCP OAuth store {store_key} is invalid: tokens are invalid")

    host = InMemoryHostFiles("/work", {"/usr/bin/node": 0o755})
    doctor = Doctor(host, Broken(), TransportWarnings(lambda _: None), {"PATH": "/usr/bin"})
    servers = {"a": {"url": "https://a.example.com", "auth": "oauth"}, "b": {"command": "node"}}
    with anyio.fail_after(5), pytest.raises(OAuthStoreError, match="is invalid: tokens are invalid"):
        await doctor.check_all(["a", "b"], servers)


async def test_sensitive_keys_and_literal_values_follow_the_reference() -> None:
    names = [
        "X-API-Key",
        "Api-Key",
        "X-Auth-Token",
        "Proxy-Authorization",
        "X-Bearer",
        "client_secret",
        "DOCS_API_KEY",
        "GITHUB_TOKEN",
        "TOKENIZER",
        "MYTOKEN",
        "Cookie",
        "AWS_SECRET_ACCESS_KEY",
    ]
    assert [n for n in names if is_sensitive_key(n)] == names[:8]
    assert [is_literal_value(v) for v in ["x", " ", "$MCP_TOKEN", "${TOKEN}", 42, True]] == [True] + [False] * 5


async def test_relative_path_entries_resolve_against_the_servers_cwd() -> None:
    assert command_candidates("app", cwd="/srv", env_path="bin::/usr/bin", process_path=None, process_cwd="/w") == [
        "/srv/bin/app",
        "/srv/app",
        "/usr/bin/app",
    ]
    assert command_candidates("./x", cwd=None, env_path=None, process_path="/bin", process_cwd="/w") == ["/w/x"]
