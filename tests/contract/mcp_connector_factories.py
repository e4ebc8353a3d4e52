"""Factories for the ``McpConnector`` contract suite: one async context manager per adapter.

Each factory yields an ``McpConnectorHarness``: a ready connector plus the config to reach each of the
suite's servers through it. Servers (by role):

- ``contract`` — ``tests/fixtures/mcp_servers/contract_server.py`` (tools echo/fail/slow/notify/cancellations/
  exit, one resource, one prompt);
- ``mute`` — never answers ``initialize``;
- ``crash`` — goes away before answering ``initialize``.

Helpers adding adapters (HTTP) append a ``pytest.param`` to ``FACTORIES``.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp.server import Server

from openclaw_mcp.adapters.memory.mcp_connector import InMemoryMcpConnector
from openclaw_mcp.adapters.stdio import StdioMcpConnector
from openclaw_mcp.application.ports.mcp import McpConnector
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig
from tests.contract.mcp_http_factories import FACTORIES as HTTP_FACTORIES
from tests.fixtures.mcp_servers.contract_server import build_server

__all__ = ["FACTORIES", "McpConnectorFactory", "McpConnectorHarness"]

SERVERS_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers"


@dataclass
class McpConnectorHarness:
    """A connector and, per server role, a function building the config that reaches it."""

    connector: McpConnector
    configs: Mapping[str, Callable[..., StdioConfig | HttpConfig]] = field(default_factory=dict)

    def config(
        self, role: str = "contract", *, connection_timeout_ms: int = 4_000, request_timeout_ms: int = 4_000
    ) -> StdioConfig | HttpConfig:
        return self.configs[role](connection_timeout_ms=connection_timeout_ms, request_timeout_ms=request_timeout_ms)


McpConnectorFactory = Callable[[], AbstractAsyncContextManager[McpConnectorHarness]]


def _stdio_config(
    command: str, *args: str, connection_timeout_ms: int, request_timeout_ms: int, description: str = ""
) -> StdioConfig:
    return StdioConfig(
        command=command,
        args=args,
        env=None,
        cwd=None,
        description=description or " ".join((command, *args)),
        connection_timeout_ms=connection_timeout_ms,
        request_timeout_ms=request_timeout_ms,
        supports_parallel_tool_calls=False,
    )


def _script(name: str) -> Callable[..., StdioConfig]:
    def build(*, connection_timeout_ms: int, request_timeout_ms: int) -> StdioConfig:
        return _stdio_config(
            sys.executable,
            str(SERVERS_DIR / name),
            connection_timeout_ms=connection_timeout_ms,
            request_timeout_ms=request_timeout_ms,
        )

    return build


@asynccontextmanager
async def stdio_factory() -> AsyncIterator[McpConnectorHarness]:
    yield McpConnectorHarness(
        StdioMcpConnector(),
        {
            "contract": _script("contract_server.py"),
            "mute": _script("mute_server.py"),
            "crash": _script("crash_server.py"),
        },
    )


def _mute_server() -> Server[Any]:
    @asynccontextmanager
    async def never_ready(server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        import anyio

        await anyio.sleep_forever()
        yield {}

    return Server("mute", lifespan=never_ready)


def _crash_server() -> Server[Any]:
    @asynccontextmanager
    async def crash(server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        raise RuntimeError("fatal tail")
        yield {}

    return Server("crash", lifespan=crash)


def _memory_config(*, connection_timeout_ms: int, request_timeout_ms: int) -> StdioConfig:
    return _stdio_config(
        "in-memory", connection_timeout_ms=connection_timeout_ms, request_timeout_ms=request_timeout_ms
    )


@asynccontextmanager
async def memory_factory() -> AsyncIterator[McpConnectorHarness]:
    def exit_contract_server() -> None:
        connector.disconnect("contract")

    connector = InMemoryMcpConnector(
        {
            "contract": build_server(on_exit=exit_contract_server),
            "mute": _mute_server(),
            "crash": _crash_server(),
        }
    )
    harness = McpConnectorHarness(
        connector, {"contract": _memory_config, "mute": _memory_config, "crash": _memory_config}
    )
    yield harness


FACTORIES = [
    pytest.param(memory_factory, id="memory"),
    pytest.param(stdio_factory, id="stdio"),
    *HTTP_FACTORIES,
]
