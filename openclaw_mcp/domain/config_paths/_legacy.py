"""The doctor's legacy-key migration of ``mcp.servers`` (upstream
``doctor/shared/legacy-config-migrations.runtime.mcp.ts``)."""

from __future__ import annotations

import copy
import math
from typing import Any, Final

from openclaw_mcp.domain.canonical import canonicalize_server, is_known_type_alias, transport_for_type_alias
from openclaw_mcp.jscompat.jsjson import js_number

__all__ = ["migrate_legacy_mcp"]

_TIMEOUT_ALIASES: Final = (
    ("connectTimeout", "connectionTimeoutMs"),
    ("connect_timeout", "connectionTimeoutMs"),
    ("timeout", "requestTimeoutMs"),
)
_ALIAS_KEYS: Final = ("workingDirectory", "supports_parallel_tool_calls", "ssl_verify", "client_cert", "client_key")


def _has_aliases(server: dict[str, Any]) -> bool:
    codex = server.get("codex")
    return any(key in server for key in _ALIAS_KEYS) or (
        isinstance(codex, dict) and "default_tools_approval_mode" in codex
    )


def _entries(servers: object) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(servers, dict):
        return []
    return [(name, server) for name, server in servers.items() if isinstance(server, dict)]


def _migrate_disabled(servers: object, prefix: str, changes: list[str]) -> None:
    for name, server in _entries(servers):
        disabled = server.get("disabled")
        if not isinstance(disabled, bool):
            continue
        shown = "true" if disabled else "false"
        enabled = server.get("enabled")
        if not isinstance(enabled, bool):
            server["enabled"] = not disabled
            changes.append(f"Moved {prefix}.{name}.disabled {shown} → enabled {'false' if disabled else 'true'}.")
        else:
            changes.append(
                f"Removed {prefix}.{name}.disabled {shown} because enabled is already set to "
                f"{'true' if enabled else 'false'}."
            )
        del server["disabled"]


def _migrate_timeouts(servers: object, prefix: str, changes: list[str]) -> None:
    for name, server in _entries(servers):
        for alias, canonical in _TIMEOUT_ALIASES:
            if alias not in server:
                continue
            value = server[alias]
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if canonical not in server and number and value > 0 and math.isfinite(value * 1000):
                server[canonical] = value * 1000
                changes.append(f"Moved {prefix}.{name}.{alias} → {canonical} ({js_number(value * 1000)} ms).")
            else:
                changes.append(f"Removed {prefix}.{name}.{alias} ({canonical} already set or alias invalid).")
            del server[alias]


def _migrate_aliases(servers: object, prefix: str, changes: list[str]) -> None:
    if not isinstance(servers, dict):
        return
    for name, server in _entries(servers):
        if not _has_aliases(server):
            continue
        normalized = canonicalize_server(server)
        if list(normalized.items()) == list(server.items()):
            continue
        servers[name] = normalized
        changes.append(f"Canonicalized legacy aliases in {prefix}.{name}.")


def _migrate_types(servers: object, changes: list[str]) -> None:
    for name, server in _entries(servers):
        raw = server.get("type")
        if not is_known_type_alias(raw):
            continue
        shown = raw if isinstance(raw, str) else ""
        alias = transport_for_type_alias(raw)
        transport = server.get("transport")
        if not isinstance(transport, str) and alias is not None:
            server["transport"] = alias
            changes.append(f'Moved mcp.servers.{name}.type "{shown}" → transport "{alias}".')
        elif isinstance(transport, str):
            changes.append(f'Removed mcp.servers.{name}.type (transport "{transport}" already set).')
        else:
            changes.append(f'Removed mcp.servers.{name}.type "{shown}".')
        del server["type"]


def _servers(document: dict[str, Any], *keys: str) -> object:
    cursor: object = document
    for key in keys:
        cursor = cursor.get(key) if isinstance(cursor, dict) else None
    return cursor


def migrate_legacy_mcp(document: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The doctor's ``mcp.servers.canonicalize`` migration on a copy of the authored ``document``: ``disabled``
    → ``enabled``, timeout aliases → ``…Ms`` (seconds × 1000), snake_case/``workingDirectory`` aliases →
    canonical keys, CLI ``type`` aliases → ``transport``; for ``mcp.servers`` and ``nodeHost.mcp.servers``
    (``type`` only for ``mcp.servers``). Returns the new document and the change lines, in the reference's
    order; no other section is touched."""
    doc = copy.deepcopy(document)
    changes: list[str] = []
    for prefix, keys in (("mcp.servers", ("mcp", "servers")), ("nodeHost.mcp.servers", ("nodeHost", "mcp", "servers"))):
        servers = _servers(doc, *keys)
        _migrate_disabled(servers, prefix, changes)
        _migrate_timeouts(servers, prefix, changes)
        _migrate_aliases(servers, prefix, changes)
    _migrate_types(_servers(doc, "mcp", "servers"), changes)
    return doc, changes
