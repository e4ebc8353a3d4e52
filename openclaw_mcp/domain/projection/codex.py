"""Codex's native MCP configuration from ``mcp.servers`` (spec runtime-projection §2.2, §3.2, §1.2).

``normalize_codex`` builds one ``[mcp_servers.<name>]`` entry from a whitelist, so the ``codex`` block,
``transport``, ``auth``/``oauth``, ``toolFilter`` and unknown keys never reach Codex (§2.4).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from openclaw_mcp.domain.codex import codex_approval_mode
from openclaw_mcp.domain.transport import resolve_timeout
from openclaw_mcp.jscompat.jsjson import js_dumps
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "ENV_REFERENCE",
    "CodexProjectionError",
    "clamp_ms",
    "codex_agent_allowed",
    "codex_fingerprint",
    "codex_tool_overrides_for_agent",
    "is_requester_scoped",
    "js_seconds",
    "mcp_tool_grants",
    "normalize_codex",
    "partition_codex_servers",
    "string_map",
]

_VALID_AGENT: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}", re.IGNORECASE | re.ASCII)
#: A whole-value variable reference ``${VAR}`` or ``Bearer ${VAR}`` (group 1: the prefix, group 2: the name).
ENV_REFERENCE: Final = re.compile(r"^(Bearer )?\$\{([A-Z0-9_]+)\}$")
_FILTER_TARGET: Final[Mapping[str, str]] = {"include": "enabled_tools", "exclude": "disabled_tools"}


class CodexProjectionError(ValueError):
    """A server that Codex cannot express (a wildcard tool filter); the message is the reference's."""


def clamp_ms(value: object) -> int | None:
    """The timer clamp: a finite number > 0 → ``max(1, floor(v))`` capped; anything else → ``None``."""
    return resolve_timeout(value, 0) or None


def js_seconds(milliseconds: int) -> int | float:
    """``ms / 1000`` as JavaScript renders it: an integral result is an ``int`` (``9``, never ``9.0``)."""
    seconds = milliseconds / 1000
    return int(seconds) if seconds.is_integer() else seconds


def string_map(value: object) -> dict[str, str] | None:
    """The entries of a plain object whose value is a string; ``None`` when there are none."""
    if not isinstance(value, dict):
        return None
    kept = {str(key): item for key, item in value.items() if isinstance(item, str)}
    return kept or None


def _exact_names(name: str, tool_filter: Mapping[str, Any], key: str) -> list[str]:
    entries = tool_filter.get(key)
    if not isinstance(entries, list):
        return []
    for entry in entries:
        if isinstance(entry, str) and "*" in entry:
            raise CodexProjectionError(
                f'Cannot project mcp.servers.{name}.toolFilter.{key} pattern "{entry}" into Codex '
                f"{_FILTER_TARGET[key]}: Codex MCP projection only supports exact tool names."
            )
    names: list[str] = []
    for entry in entries:
        if isinstance(entry, str) and (trimmed := js_trim(entry)) and trimmed not in names:
            names.append(trimmed)
    return names


def _headers(server: Mapping[str, Any], out: dict[str, Any]) -> None:
    plain: dict[str, str] = {}
    from_env: dict[str, str] = {}
    for header, value in (string_map(server.get("headers")) or {}).items():
        match = ENV_REFERENCE.match(value)
        if match is None:
            plain[header] = value
        elif match.group(1) and header.lower() == "authorization":
            out["bearer_token_env_var"] = match.group(2)
        else:
            from_env[header] = match.group(2)
    if plain:
        out["http_headers"] = plain
    if from_env:
        out["env_http_headers"] = from_env


def normalize_codex(
    name: str,
    server: Mapping[str, Any],
    grants: Sequence[str] = (),
    *,
    sort: Callable[[Iterable[str]], list[str]] = sorted,
) -> dict[str, Any]:
    """One Codex ``mcp_servers`` entry (§3.2), keys in the reference's order.

    ``grants`` are the tool names the agent has approved on this server; they become per-tool ``approve``
    modes when the server's mode is undefined or ``auto``, ordered by ``sort`` (the project's collation)."""
    get = server.get
    tool_filter = get("toolFilter")
    if isinstance(tool_filter, dict) and tool_filter:
        enabled_tools = _exact_names(name, tool_filter, "include")
        disabled_tools = _exact_names(name, tool_filter, "exclude")
    else:
        enabled_tools = disabled_tools = []
    out: dict[str, Any] = {}
    for key in ("command", "cwd", "url"):
        if type(value := get(key)) is str:
            out[key] = value
    args = get("args")
    if isinstance(args, list) and all(type(arg) is str for arg in args):
        out["args"] = list(args)
    env = get("env")
    if env is not None and (kept := string_map(env)) is not None:
        out["env"] = kept
    if (startup := get("connectionTimeoutMs")) is not None and (startup_ms := clamp_ms(startup)) is not None:
        out["startup_timeout_sec"] = js_seconds(startup_ms)
    if (timeout := get("requestTimeoutMs")) is not None and (timeout_ms := clamp_ms(timeout)) is not None:
        out["tool_timeout_sec"] = js_seconds(timeout_ms)
    if type(parallel := get("supportsParallelToolCalls")) is bool:
        out["supports_parallel_tool_calls"] = parallel
    if enabled_tools:
        out["enabled_tools"] = enabled_tools
    if disabled_tools:
        out["disabled_tools"] = disabled_tools
    mode = codex_approval_mode(name, server)
    if mode is not None:
        out["default_tools_approval_mode"] = mode
    if mode in (None, "auto") and grants:
        out["tools"] = {tool: {"approval_mode": "approve"} for tool in sort(dict.fromkeys(grants))}
    if get("headers") is not None:
        _headers(server, out)
    return out


