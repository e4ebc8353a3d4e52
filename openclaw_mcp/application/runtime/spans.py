"""The client runtime's spans (docs/telemetry.md): one per connect and one per request it sends, through the
:class:`~application.ports.telemetry.Telemetry` of its services. Names and attributes are
:mod:`domain.mcp_spans`'; nothing is built when telemetry is off."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from openclaw_mcp.application.ports.mcp import McpConnection
from openclaw_mcp.application.ports.telemetry import Span, Telemetry
from openclaw_mcp.domain.mcp_eras import MODERN_VERSION
from openclaw_mcp.domain.mcp_spans import (
    MODERN_CONNECT_METHOD,
    connect_span,
    error_type,
    request_span,
    result_error_type,
    target_attributes,
)
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig

__all__ = ["connect_scope", "record_result", "request_scope", "settle_connect"]


def connect_scope(
    telemetry: Telemetry, server_name: str, config: StdioConfig | HttpConfig
) -> AbstractContextManager[Span]:
    """The CLIENT span of one connect (the transport started and the handshake done)."""
    if not telemetry.enabled:
        return telemetry.span("connect")
    name, attributes = connect_span(server_name, config)
    return telemetry.span(name, kind="client", attributes=attributes)


def settle_connect(span: Span, client: McpConnection) -> None:
    """What the connect settled: the protocol version (and ``server/discover`` for the 2026-07-28 era)."""
    version = getattr(client, "protocol_version", None)  # test doubles of the port may predate the eras
    if isinstance(version, str):
        span.set_attribute("mcp.protocol.version", version)
        if version == MODERN_VERSION:
            span.set_attribute("mcp.method.name", MODERN_CONNECT_METHOD)


@contextmanager
def request_scope(
    telemetry: Telemetry,
    server_name: str,
    config: StdioConfig | HttpConfig,
    client: McpConnection | None,
    method: str,
    params: Mapping[str, Any] | None,
    *,
    tool_call_id: str | None = None,
) -> Iterator[Span]:
    """The CLIENT span of one request ``<method> <target>``; a failure's ``error.type`` is its JSON-RPC code or
    class name. The caller reports a ``tools/call`` result with :func:`record_result`."""
    if not telemetry.enabled:
        with telemetry.span(method) as span:
            yield span
        return
    name, attributes = request_span(method, params, tool_call_id=tool_call_id)
    attributes.update(target_attributes(server_name, config))
    version = getattr(client, "protocol_version", None)
    if isinstance(version, str):
        attributes["mcp.protocol.version"] = version
    with telemetry.span(name, kind="client", attributes=attributes) as span:
        try:
            yield span
        except Exception as exc:
            span.set_error(error_type(exc))
            raise


def record_result(span: Span, method: str, result: object) -> None:
    """``error.type`` = ``tool_error`` for a ``tools/call`` answered with ``isError: true``."""
    failed = result_error_type(method, result)
    if failed is not None:
        span.set_error(failed)
