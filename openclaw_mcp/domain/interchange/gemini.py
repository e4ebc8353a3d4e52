"""Gemini CLI (``.gemini/settings.json``): ``mcpServers`` entries ``{type: "stdio", command, args, env, cwd}``,
``{type: "http"|"sse", url, headers}`` (as in the CLI's settings schema and the reference's projection, §6;
on import ``httpUrl`` and a bare ``url`` mean streamable HTTP, as in Gemini CLI 0.61), plus
``timeout`` (request timeout, ms), ``includeTools``/``excludeTools`` (exact names) and ``trust``. Gemini
expands ``${VAR}`` and ``$VAR`` in its settings; export writes ``${VAR}``."""

from __future__ import annotations

from typing import Final

from openclaw_mcp.domain.interchange._json import JsonFormat

__all__ = ["GEMINI"]

GEMINI: Final = JsonFormat("gemini", "Gemini CLI", "mcpServers", "gemini", gemini=True)
