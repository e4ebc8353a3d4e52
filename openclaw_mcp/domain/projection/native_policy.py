"""The conversation tool policy applied to what is projected (spec runtime-projection §3.1 steps 4–5, §8)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from openclaw_mcp.domain.catalog import Catalog, CollationKey
from openclaw_mcp.domain.projection.selection import code_unit_sorted
from openclaw_mcp.domain.tool_policy import PolicyStep, PolicyTool, ToolPolicy, apply_pipeline
from openclaw_mcp.domain.toolnames import build_tools_from_catalog

#: The plugin id policy sees on every MCP tool (``bundle-mcp`` in profile allow lists).
MCP_PLUGIN_ID: Final = "bundle-mcp"

__all__ = ["MCP_PLUGIN_ID", "NativeServerPolicy", "apply_native_policy", "native_denials", "prepare_native_policy"]


@dataclass(frozen=True, slots=True)
class NativeServerPolicy:
    """Raw MCP tool names of one server that survived the policy, and the rest (both sorted, unique)."""

    allowed_tools: tuple[str, ...]
    denied_tools: tuple[str, ...]

    @classmethod
    def of(cls, allowed: list[str], denied: list[str]) -> NativeServerPolicy:
        return cls(tuple(code_unit_sorted(allowed)), tuple(code_unit_sorted(denied)))


def apply_native_policy(
    servers: Mapping[str, Any], policy: Mapping[str, NativeServerPolicy]
) -> dict[str, dict[str, Any]]:
    """Servers with at least one allowed tool, their ``toolFilter`` narrowed to exact names; servers without a
    policy entry (their catalog could not be listed) or without an allowed tool are omitted."""
    out: dict[str, dict[str, Any]] = {}
    for name, server in servers.items():
        entry = policy.get(name)
        if entry is None or not entry.allowed_tools or not isinstance(server, dict):
            continue
        tool_filter = server.get("toolFilter")
        base = dict(tool_filter) if isinstance(tool_filter, dict) else {}
        base["include"] = list(entry.allowed_tools)
        base["exclude"] = list(entry.denied_tools)
        out[name] = {**server, "toolFilter": base}
    return out


def native_denials(policy: Mapping[str, NativeServerPolicy]) -> dict[str, list[str]]:
    """``{server: deniedTools}`` for the servers with any denial."""
    return {name: list(entry.denied_tools) for name, entry in policy.items() if entry.denied_tools}


def prepare_native_policy(
    catalog: Catalog,
    steps: Sequence[PolicyStep],
    key: CollationKey,
    *,
    tools_allow: Sequence[str] | None = None,
    warn: Callable[[str], None] = lambda _line: None,
) -> dict[str, NativeServerPolicy]:
    """The native policy of a listed catalog (§3.1 step 4): every catalog tool, session-denied and
    filter-excluded ones included, named as the agent sees it, then the run's ``tools_allow`` cap and the
    conversation pipeline ``steps``. Per listed server: the raw names that survived and the rest."""
    materialized = build_tools_from_catalog(catalog, key, include_session_denied=True)
    specs = [spec for spec in materialized.tools if spec.operation == "tool" and spec.catalog_tool is not None]
    capped = list(steps)
    if tools_allow is not None:
        capped.insert(0, PolicyStep(label="toolsAllow", policy=ToolPolicy(allow=tuple(tools_allow))))
    survivors = {
        id(spec)
        for spec in apply_pipeline(
            [spec for spec in specs if spec.executable],
            capped,
            identity=lambda spec: PolicyTool(spec.name, MCP_PLUGIN_ID),
            warn=warn,
        )
    }
    allowed: dict[str, list[str]] = {name: [] for name in catalog.servers}
    denied: dict[str, list[str]] = {name: [] for name in catalog.servers}
    for spec in specs:
        target = allowed if id(spec) in survivors else denied
        target.setdefault(spec.server_name, []).append(spec.tool_name)
    for tool in (*(catalog.policy_tools or ()), *(catalog.session_denied_tools or ())):
        if tool.tool_name not in allowed.get(tool.server_name, ()):
            denied.setdefault(tool.server_name, []).append(tool.tool_name)
    names = sorted(set(allowed) | set(denied), key=key)
    return {
        name: NativeServerPolicy.of(
            allowed.get(name, []), [t for t in denied.get(name, []) if t not in allowed.get(name, [])]
        )
        for name in names
    }
