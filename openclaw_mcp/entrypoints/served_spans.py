"""The SERVER spans of our stdio servers (``openclaw mcp serve``, ``openclaw-plugin-tools``, ``openclaw-tools``):
one per request an :class:`~entrypoints.rpc_session.RpcSession` answers (docs/telemetry.md).

A span starts when the request's answer is being made: at once for a request answered from the read loop, in
the call's task for a call answered later, and ends once the answer is written. It continues the client's trace
when the request carries W3C trace context in ``params._meta``. With telemetry off nothing is built and
:mod:`domain.mcp_spans` (and the redaction it uses) is not even imported: ``serve`` still answers
``initialize`` before importing more than it needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any

from openclaw_mcp.application.ports.telemetry import Span, Telemetry
from openclaw_mcp.domain.mcp_eras import MODERN_VERSION, Era
from openclaw_mcp.entrypoints.serve.jsonrpc import Request

__all__ = ["ServedSpans"]


class ServedSpans:
    """The server spans of one session; remembers the protocol version ``initialize`` negotiated."""

    def __init__(self, telemetry: Telemetry) -> None:
        self._telemetry = telemetry
        self._version: str | None = None

    def scope(self, request: Request, era: Era | None) -> AbstractContextManager[Span]:
        """The span of answering ``request`` on a connection of ``era``."""
        if not self._telemetry.enabled:
            return self._telemetry.span(request.method)
        from openclaw_mcp.domain.mcp_spans import served_span, trace_carrier

        version = MODERN_VERSION if era == MODERN_VERSION else self._version
        name, attributes = served_span(request.method, request.params, request.id, version)
        return self._telemetry.span(name, kind="server", attributes=attributes, parent=trace_carrier(request.params))

    def answered(self, span: Span, request: Request, response: Mapping[str, Any] | None, *, cancelled: bool) -> None:
        """Record the answer: the negotiated version of ``initialize``; ``error.type`` (and
        ``rpc.response.status_code``) of an error answer, ``tool_error`` of a failed tool, ``cancelled`` of a call
        the client cancelled."""
        if not self._telemetry.enabled:
            return
        from openclaw_mcp.domain.mcp_spans import response_error_type

        result = response.get("result") if response is not None else None
        if request.method == "initialize" and isinstance(result, Mapping):
            version = result.get("protocolVersion")
            if isinstance(version, str):
                self._version = version
                span.set_attribute("mcp.protocol.version", version)
        if cancelled:
            span.set_error("cancelled")
            return
        failed = response_error_type(request.method, response)
        if failed is not None:
            span.set_error(failed)
            if failed.lstrip("-").isdigit():
                span.set_attribute("rpc.response.status_code", failed)
