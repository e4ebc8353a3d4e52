"""Claude Code's ``--strict-mcp-config --mcp-config <file>`` projection (spec runtime-projection §5)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from openclaw_mcp.domain.projection.selection import code_unit_sorted, without_tool_filter
from openclaw_mcp.jscompat.jsjson import js_dumps
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "EMPTY_CLAUDE_CONFIG",
    "claude_config_text",
    "claude_disallowed_tools",
    "mcp_config_paths",
    "merge_disallowed_tools",
    "substitute_openclaw_templates",
    "with_mcp_config_file",
]

EMPTY_CLAUDE_CONFIG: Final = '{\n  "mcpServers": {}\n}\n'
_MCP_CONFIG: Final = "--mcp-config"
_STRICT: Final = "--strict-mcp-config"
_DISALLOWED: Final = ("--disallowedTools", "--disallowed-tools")
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]")
_OPENCLAW_TEMPLATE: Final = re.compile(r"\$\{(OPENCLAW_MCP_[A-Z0-9_]+)\}")


def _flag_values(args: Sequence[str], flag: str) -> tuple[list[str], list[str]]:
    """(args without ``flag``, its following non-``-`` values and ``flag=…`` forms, the values)."""
    kept: list[str] = []
    values: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == flag:
            index += 1
            while index < len(args) and not args[index].startswith("-"):
                values.append(args[index])
                index += 1
            continue
        if arg.startswith(flag + "="):
            values.append(arg[len(flag) + 1 :])
        else:
            kept.append(arg)
        index += 1
    return kept, values


def mcp_config_paths(args: Sequence[str], workspace_dir: str) -> list[str]:
    """The ``--mcp-config`` files named in ``args`` (trimmed, empty skipped, relative to the workspace)."""
    _, values = _flag_values(args, _MCP_CONFIG)
    return [posixpath.normpath(posixpath.join(workspace_dir, path)) for v in values if (path := js_trim(v))]


def with_mcp_config_file(args: Sequence[str], path: str) -> list[str]:
    """``args`` without any ``--strict-mcp-config`` / ``--mcp-config`` flag, then the strict config file."""
    kept, _ = _flag_values([arg for arg in args if arg != _STRICT], _MCP_CONFIG)
    return [*kept, _STRICT, _MCP_CONFIG, path]


def _safe(text: str) -> str:
    return _UNSAFE.sub("_", text)


def claude_disallowed_tools(denials: Mapping[str, Iterable[str]], *, web_search_disabled: bool) -> list[str]:
    """``mcp__<S>__<T>`` per denied tool (names sanitised), plus ``WebSearch``; sorted by code unit."""
    names = [f"mcp__{_safe(server)}__{_safe(tool)}" for server, tools in denials.items() for tool in tools]
    if web_search_disabled:
        names.append("WebSearch")
    return code_unit_sorted(names)


def merge_disallowed_tools(args: Sequence[str], denied: Sequence[str]) -> list[str]:
    """``args`` with one ``--disallowedTools`` flag holding the existing entries then ``denied`` (no repeats)."""
    if not denied:
        return list(args)
    kept = list(args)
    existing: list[str] = []
    for flag in _DISALLOWED:
        kept, values = _flag_values(kept, flag)
        existing += [item for value in values for part in value.split(",") if (item := part.strip())]
    return [*kept, "--disallowedTools", ",".join(dict.fromkeys([*existing, *denied]))]


def substitute_openclaw_templates(value: Any, env: Mapping[str, str]) -> Any:
    """Every ``${OPENCLAW_MCP_…}`` inside string values replaced from ``env`` when the key exists."""
    if isinstance(value, str):
        return _OPENCLAW_TEMPLATE.sub(lambda m: env.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [substitute_openclaw_templates(item, env) for item in value]
    if isinstance(value, dict):
        return {key: substitute_openclaw_templates(item, env) for key, item in value.items()}
    return value


def claude_config_text(servers: Mapping[str, Mapping[str, Any]], env: Mapping[str, str]) -> str:
    """The ``mcp.json`` text: each server without ``toolFilter``, OpenClaw templates substituted."""
    entries = {
        name: substitute_openclaw_templates(without_tool_filter(server), env) for name, server in servers.items()
    }
    return js_dumps({"mcpServers": entries}, indent=2) + "\n"
