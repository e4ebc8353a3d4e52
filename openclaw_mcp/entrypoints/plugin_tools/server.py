"""The MCP methods of ``openclaw-plugin-tools`` (spec plugin-tools.md §2, §4, §5): the shared stdio tools
server (:class:`~openclaw_mcp.entrypoints.tools_stdio.ToolsServer`) over the served plugin tools; a call's
``notifications/cancelled`` cancels its signal (the tool and pending hooks see it) and drops the answer."""

from __future__ import annotations

from typing import Final

from openclaw_mcp.application.plugin_tools import PluginToolsService
from openclaw_mcp.entrypoints.tools_stdio import CAPABILITIES, ToolsServer

__all__ = ["CAPABILITIES", "SERVER_INFO", "PluginToolsServer"]

SERVER_INFO: Final = {"name": "openclaw-plugin-tools", "version": "2026.9.6"}
"""``version`` is the OpenClaw compatibility version (decision D-PT1)."""


class PluginToolsServer(ToolsServer):
    """The tools server over ``service``."""

    def __init__(self, service: PluginToolsService) -> None:
        super().__init__(SERVER_INFO, service.list_tools, service.call)
