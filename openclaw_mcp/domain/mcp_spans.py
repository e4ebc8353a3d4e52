"""Span names and attributes of MCP requests (docs/telemetry.md), after OpenTelemetry's semantic conventions
for MCP (``mcp.method.name``, ``mcp.protocol.version``, ``jsonrpc.request.id``, ``network.transport``,
``server.address`` …, span name ``<method> <target>``) and for GenAI tool execution (``gen_ai.operation.name``
= ``execute_tool``, ``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``error.type``).

What is never recorded: argument values, results, resource contents, error messages, headers, the
``Mcp-Session-Id`` (it grants access to the session), stdio commands and their arguments, URLs beyond the
host and port. Names that come from configs, servers or clients (server, tool and prompt names, resource
URIs) pass the secret redaction (:mod:`domain.redaction`) first. Attributes beyond the conventions are under
``openclaw.mcp.*``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final
from urllib.parse import urlsplit

from openclaw_mcp.domain.redaction import redact_sensitive_text, redact_url_text, sanitize_for_log
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig

__all__ = [
    "MODERN_CONNECT_METHOD",
    "SpanAttributes",
    "connect_span",
    "error_type",
    "request_span",
    "response_error_type",
    "result_error_type",
    "served_span",
    "target_attributes",
    "trace_carrier",
]

SpanAttributes = dict[str, str | int | bool]
MODERN_CONNECT_METHOD: Final = "server/discover"
"""What a 2026-07-28 connect sends instead of ``initialize`` (the connect span's ``mcp.method.name``)."""
TOOL_ERROR: Final = "tool_error"
"""``error.type`` of a ``tools/call`` answered with ``isError: true`` (the MCP conventions' value)."""


def _name(text: str) -> str:
    return redact_sensitive_text(sanitize_for_log(text))


def _host_port(url: str) -> tuple[str | None, int | None]:
    try:
        parts = urlsplit(url)
        return parts.hostname, parts.port
    except ValueError:
        return None, None


def target_attributes(server_name: str, config: StdioConfig | HttpConfig) -> SpanAttributes:
    """Which server a client span talks to: its (redacted) name, the transport, and for HTTP the host and
    port (never the path, query or userinfo)."""
    attributes: SpanAttributes = {"openclaw.mcp.server.name": _name(server_name)}
    if isinstance(config, StdioConfig):
        attributes["network.transport"] = "pipe"
        attributes["openclaw.mcp.transport"] = "stdio"
        return attributes
    attributes["network.transport"] = "tcp"
    attributes["network.protocol.name"] = "http"
    attributes["openclaw.mcp.transport"] = str(config.transport_type)
    host, port = _host_port(config.url)
    if host:
        attributes["server.address"] = _name(host)
    if port is not None:
        attributes["server.port"] = port
    return attributes


def connect_span(server_name: str, config: StdioConfig | HttpConfig) -> tuple[str, SpanAttributes]:
    """The client span of a connect (transport start and handshake): ``initialize <server>``; the attributes
    say ``mcp.method.name`` = ``initialize`` (``server/discover`` once a 2026-07-28 connect settled)."""
    attributes = target_attributes(server_name, config)
    attributes["mcp.method.name"] = "initialize"
    return f"initialize {attributes['openclaw.mcp.server.name']}", attributes


def request_span(
    method: str, params: Mapping[str, object] | None, *, tool_call_id: str | None = None
) -> tuple[str, SpanAttributes]:
    """The span name ``<method> <target>`` (target: the tool or prompt name) and the method's attributes."""
    attributes: SpanAttributes = {"mcp.method.name": _name(method)}
    name = params.get("name") if params is not None else None
    target: str | None = None
    if method == "tools/call":
        attributes["gen_ai.operation.name"] = "execute_tool"
        if isinstance(name, str):
            target = _name(name)
            attributes["gen_ai.tool.name"] = target
        if tool_call_id:
            attributes["gen_ai.tool.call.id"] = _name(tool_call_id)
    elif method == "prompts/get" and isinstance(name, str):
        target = _name(name)
        attributes["gen_ai.prompt.name"] = target
    elif method.startswith("resources/") and params is not None and isinstance(params.get("uri"), str):
        attributes["mcp.resource.uri"] = _name(redact_url_text(str(params["uri"])))
    span_name = f"{attributes['mcp.method.name']} {target}" if target else str(attributes["mcp.method.name"])
    return span_name, attributes


def served_span(
    method: str, params: Mapping[str, object] | None, request_id: object, protocol_version: str | None
) -> tuple[str, SpanAttributes]:
    """The server span of one request our stdio servers serve."""
    name, attributes = request_span(method, params)
    attributes["jsonrpc.request.id"] = _name(str(request_id))
    attributes["network.transport"] = "pipe"
    if protocol_version:
        attributes["mcp.protocol.version"] = protocol_version
    return name, attributes


def trace_carrier(params: Mapping[str, object] | None) -> Mapping[str, object] | None:
    """The W3C trace context a request carries in ``params._meta`` (``traceparent``/``tracestate``), if any."""
    meta = params.get("_meta") if params is not None else None
    return meta if isinstance(meta, Mapping) and "traceparent" in meta else None


def error_type(error: BaseException) -> str:
    """``error.type`` of a failed request: the JSON-RPC error code (``"-32602"``) when the error has one, else
    the exception's class name."""
    code = getattr(error, "code", None)
    if isinstance(code, int) and not isinstance(code, bool):
        return str(code)
    return type(error).__qualname__


def result_error_type(method: str, result: object) -> str | None:
    """``tool_error`` for a ``tools/call`` result with ``isError: true``, else ``None``."""
    if method == "tools/call" and isinstance(result, Mapping) and result.get("isError") is True:
        return TOOL_ERROR
    return None


def response_error_type(method: str, response: Mapping[str, object] | None) -> str | None:
    """``error.type`` of a JSON-RPC response we answered: its error code, ``tool_error``, or ``None``."""
    if response is None:
        return None
    error = response.get("error")
    if isinstance(error, Mapping):
        code = error.get("code")
        return str(code) if isinstance(code, int) and not isinstance(code, bool) else "error"
    return result_error_type(method, response.get("result"))
