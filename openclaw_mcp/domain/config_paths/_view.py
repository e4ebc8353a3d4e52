"""The ``mcp`` block as ``openclaw config get`` prints it: schema key order, zod's trims, secrets redacted
(upstream ``src/config/redact-snapshot.ts``)."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any, Final

from openclaw_mcp.domain.config_doc import is_sensitive_path
from openclaw_mcp.domain.config_paths._schema import (
    APPS_FIELDS,
    CODEX_FIELDS,
    FILTER_FIELDS,
    MCP_FIELDS,
    OAUTH_FIELDS,
    SERVER_FIELDS,
)
from openclaw_mcp.domain.redaction import redact_sensitive_url
from openclaw_mcp.jscompat.text import js_trim

__all__ = ["REDACTED", "mcp_view"]

REDACTED: Final = "__OPENCLAW_REDACTED__"
_PLACEHOLDER = re.compile(r"\$\{[^}]*\}")


def _ordered(value: object, fields: Sequence[str], open_object: bool) -> object:
    if not isinstance(value, dict):
        return value
    out = {key: value[key] for key in fields if key in value}
    if open_object:
        out.update((key, item) for key, item in value.items() if key not in out)
    return out


def _trimmed_list(value: object) -> object:
    return [js_trim(item) if isinstance(item, str) else item for item in value] if isinstance(value, list) else value


def _server_view(server: object) -> object:
    shown = _ordered(server, SERVER_FIELDS, open_object=True)
    if not isinstance(shown, dict):
        return shown
    oauth = _ordered(shown.get("oauth"), OAUTH_FIELDS, open_object=False)
    if isinstance(oauth, dict):
        for key in ("authProfileId", "scope"):
            if isinstance(oauth.get(key), str):
                oauth[key] = js_trim(oauth[key])
        shown["oauth"] = oauth
    tool_filter = _ordered(shown.get("toolFilter"), FILTER_FIELDS, open_object=False)
    if isinstance(tool_filter, dict):
        shown["toolFilter"] = {key: _trimmed_list(item) for key, item in tool_filter.items()}
    codex = _ordered(shown.get("codex"), CODEX_FIELDS, open_object=False)
    if isinstance(codex, dict):
        if "agents" in codex:
            codex["agents"] = _trimmed_list(codex["agents"])
        shown["codex"] = codex
    return shown


def _concrete(value: str) -> bool:
    trimmed = js_trim(value)
    return trimmed != "" and _PLACEHOLDER.fullmatch(trimmed) is None


def _redact_open(value: Any, path: str) -> Any:
    """The reference's path heuristics below a node that has no schema hints."""
    if isinstance(value, list):
        item_path = f"{path}[]"
        sensitive = is_sensitive_path(path)
        return [
            REDACTED if isinstance(item, str) and sensitive and _concrete(item) else _redact_open(item, item_path)
            for item in value
        ]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        child = f"{path}.{key}"
        if isinstance(item, str) and is_sensitive_path(child) and _concrete(item):
            out[key] = REDACTED
        else:
            out[key] = _redact_open(item, child)
    return out


def _redact_server(server: Any) -> Any:
    if not isinstance(server, dict):
        return server
    out: dict[str, Any] = {}
    for key, item in server.items():
        path = f"mcp.servers.*.{key}"
        if key in ("env", "headers") and isinstance(item, dict):
            out[key] = {
                name: (
                    REDACTED
                    if (isinstance(entry, str) and _concrete(entry)) or isinstance(entry, int | float)
                    else entry
                )
                for name, entry in item.items()
            }
        elif isinstance(item, str) and is_sensitive_path(path) and _concrete(item):
            out[key] = REDACTED
        elif key == "url" and isinstance(item, str):
            out[key] = REDACTED if redact_sensitive_url(item) != item else item
        else:
            out[key] = _redact_open(item, path)
    return out


def mcp_view(mcp: object) -> object:
    """The ``mcp`` block as ``config get`` shows it: schema key order (unknown server keys after the known
    ones), zod's trims, and secrets replaced by ``__OPENCLAW_REDACTED__`` (every ``env``/``headers`` value,
    a ``url`` the URL redactor would change, keys matching the sensitive-path patterns)."""
    shown = _ordered(copy.deepcopy(mcp), MCP_FIELDS, open_object=False)
    if not isinstance(shown, dict):
        return shown
    servers = shown.get("servers")
    if isinstance(servers, dict):
        shown["servers"] = {name: _redact_server(_server_view(server)) for name, server in servers.items()}
    if "apps" in shown:
        shown["apps"] = _redact_open(_ordered(shown["apps"], APPS_FIELDS, open_object=False), "mcp.apps")
    return shown
