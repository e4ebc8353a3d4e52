"""The local Gateway's port and config credentials as 2026.9.6 resolves them, shared by ``openclaw mcp serve``
(serve-bridge.md §2.1) and ``openclaw-tools`` (openclaw-tools.md §6.3); upstream ``config/paths.ts``
``resolveGatewayPort``, ``trimCredentialToUndefined``."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Final

from openclaw_mcp.jscompat.text import js_trim, js_trim_or_none

__all__ = ["DEFAULT_GATEWAY_PORT", "config_section", "first_present", "resolve_gateway_port", "trim_credential"]

DEFAULT_GATEWAY_PORT: Final = 18789
_ENV_REFERENCE: Final = re.compile(r"(?<!\$)\$\{[A-Z_][A-Z0-9_]*\}")
_PROFILE_NAME: Final = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}")


def config_section(value: object, key: str) -> Mapping[str, Any]:
    """``value[key]`` when both are objects, else ``{}``."""
    if isinstance(value, Mapping):
        inner = value.get(key)
        if isinstance(inner, Mapping):
            return inner
    return {}


def _tcp_port(raw: str) -> int | None:
    if not raw.isascii() or not raw.isdigit():
        return None
    port = int(raw)
    return port if 0 <= port <= 65535 else None


def _port_from_env(raw: str | None) -> int | None:
    trimmed = js_trim(raw) if raw is not None else ""
    if not trimmed:
        return None
    if trimmed.isascii() and trimmed.isdigit():
        return _tcp_port(trimmed)
    bracketed = re.fullmatch(r"\[[^\]]+\]:(\d+)", trimmed)
    if bracketed:
        return _tcp_port(bracketed.group(1))
    first, last = trimmed.find(":"), trimmed.rfind(":")
    if first <= 0 or first != last:
        return None
    return _tcp_port(trimmed[first + 1 :])


def _fnv1a(data: bytes) -> int:
    value = 2166136261
    for byte in data:
        value = ((value ^ byte) * 16777619) & 0xFFFFFFFF
    return value


def resolve_gateway_port(config: Mapping[str, Any], env: Mapping[str, str]) -> int | float:
    """``$OPENCLAW_GATEWAY_PORT`` (digits or ``host:port``) → config ``gateway.port`` (> 0) → a port derived
    from a named ``$OPENCLAW_PROFILE`` → 18789."""
    from_env = _port_from_env(env.get("OPENCLAW_GATEWAY_PORT"))
    if from_env is not None:
        return from_env
    port = config_section(config, "gateway").get("port")
    if isinstance(port, int | float) and not isinstance(port, bool) and math.isfinite(port) and port > 0:
        return port
    profile = js_trim(env.get("OPENCLAW_PROFILE") or "")
    if not profile or profile.lower() == "default" or not _PROFILE_NAME.fullmatch(profile):
        return DEFAULT_GATEWAY_PORT
    return 20000 + _fnv1a(profile.encode("utf-8")) % 40000


def trim_credential(value: object) -> str | None:
    """``trimCredentialToUndefined``: a trimmed non-empty string, rejected while it still holds a ``${VAR}``."""
    trimmed = js_trim_or_none(value)
    if trimmed is not None and _ENV_REFERENCE.search(trimmed):
        return None
    return trimmed


def first_present(*values: str | None) -> str | None:
    """The first non-empty value."""
    return next((value for value in values if value), None)
