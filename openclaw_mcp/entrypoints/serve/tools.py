"""The bridge's tools as the MCP SDK presents them (spec serve-bridge §4.3, §4.4): the ``tools/list`` result
and the ``-32602`` texts of a ``tools/call`` the SDK refuses. The tools themselves are the one table of
:data:`application.bridge.service.TOOLS`.

upstream: the SDK's ``McpServer`` (``tools/list`` conversion to draft-07 JSON Schema, ``execution``; the
``McpError`` texts of ``tools/call``).
"""

from __future__ import annotations

from typing import Any

from openclaw_mcp.application.bridge.tools import TOOLS
from openclaw_mcp.domain.bridge.arguments import input_schema

__all__ = ["invalid_arguments_text", "tools_list_result", "unknown_tool_text"]


def tools_list_result() -> dict[str, Any]:
    """The ``tools/list`` result: one page, no ``nextCursor``; each entry ``name``, ``description``,
    ``inputSchema``, ``execution``."""
    return {
        "tools": [
            {
                "name": tool.name,
                "description": tool.description,
                "inputSchema": input_schema(tool.properties),
                "execution": {"taskSupport": "forbidden"},
            }
            for tool in TOOLS
        ]
    }


def unknown_tool_text(name: str) -> str:
    return f"MCP error -32602: Tool {name} not found"


def invalid_arguments_text(tool: str, issues: str) -> str:
    return f"MCP error -32602: Input validation error: Invalid arguments for tool {tool}: {issues}"
