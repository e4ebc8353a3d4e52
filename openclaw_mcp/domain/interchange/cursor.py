"""Cursor (``.cursor/mcp.json``): ``{"mcpServers": {name: {type, command, args, env, url, headers}}}`` with
``${env:VAR}`` references (Cursor also expands ``${userHome}``, ``${workspaceFolder}``)."""

from __future__ import annotations

from typing import Final

from openclaw_mcp.domain.interchange._json import JsonFormat

__all__ = ["CURSOR"]

CURSOR: Final = JsonFormat("cursor", "Cursor", "mcpServers", "env-colon")
