"""VS Code (``.vscode/mcp.json``, JSONC): ``{"inputs": [...], "servers": {name: {type, command, args, env, url,
headers}}}`` with ``${env:VAR}`` and ``${input:id}`` references. ``type`` is required (``stdio``, ``http``,
``sse``)."""

from __future__ import annotations

from typing import Final

from openclaw_mcp.domain.interchange._json import JsonFormat

__all__ = ["VSCODE"]

VSCODE: Final = JsonFormat("vscode", "VS Code", "servers", "env-colon")
