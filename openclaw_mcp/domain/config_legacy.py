"""The MCP and tool-policy lines of the reference's ``Legacy config keys detected:`` list (spec cli-registry
§1.4, D8; the doctor rule ``tools.allow-also-allow-conflict``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from openclaw_mcp.domain.canonical import is_known_type_alias
from openclaw_mcp.domain.validation import RESERVED_SERVER_NAME

__all__ = ["legacy_lines"]

_LEGACY_DISABLED = (
    'entries use the unsupported "disabled" key; use "enabled" with the inverse boolean value. '
    'Run "openclaw doctor --fix" to migrate it.'
)
_LEGACY_TYPE = (
    'entries use OpenClaw transport names; CLI-native type aliases are legacy here. Run "openclaw doctor --fix".'
)
_LEGACY_TIMEOUT = (
    'timeout aliases were retired; use connectionTimeoutMs and requestTimeoutMs. Run "openclaw doctor --fix".'
)
_LEGACY_ALIASES = 'legacy aliases were retired; use camelCase spellings and cwd. Run "openclaw doctor --fix".'

_POLICY_CONFLICT = (
    'Tool policy sets both allow and alsoAllow in the same scope; run "openclaw doctor --fix" for a '
    "permission-preserving repair or manual guidance."
)
_TOOL_POLICY_ROOTS: Final = ("tools", "agents", "channels", "gateway")

_TIMEOUT_ALIASES: Final = ("connectTimeout", "connect_timeout", "timeout")
_SNAKE_ALIASES: Final = ("supports_parallel_tool_calls", "ssl_verify", "client_cert", "client_key")


def _servers_at(root: object, *keys: str) -> list[dict[str, Any]] | None:
    cursor: object = root
    for key in keys:
        if not isinstance(cursor, dict) or key not in cursor:
            return None
        cursor = cursor[key]
    if not isinstance(cursor, dict):
        return None
    return [server for name, server in cursor.items() if name != RESERVED_SERVER_NAME and isinstance(server, dict)]


def _has_disabled(server: dict[str, Any]) -> bool:
    return isinstance(server.get("disabled"), bool)


def _has_type_alias(server: dict[str, Any]) -> bool:
    return is_known_type_alias(server.get("type"))


def _has_timeout_alias(server: dict[str, Any]) -> bool:
    return any(key in server for key in _TIMEOUT_ALIASES)


def _has_legacy_alias(server: dict[str, Any]) -> bool:
    codex = server.get("codex")
    return (
        "workingDirectory" in server
        or any(key in server for key in _SNAKE_ALIASES)
        or (isinstance(codex, dict) and "default_tools_approval_mode" in codex)
    )


def legacy_lines(root: object) -> list[str]:
    """The MCP lines of the reference's ``Legacy config keys detected:`` list, each ``<path>: <message>``
    (the caller adds the ``  - `` prefix), in the reference's rule order:
    ``disabled`` (``mcp.servers``, ``nodeHost.mcp.servers``), ``type`` alias (``mcp.servers`` only),
    timeout aliases (both), other legacy aliases (both); then one line per tool-policy root (``tools``,
    ``agents``, ``channels``, ``gateway``) holding a scope that sets both ``allow`` and ``alsoAllow``."""
    rules: list[tuple[tuple[str, ...], str, Callable[[dict[str, Any]], bool]]] = [
        (("mcp", "servers"), _LEGACY_DISABLED, _has_disabled),
        (("nodeHost", "mcp", "servers"), _LEGACY_DISABLED, _has_disabled),
        (("mcp", "servers"), _LEGACY_TYPE, _has_type_alias),
        (("mcp", "servers"), _LEGACY_TIMEOUT, _has_timeout_alias),
        (("nodeHost", "mcp", "servers"), _LEGACY_TIMEOUT, _has_timeout_alias),
        (("mcp", "servers"), _LEGACY_ALIASES, _has_legacy_alias),
        (("nodeHost", "mcp", "servers"), _LEGACY_ALIASES, _has_legacy_alias),
    ]
    lines: list[str] = []
    for keys, message, matches in rules:
        servers = _servers_at(root, *keys)
        if servers is not None and any(matches(server) for server in servers):
            dotted = ".".join(keys)
            lines.append(f"{dotted}: {dotted} {message}")
    if isinstance(root, dict):
        lines.extend(
            f"{key}: {_POLICY_CONFLICT}" for key in _TOOL_POLICY_ROOTS if _has_policy_conflict(root.get(key), [key])
        )
    return lines


def _is_tool_policy_path(path: list[str]) -> bool:
    if path[-1] == "tools" or "toolsBySender" in path:
        return True
    if "byProvider" not in path:
        return False
    last = len(path) - 1 - path[::-1].index("byProvider")
    return "tools" in path[:last]


def _grant_list(scope: dict[str, Any], key: str) -> bool:
    value = scope.get(key)
    return isinstance(value, list) and bool(value) and all(isinstance(entry, str) for entry in value)


def _has_policy_conflict(value: object, path: list[str]) -> bool:
    """A scope under ``path`` (a tool-policy path, not a ``tools.sandbox``) with non-empty string lists in both
    ``allow`` and ``alsoAllow``, searched through objects and arrays."""
    if isinstance(value, list):
        return any(_has_policy_conflict(entry, [*path, str(index)]) for index, entry in enumerate(value))
    if not isinstance(value, dict) or path[-2:] == ["tools", "sandbox"]:
        return False
    if _is_tool_policy_path(path) and _grant_list(value, "allow") and _grant_list(value, "alsoAllow"):
        return True
    return any(_has_policy_conflict(entry, [*path, key]) for key, entry in value.items())
