"""The result of ``openclaw mcp probe`` built from a catalog (spec cli-registry §6.2–§6.4)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from openclaw_mcp.domain.catalog import Catalog
from openclaw_mcp.domain.redaction import sanitize_for_log
from openclaw_mcp.jscompat.text import utf16_key

__all__ = ["APPROVAL_HINT", "pin_lines", "probe_issue", "probe_lines", "probe_result"]

APPROVAL_HINT = "tools have no safety annotations; calls require approval in prompting session postures"


def _iso(ms: int) -> str:
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def probe_result(catalog: Catalog, tool_names: list[str], key: Callable[[str], Any]) -> dict[str, Any]:
    """The ``probe --json`` document: servers in collation order, agent tool names in UTF-16 order."""
    servers: dict[str, Any] = {}
    for name in sorted(catalog.servers, key=key):
        entry = catalog.servers[name]
        mode = entry.codex_approval_mode or "auto"
        own = [tool for tool in catalog.tools if tool.server_name == name]
        item: dict[str, Any] = {"launch": entry.launch_summary, "tools": entry.tool_count, "codexApprovalMode": mode}
        if mode == "auto" and own and all(not tool.codex_annotations for tool in own):
            item["approvalHint"] = APPROVAL_HINT
        if entry.request_timeout_ms:
            item["requestTimeoutMs"] = entry.request_timeout_ms
        if entry.supports_parallel_tool_calls:
            item["supportsParallelToolCalls"] = True
        if entry.tools is not None and entry.tools.filtered_count:
            item["filteredTools"] = entry.tools.filtered_count
        if entry.resources is not None:
            item["resources"] = True
        if entry.prompts is not None:
            item["prompts"] = True
        caps = (entry.tools, entry.resources, entry.prompts)
        if any(cap is not None and cap.list_changed for cap in caps):
            item["listChanged"] = {
                kind: cap is not None and cap.list_changed
                for kind, cap in zip(("tools", "resources", "prompts"), caps, strict=True)
            }
        if entry.pins is not None:  # pinned servers only (issue 35): unpinned output is unchanged
            item["pins"] = entry.pins.document()
        servers[name] = item
    return {
        "generatedAt": _iso(catalog.generated_at),
        "servers": servers,
        "tools": sorted(tool_names, key=utf16_key),
        "diagnostics": [
            {
                "serverName": d.server_name,
                "safeServerName": d.safe_server_name,
                "launchSummary": d.launch_summary,
                "message": d.message,
            }
            for d in catalog.diagnostics or ()
        ],
    }


def probe_lines(path: str, result: Mapping[str, Any]) -> list[str]:
    """The text report of ``probe`` (§6.3)."""
    lines = [f"MCP probe ({path}):"]
    for name, server in result["servers"].items():
        extras = "".join(f", {kind}" for kind in ("resources", "prompts") if server.get(kind))
        lines.append(f"- {name}: {server['tools']} tools{extras}, Codex approval {server['codexApprovalMode']}")
        if "approvalHint" in server:
            lines.append(f"  i {server['approvalHint']}")
        lines += pin_lines(name, server.get("pins"))
    lines += [f"! {d['serverName']}: {d['message']}" for d in result["diagnostics"]]
    return lines


def pin_lines(name: str, pins: Mapping[str, Any] | None) -> list[str]:
    """The text lines of a pinned server's held and removed tools (none for an unpinned server)."""
    if pins is None:
        return []
    lines = [f"  ! held: {sanitize_for_log(item['tool'])} ({_HELD_TEXT[item['reason']]})" for item in pins["held"]]
    lines += [f"  ! removed since pinned: {sanitize_for_log(tool)}" for tool in pins["removed"]]
    if pins["removed"] or any(item["reason"] != "unreadable" for item in pins["held"]):
        lines.append(f"  i review with: openclaw mcp review {name}")
    return lines


_HELD_TEXT = {"changed": "changed since pinned", "new": "new since pinned", "unreadable": "pin store unreadable"}


def probe_issue(path: str, result: Mapping[str, Any], selected: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The failure line of §6.4, or ``None`` when the probe succeeded."""
    if result["diagnostics"]:
        first = result["diagnostics"][0]
        return f'MCP probe failed for "{first["serverName"]}" in {path}: {first["message"]}'
    for name, server in selected.items():
        if server.get("enabled") is not False and name not in result["servers"]:
            return f'MCP probe did not connect to "{name}" in {path}.'
    return None
