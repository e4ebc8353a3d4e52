"""Gateway approvals for an embedding agent: an approval route (the ``PluginApprovals`` port) over a
connection to the OpenClaw Gateway, for :class:`entrypoints.runtime_api.SessionMcpRuntime`'s
``approvals=`` (plugin-tools.md §6.9, tool-policy-and-lifecycle.md D-SR2).

    async with gateway_plugin_approvals(token="…") as approvals:
        async with SessionMcpRuntime(servers, boundary=RuntimeBoundary(hooks=hooks, approvals=approvals)) as runtime:
            ...

The Gateway is found as ``openclaw mcp serve`` finds it (``url`` → ``$OPENCLAW_GATEWAY_URL`` → the config's
remote URL → the local loopback port; token/password explicit, else from the environment and config) and the
connection uses the device identity of the OpenClaw state directory, so an operator's ``openclaw mcp serve``
on the same state sees the requests (a non-admin Gateway client sees the approvals of its own device).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from openclaw_mcp.entrypoints.containers import Container, create_container

if TYPE_CHECKING:
    from openclaw_mcp.application.ports.approvals import PluginApprovals

__all__ = ["gateway_plugin_approvals"]


@asynccontextmanager
async def gateway_plugin_approvals(
    *,
    url: str | None = None,
    token: str | None = None,
    password: str | None = None,
    config: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    container: Container | None = None,
    log: Any = None,
) -> AsyncIterator[PluginApprovals]:
    """Connect to the Gateway and yield the approval route; closing it closes the connection (a pending
    ``decide`` then fails as ``ApprovalUnavailable``). ``config``: the OpenClaw config document for the
    Gateway target (default: none, i.e. the environment and the loopback default). Raises
    ``domain.gateway_url.GatewayTargetError`` for an unusable URL."""
    from openclaw_mcp.adapters.ws.approvals import APPROVAL_REQUEST_TIMEOUT_MS
    from openclaw_mcp.application.bridge.target import serve_gateway_settings

    environ = os.environ if env is None else env
    if container is None:
        container = create_container(environ)
    config_path: str = container.settings().config_path
    settings = serve_gateway_settings(
        config or {},
        environ,
        config_path,
        cli_url=url,
        token=token,
        password=password,
        request_timeout_ms=APPROVAL_REQUEST_TIMEOUT_MS,
    )
    gateway = container.gateway()
    async with gateway.connect(settings, on_event=lambda _event: None, log=log or (lambda _line: None)) as connection:
        yield container.plugin_approvals(connection)
