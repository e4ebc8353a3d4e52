"""Policy decisions about whole MCP servers (spec tool-policy-and-lifecycle.md §2.3, §2.5; client-runtime §6.5;
upstream ``src/agents/tool-policy-match.ts`` ``createMcpServerToolDenyMatcher``,
``embedded-agent-runner/run/attempt-tool-construction-plan.ts`` ``shouldCreateBundleMcpRuntimeForAttempt``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from openclaw_mcp.domain.tool_policy._catalog import BUNDLE_MCP_PLUGIN_ID, PLUGINS_GROUP
from openclaw_mcp.domain.tool_policy._names import (
    compile_globs,
    matches_any,
    may_match_glob_with_prefix,
    normalize_tool_policy_name,
)

__all__ = ["server_denied_by_tool_policy", "tools_allow_permits_mcp_runtime"]


def server_denied_by_tool_policy(deny: Iterable[object] | None, safe_server_name: str) -> bool:
    """Whether a tool-policy deny list removes a whole server before connecting (§2.3).

    ``bundle-mcp`` or ``group:plugins`` (case-insensitive) excludes every server; otherwise each entry
    ending in ``*`` is an anchored, lowercased glob matched against ``lower(safe_server_name) + "__"``.
    ``["docs__*"]`` excludes ``docs``; ``["docs__search"]`` does not.
    """
    denials = [normalize_tool_policy_name(entry) for entry in deny or ()]
    if BUNDLE_MCP_PLUGIN_ID in denials or PLUGINS_GROUP in denials:
        return True
    namespaces = compile_globs(pattern for pattern in denials if pattern.endswith("*"))
    return matches_any(normalize_tool_policy_name(f"{safe_server_name}__"), namespaces)


def tools_allow_permits_mcp_runtime(tools_allow: Sequence[str], safe_server_names: Sequence[str]) -> bool:
    """Whether a run-level ``toolsAllow`` lets the MCP runtime be created (§2.5): the list is non-empty and
    has ``*``, ``bundle-mcp``, ``group:plugins``, a name containing ``__``, or a glob whose literal head before
    the first ``*`` is compatible with ``lower(<safe name>) + "__"`` of a configured server."""
    names = [normalize_tool_policy_name(entry) for entry in tools_allow]
    if not names:
        return False
    if "*" in names:
        return True
    if any(name in (BUNDLE_MCP_PLUGIN_ID, PLUGINS_GROUP) or "__" in name for name in names):
        return True
    globs = [name for name in names if "*" in name]
    namespaces = [f"{safe}__".lower() for safe in safe_server_names]
    return any(may_match_glob_with_prefix(glob, namespace) for namespace in namespaces for glob in globs)
