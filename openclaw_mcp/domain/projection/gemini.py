"""The Gemini CLI system settings projection (spec runtime-projection §6)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from openclaw_mcp.domain.bundle_mcp import merge_patch
from openclaw_mcp.domain.projection.codex import ENV_REFERENCE, string_map
from openclaw_mcp.domain.projection.selection import code_unit_sorted

__all__ = ["GEMINI_WEB_SEARCH_TOOL", "gemini_server", "gemini_settings"]

GEMINI_WEB_SEARCH_TOOL: Final = "google_web_search"


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _header(value: str, lookup: Callable[[str], str | None]) -> str:
    match = ENV_REFERENCE.match(value)
    if match is None:
        return value
    return (match.group(1) or "") + (lookup(match.group(2)) or "")


def gemini_server(
    server: Mapping[str, Any], denied: Iterable[str], lookup: Callable[[str], str | None]
) -> dict[str, Any] | None:
    """One ``mcpServers`` entry, or ``None`` when its include list leaves no tool."""
    out: dict[str, Any] = {}
    for key in ("command", "cwd", "url", "type"):
        if isinstance(server.get(key), str):
            out[key] = server[key]
    if isinstance(server.get("trust"), bool):
        out["trust"] = server["trust"]
    args = server.get("args")
    if isinstance(args, list) and all(isinstance(arg, str) for arg in args):
        out["args"] = list(args)
    if (env := string_map(server.get("env"))) is not None:
        out["env"] = env
    if (headers := string_map(server.get("headers"))) is not None:
        out["headers"] = {key: _header(value, lookup) for key, value in headers.items()}
    tool_filter = server.get("toolFilter")
    tool_filter = tool_filter if isinstance(tool_filter, dict) else {}
    include = _strings(tool_filter.get("include"))
    if include:
        existing = _strings(server.get("includeTools"))
        chosen = [tool for tool in include if tool in existing] if existing else include
        if not chosen:
            return None
        out["includeTools"] = code_unit_sorted(chosen)
    exclude = [*_strings(server.get("excludeTools")), *_strings(tool_filter.get("exclude")), *denied]
    if exclude:
        out["excludeTools"] = code_unit_sorted(exclude)
    return out


def gemini_settings(
    base: Mapping[str, Any],
    servers: Mapping[str, Mapping[str, Any]],
    denials: Mapping[str, Iterable[str]],
    lookup: Callable[[str], str | None],
    *,
    web_search_disabled: bool,
) -> dict[str, Any]:
    """The settings document: ``base`` merge-patched with the allowed names and the projected servers."""
    start: dict[str, Any] = dict(base)
    if web_search_disabled:
        tools = start.get("tools")
        tools = dict(tools) if isinstance(tools, dict) else {}
        tools["exclude"] = list(dict.fromkeys([*_strings(tools.get("exclude")), GEMINI_WEB_SEARCH_TOOL]))
        start["tools"] = tools
    projected: dict[str, Any] = {}
    for name, server in servers.items():
        entry = gemini_server(server, denials.get(name, ()), lookup)
        if entry is not None:
            projected[name] = entry
    patched = merge_patch(start, {"mcp": {"allowed": list(projected)}, "mcpServers": projected})
    return dict(patched)