def codex_agent_allowed(server: object, agent_id: str | None) -> bool:
    """``codex.agents`` scoping (§2.2): no list → allowed; a list → only the (normalised) agents named in it,
    and nobody when it names no valid agent or no agent is given (fail closed)."""
    if not isinstance(server, dict):
        return True
    codex = server.get("codex")
    if not isinstance(codex, dict) or "agents" not in codex:
        return True
    raw = codex["agents"]
    entries = raw if isinstance(raw, list) else []
    agents = {
        trimmed.lower()
        for entry in entries
        if isinstance(entry, str) and _VALID_AGENT.fullmatch(trimmed := js_trim(entry))
    }
    if not agents or not agent_id:
        return False
    from openclaw_mcp.domain.tool_policy import (
        normalize_agent_id,  # deferred: the policy package is large (CLI start-up)
    )

    return normalize_agent_id(agent_id) in agents


def codex_tool_overrides_for_agent(
    servers: Mapping[str, Any], agent_id: str | None, tool_overrides: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The caller's tool overrides with ``mcpServers[name] = False`` added for every configured server the agent
    may not use (narrows only)."""
    overrides = dict(tool_overrides or {})
    existing = overrides.get("mcpServers")
    mcp_servers = dict(existing) if isinstance(existing, dict) else {}
    for name, server in servers.items():
        if isinstance(server, dict) and not codex_agent_allowed(server, agent_id):
            mcp_servers[name] = False
    if mcp_servers or isinstance(existing, dict):
        overrides["mcpServers"] = mcp_servers
    return overrides


def is_requester_scoped(server: object) -> bool:
    """An OAuth server whose identity is per requester: never projected into session-shared Codex clients."""
    if not isinstance(server, dict) or server.get("auth") != "oauth":
        return False
    oauth = server.get("oauth")
    return isinstance(oauth, dict) and oauth.get("identity") == "per-requester"


def partition_codex_servers(
    servers: Mapping[str, Any],
    *,
    sort: Callable[[Iterable[str]], list[str]],
    resolver_names: Iterable[str] = (),
) -> tuple[list[str], list[str]]:
    """(projectable names in collation order, requester-scoped names) (§1.2)."""
    with_resolver = set(resolver_names)
    shared: list[str] = []
    scoped: list[str] = []
    for name, server in servers.items():
        (scoped if is_requester_scoped(server) or name in with_resolver else shared).append(name)
    return sort(shared), scoped


def mcp_tool_grants(approvals: object, agent_id: str | None) -> dict[str, list[str]]:
    """The agent's approved MCP tools per server from an exec-approvals document (``agents.<id>.mcpTools``:
    ``[{server, tool, source: "allow-always", …}]``); none for the wildcard agent ``*`` or a missing entry."""
    if not agent_id or agent_id == "*" or not isinstance(approvals, dict):
        return {}
    agents = approvals.get("agents")
    entry = agents.get(agent_id) if isinstance(agents, dict) else None
    grants = entry.get("mcpTools") if isinstance(entry, dict) else None
    out: dict[str, list[str]] = {}
    for grant in grants if isinstance(grants, list) else []:
        if not isinstance(grant, dict):
            continue
        server, tool = grant.get("server"), grant.get("tool")
        if isinstance(server, str) and server.strip() and isinstance(tool, str) and tool.strip():
            out.setdefault(server, []).append(tool)
    return out


def codex_fingerprint(mcp_servers: Mapping[str, Any], key: Callable[[str], Any]) -> str:
    """Hex SHA-256 of the ``mcp_servers`` object as compact JSON with every object's keys sorted by ``key`` (the
    project's collation), for thread-reuse decisions (§3.4, D-RP3: reproducible within the port)."""

    def ordered(value: Any) -> Any:
        if isinstance(value, dict):
            return {name: ordered(value[name]) for name in sorted(value, key=key)}
        if isinstance(value, list):
            return [ordered(item) for item in value]
        return value

    text = js_dumps(ordered(dict(mcp_servers)), indent=None)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
