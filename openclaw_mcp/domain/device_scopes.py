"""The scopes stored with a Gateway device token (the reference's ``normalizeDeviceAuthScopes``)."""

from __future__ import annotations

from typing import Any

from openclaw_mcp.jscompat.text import utf16_key

__all__ = ["normalize_device_auth_scopes"]


def normalize_device_auth_scopes(scopes: list[Any]) -> list[str]:
    """Trimmed, de-duplicated, implied operator scopes added (admin ⇒ read + write, write ⇒ read), sorted
    by UTF-16 code units."""
    out: dict[str, None] = {}
    for scope in scopes:
        if isinstance(scope, str) and scope.strip():
            out[scope.strip()] = None
    if "operator.admin" in out:
        out["operator.read"] = None
        out["operator.write"] = None
    elif "operator.write" in out:
        out["operator.read"] = None
    return sorted(out, key=utf16_key)
