"""The MCP lines of the reference's ``Legacy config keys detected:`` list (spec cli-registry §1.4, D8)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from domain.canonical import is_known_type_alias
from domain.validation import RESERVED_SERVER_NAME

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
    timeout aliases (both), other legacy aliases (both)."""
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
    return lines
