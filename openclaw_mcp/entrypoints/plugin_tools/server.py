"""The MCP methods of ``openclaw-plugin-tools`` (spec plugin-tools.md §2, §4, §5): ``initialize``, ``ping``,
``tools/list``, ``tools/call``; every other method is ``-32601`` ``Method not found``; malformed params are
``-32602`` ``Invalid params: …`` (decision D-PT2). A ``tools/call`` runs in its own task; its
``notifications/cancelled`` cancels the call's signal (the tool and pending hooks see it) and drops the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from openclaw_mcp.application.plugin_tools import PluginToolsService
from openclaw_mcp.application.tool_boundary import CancelSignal
from openclaw_mcp.entrypoints.rpc_session import (
    InvalidParams,
    Pending,
    negotiate_protocol_version,
    require_string,
    task_refusal,
)
from openclaw_mcp.entrypoints.serve.jsonrpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    Request,
    error_response,
    result_response,
)

__all__ = ["CAPABILITIES", "SERVER_INFO", "PluginToolsServer"]

SERVER_INFO: Final = {"name": "openclaw-plugin-tools", "version": "2026.9.6"}
"""``version`` is the OpenClaw compatibility version (decision D-PT1)."""
CAPABILITIES: Final[dict[str, Any]] = {"tools": {}}
_METHODS: Final = frozenset({"initialize", "ping", "tools/list", "tools/call"})


def _call_params(params: Mapping[str, Any] | None) -> tuple[str, Mapping[str, Any] | None]:
    require_string(params, "name")
    assert params is not None
    arguments = params.get("arguments")
    if "arguments" in params and not isinstance(arguments, dict):
        raise InvalidParams("Invalid params: arguments must be an object")
    return params["name"], arguments


class PluginToolsServer:
    """``respond`` for :class:`~entrypoints.rpc_session.RpcSession`, over the served tools of ``service``."""

    def __init__(self, service: PluginToolsService) -> None:
        self._service = service

    def respond(self, request: Request) -> dict[str, Any] | Pending:
        method, params = request.method, request.params
        if method not in _METHODS:
            return error_response(request.id, METHOD_NOT_FOUND, "Method not found")
        refusal = task_refusal(request)
        if refusal is not None:
            return refusal
        try:
            if method == "initialize":
                version = negotiate_protocol_version(params)
                return result_response(
                    request.id,
                    {"protocolVersion": version, "capabilities": dict(CAPABILITIES), "serverInfo": dict(SERVER_INFO)},
                )
            if method == "ping":
                return result_response(request.id, {})
            if method == "tools/list":
                require_string(params, "cursor", optional=True)
                return result_response(request.id, {"tools": self._service.list_tools()})
            name, arguments = _call_params(params)
        except InvalidParams as exc:
            return error_response(request.id, INVALID_PARAMS, str(exc))
        return self._call(request, name, arguments)

    def _call(self, request: Request, name: str, arguments: Mapping[str, Any] | None) -> Pending:
        cancel = CancelSignal()
        service = self._service

        async def run() -> dict[str, Any]:
            return result_response(request.id, await service.call(name, arguments, cancel))

        return Pending(run, on_cancel=lambda: cancel.cancel("cancelled by the MCP client"))
