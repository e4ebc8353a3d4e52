"""Validation of openclaw.json (the root, the tool-policy fields, the ``mcp`` block), with the reference's
messages and order.

Spec cli-registry §1.2 (items 3, 6), §1.3, §1.4, §2.1–§2.3, D8. The reference validates the config with a
zod 4 schema (upstream: ``src/config/zod-schema.mcp-server.ts`` ``McpServerSchema``, ``McpConfigSchema``)
and decorates zod's messages (``src/config/validation-issues.ts``). This module reproduces what that
produces for the root and the ``mcp`` block; the tool-policy fields of ``agents`` and ``tools`` are checked
by :mod:`domain.validation_tools`; everything else is opaque (D8).

The zod evaluation rules that decide *which* issues appear, and in what order:

* an object reports its known fields in schema order, then one ``Unrecognized key(s)`` issue for unknown
  keys of a strict object, then its refinements (the server's cross-field rules);
* a record or array reports its entries in JavaScript property order / index order;
* refinements and most checks only run while no *aborting* issue was found in the value so far. Type
  mismatches, enum/literal/union failures and ``int`` failures abort; ``Invalid URL``, the URL protocol
  refinements, numeric bounds, ``Too small`` lengths, the agent-name pattern and unknown keys do not. So a
  server's cross-field rules still run next to a ``Too small`` or ``Invalid URL`` issue;
* length checks (``min(1)``) also run after a type mismatch when the value has a ``length``: ``scope: []``
  reports ``expected string, received array`` *and* ``Too small: expected array to have >=1 items``;
* strings are trimmed (JavaScript ``trim``) before ``min(1)`` and the pattern; a URL is trimmed before it
  is parsed, and the trimmed text is what the protocol refinement and the cross-field rules see.

Keys named ``__proto__`` never reach the reference's schema (its reader does not keep them as own keys);
only a server named ``__proto__`` is reported, before every other issue.

The issue model and zod's issue texts are in :mod:`domain.config_issues`; the ``Legacy config keys``
lines in :mod:`domain.config_legacy`.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final, TypeGuard

from openclaw_mcp.domain.config_issues import (
    Collector,
    FieldCheck,
    Issue,
    Path,
    ValidatorThrew,
    expected,
    too_small_length,
    unrecognized,
)
from openclaw_mcp.domain.validation_tools import check_agents, check_tools
from openclaw_mcp.jscompat.jsjson import js_ordered_keys, js_truthy
from openclaw_mcp.jscompat.numbers import MAX_SAFE_INTEGER
from openclaw_mcp.jscompat.text import js_trim
from openclaw_mcp.jscompat.urls import Url, parse_url

__all__ = [
    "RESERVED_SERVER_NAME",
    "ROOT_KEYS",
    "validate_config",
]

RESERVED_SERVER_NAME: Final = "__proto__"

_RESERVED_NAME_MESSAGE: Final = 'MCP server name "__proto__" is reserved; rename the server'
_BOOLEAN_ALLOWED: Final = ("true", "false")
_TRANSPORTS: Final = ("stdio", "sse", "streamable-http")
_IDENTITIES: Final = ("shared", "per-requester")
_APPROVAL_MODES: Final = ("auto", "prompt", "approve")
_AGENT_PATTERN = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}")
_AGENT_PATTERN_TEXT: Final = "/^[a-z0-9][a-z0-9_-]{0,63}$/i"
_RETIRED_SERVER_KEYS: Final = (
    "connectTimeout",
    "connect_timeout",
    "timeout",
    "workingDirectory",
    "supports_parallel_tool_calls",
    "ssl_verify",
    "client_cert",
    "client_key",
)


# --- helpers ----------------------------------------------------------------------------------------------


def _is_finite_number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def _strip_proto(value: Any) -> Any:
    """``value`` without ``__proto__`` keys at any depth (the reference's reader never keeps them): a copy
    when it has one, else ``value`` itself (validation only reads what it checks)."""
    return _copy_without_proto(value) if _has_proto(value) else value


def _has_proto(value: Any) -> bool:
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, dict):
            if RESERVED_SERVER_NAME in current:
                return True
            pending.extend(current.values())
        elif isinstance(current, list):
            pending.extend(current)
    return False


def _copy_without_proto(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy_without_proto(item) for key, item in value.items() if key != RESERVED_SERVER_NAME}
    if isinstance(value, list):
        return [_copy_without_proto(item) for item in value]
    return value


# --- leaf schemas -----------------------------------------------------------------------------------------


def _boolean(value: object, path: Path, out: Collector) -> object:
    if not isinstance(value, bool):
        out.add(
            path,
            f"{expected('boolean', value)} (allowed: true, false)",
            aborts=True,
            allowed=_BOOLEAN_ALLOWED,
        )
    return value


def _string(value: object, path: Path, out: Collector) -> object:
    if not isinstance(value, str):
        out.add(path, expected("string", value), aborts=True)
    return value


def _number(value: object, path: Path, out: Collector) -> TypeGuard[int | float]:
    """zod ``number()``: finite numbers only. True when the value passed (checks may follow)."""
    if _is_finite_number(value):
        return True
    out.add(path, expected("number", value), aborts=True)
    return False


def _positive_number(value: object, path: Path, out: Collector) -> object:
    if _number(value, path, out) and not value > 0:
        out.add(path, "Too small: expected number to be >0 (must be greater than 0)", aborts=False)
    return value


def _non_negative_number(value: object, path: Path, out: Collector) -> object:
    if _number(value, path, out) and not value >= 0:
        out.add(path, "Too small: expected number to be >=0 (minimum: 0)", aborts=False)
    return value


def _port(value: object, path: Path, out: Collector) -> object:
    """``number().int().min(1).max(65535)``."""
    if not _number(value, path, out):
        return value
    if isinstance(value, float) and not value.is_integer():
        out.add(path, "Invalid input: expected int, received number", aborts=True)
        return value
    if value > MAX_SAFE_INTEGER:
        out.add(path, f"Too big: expected int to be <={MAX_SAFE_INTEGER}", aborts=False)
    elif value < -MAX_SAFE_INTEGER:
        out.add(path, f"Too small: expected int to be >=-{MAX_SAFE_INTEGER}", aborts=False)
    if value < 1:
        out.add(path, "Too small: expected number to be >=1 (minimum: 1)", aborts=False)
    if value > 65535:
        out.add(path, "Too big: expected number to be <=65535 (maximum: 65535)", aborts=False)
    return value


def _choice(values: tuple[str, ...]) -> FieldCheck:
    """zod ``enum([...])``."""
    listed = "|".join(f'"{v}"' for v in values)

    def check(value: object, path: Path, out: Collector) -> object:
        if not (isinstance(value, str) and value in values):
            out.add(path, f"Invalid option: expected one of {listed}", aborts=True, allowed=values)
        return value

    return check


def _transport(value: object, path: Path, out: Collector) -> object:
    """A union of the three transport literals."""
    if not (isinstance(value, str) and value in _TRANSPORTS):
        hint = ", ".join(f'"{v}"' for v in _TRANSPORTS)
        out.add(path, f"Invalid input (allowed: {hint})", aborts=True, allowed=_TRANSPORTS)
    return value


def _oauth_literal(value: object, path: Path, out: Collector) -> object:
    if value != "oauth" or not isinstance(value, str):
        out.add(path, 'Invalid input: expected "oauth" (allowed: "oauth")', aborts=True, allowed=("oauth",))
    return value


def _trimmed_non_empty(value: object, path: Path, out: Collector) -> object:
    """``string().trim().min(1)``; returns the trimmed text (what refinements see)."""
    if not isinstance(value, str):
        out.add(path, expected("string", value), aborts=True)
        if isinstance(value, list) and not value:
            out.add(path, too_small_length(value), aborts=False)
        return value
    trimmed = js_trim(value)
    if not trimmed:
        out.add(path, too_small_length(trimmed), aborts=False)
    return trimmed


def _agent_name(value: object, path: Path, out: Collector) -> object:
    """``string().trim().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/i)``."""
    if not isinstance(value, str):
        out.add(path, expected("string", value), aborts=True)
        return value
    trimmed = js_trim(value)
    if _AGENT_PATTERN.fullmatch(trimmed) is None:
        out.add(path, f"Invalid string: must match pattern {_AGENT_PATTERN_TEXT}", aborts=False)
    return trimmed


def _non_empty_array(element: FieldCheck) -> FieldCheck:
    """``array(element).min(1)``."""

    def check(value: object, path: Path, out: Collector) -> object:
        if not isinstance(value, list):
            out.add(path, expected("array", value), aborts=True)
            if isinstance(value, str) and not value:
                out.add(path, too_small_length(value), aborts=False)
            return value
        parsed = [element(item, (*path, index), out) for index, item in enumerate(value)]
        if not value:
            out.add(path, too_small_length(value), aborts=False)
        return parsed

    return check


def _string_array(value: object, path: Path, out: Collector) -> object:
    """``array(string())`` (no length bound)."""
    if not isinstance(value, list):
        out.add(path, expected("array", value), aborts=True)
        return value
    for index, item in enumerate(value):
        _string(item, (*path, index), out)
    return value


def _scalar_record(value: object, path: Path, out: Collector) -> object:
    """``record(string(), string | number | boolean)`` (``env``, ``headers``)."""
    if not isinstance(value, dict):
        out.add(path, expected("record", value), aborts=True)
        return value
    for key in js_ordered_keys(value):
        item = value[key]
        if not (isinstance(item, str | bool) or _is_finite_number(item)):
            out.add((*path, key), "Invalid input", aborts=True)
    return value


def _trimmed_url(value: str) -> tuple[Url | None, str]:
    """zod's ``url()`` check: the parse of the trimmed text, and the value later checks see."""
    trimmed = js_trim(value)
    parsed = parse_url(trimmed)
    if parsed is None:
        return None, value
    return parsed, trimmed.replace("\t", "").replace("\n", "").replace("\r", "")


def _is_http(url: Url | None) -> bool:
    return url is not None and url.protocol in ("http:", "https:")


def _http_url(value: object, path: Path, out: Collector) -> object:
    """``string().url().refine(isHttpUrl, "Expected http:// or https:// URL")``."""
    if not isinstance(value, str):
        out.add(path, expected("string", value), aborts=True)
        return value
    parsed, seen = _trimmed_url(value)
    if parsed is None:
        out.add(path, "Invalid URL", aborts=False)
    if not _is_http(parse_url(seen)):
        out.add(path, "Expected http:// or https:// URL", aborts=False)
    return seen


def _client_metadata_url(value: object, path: Path, out: Collector) -> object:
    """``string().url().refine(https with a non-root path)``; the refinement throws on a non-URL."""
    if not isinstance(value, str):
        out.add(path, expected("string", value), aborts=True)
        return value
    parsed, seen = _trimmed_url(value)
    if parsed is None:
        out.add(path, "Invalid URL", aborts=False)
    url = parse_url(seen)
    if url is None:
        raise ValidatorThrew()
    if not (url.protocol == "https:" and url.pathname != "/"):
        out.add(path, "Expected https:// URL with a non-root pathname", aborts=False)
    return seen


def _sandbox_origin(value: object, path: Path, out: Collector) -> object:
    if not isinstance(value, str):
        out.add(path, expected("string", value), aborts=True)
        return value
    parsed, seen = _trimmed_url(value)
    if parsed is None:
        out.add(path, "Invalid URL", aborts=False)
    url = parse_url(seen)
    if not (
        _is_http(url)
        and url is not None
        and url.pathname == "/"
        and not url.search
        and not url.hash
        and not url.username
        and not url.password
    ):
        out.add(
            path,
            "sandboxOrigin must be an HTTP(S) origin without a path, query, or credentials",
            aborts=False,
        )
    return seen


# --- objects ----------------------------------------------------------------------------------------------


def _object(
    value: object,
    path: Path,
    out: Collector,
    shape: dict[str, FieldCheck],
    *,
    strict: bool,
) -> dict[str, Any] | None:
    """zod ``object``/``strictObject``: fields in shape order, then unknown keys. Returns the parsed
    object (strict objects drop unknown keys), or ``None`` when the value is not an object."""
    if not isinstance(value, dict):
        out.add(path, expected("object", value), aborts=True)
        return None
    parsed: dict[str, Any] = {}
    for key, check in shape.items():
        if key in value:
            parsed[key] = check(value[key], (*path, key), out)
    unknown = [key for key in js_ordered_keys(value) if key not in shape]
    if strict:
        if unknown:
            out.add(path, unrecognized(unknown), aborts=False)
    else:
        for key in unknown:
            parsed[key] = value[key]
    return parsed


def _strict(shape: dict[str, FieldCheck]) -> FieldCheck:
    def check(value: object, path: Path, out: Collector) -> object:
        return _object(value, path, out, shape, strict=True)

    return check


_OAUTH_SHAPE: Final[dict[str, FieldCheck]] = {
    "identity": _choice(_IDENTITIES),
    "authProfileId": _trimmed_non_empty,
    "scope": _trimmed_non_empty,
    "redirectUrl": _http_url,
    "clientMetadataUrl": _client_metadata_url,
}

_TOOL_FILTER_SHAPE: Final[dict[str, FieldCheck]] = {
    "include": _non_empty_array(_trimmed_non_empty),
    "exclude": _non_empty_array(_trimmed_non_empty),
}

_CODEX_SHAPE: Final[dict[str, FieldCheck]] = {
    "agents": _non_empty_array(_agent_name),
    "defaultToolsApprovalMode": _choice(_APPROVAL_MODES),
}

_SERVER_SHAPE: Final[dict[str, FieldCheck]] = {
    "enabled": _boolean,
    "command": _string,
    "args": _string_array,
    "env": _scalar_record,
    "cwd": _string,
    "url": _http_url,
    "transport": _transport,
    "headers": _scalar_record,
    "connectionTimeoutMs": _positive_number,
    "requestTimeoutMs": _positive_number,
    "supportsParallelToolCalls": _boolean,
    "auth": _oauth_literal,
    "oauth": _strict(_OAUTH_SHAPE),
    "sslVerify": _boolean,
    "clientCert": _string,
    "clientKey": _string,
    "toolFilter": _strict(_TOOL_FILTER_SHAPE),
    "codex": _strict(_CODEX_SHAPE),
}

_APPS_SHAPE: Final[dict[str, FieldCheck]] = {
    "enabled": _boolean,
    "sandboxOrigin": _sandbox_origin,
    "sandboxPort": _port,
}


def _server(value: object, path: Path, out: Collector) -> None:
    mark = out.mark()
    data = _object(value, path, out, _SERVER_SHAPE, strict=False)
    if data is None or out.aborted_since(mark):
        return
    _server_cross_field_rules(data, path, out)


def _server_cross_field_rules(data: dict[str, Any], path: Path, out: Collector) -> None:
    """The server's ``superRefine``: retired keys, ``disabled``, per-requester OAuth, ``stdio``."""
    for key in _RETIRED_SERVER_KEYS:
        if key in data:
            out.add(path, f'Unrecognized key: "{key}"', aborts=False)
    if "disabled" in data:
        disabled = data["disabled"]
        if isinstance(disabled, bool):
            replacement = (
                f'"enabled: {"false" if disabled else "true"}" instead, '
                'then run "openclaw doctor --fix" to migrate existing config'
            )
        else:
            replacement = 'the canonical "enabled" boolean instead'
        out.add((*path, "disabled"), f'unsupported key "disabled"; use {replacement}', aborts=False)
    oauth = data.get("oauth")
    if isinstance(oauth, dict) and oauth.get("identity") == "per-requester":
        identity_path = (*path, "oauth", "identity")
        if data.get("auth") != "oauth":
            out.add(identity_path, 'oauth.identity "per-requester" requires auth: "oauth"', aborts=False)
        if js_truthy(oauth.get("authProfileId")):
            out.add(
                (*path, "oauth", "authProfileId"),
                'oauth.authProfileId cannot be used with oauth.identity "per-requester"',
                aborts=False,
            )
        if not js_truthy(data.get("url")):
            out.add(identity_path, 'oauth.identity "per-requester" requires an HTTP server URL', aborts=False)
        if "command" in data or data.get("transport") == "stdio":
            out.add(
                identity_path,
                'oauth.identity "per-requester" cannot be combined with a command or "stdio" transport',
                aborts=False,
            )
    if data.get("transport") == "stdio":
        command = data.get("command")
        if not isinstance(command, str) or not js_trim(command):
            out.add((*path, "transport"), '"stdio" transport requires a non-empty command', aborts=False)


def _servers(value: object, path: Path, out: Collector) -> object:
    if not isinstance(value, dict):
        out.add(path, expected("record", value), aborts=True)
        return value
    for name in js_ordered_keys(value):
        _server(value[name], (*path, name), out)
    return value


# The root schema's keys in its order (2026.9.6 ``OpenClawSchemaShape``); the root is a strict object, so any
# other key makes the whole config invalid (``<root>: Unrecognized key: "big"``). Only ``agents``, ``tools``
# and ``mcp`` are validated further (D8).
ROOT_KEYS: Final = (
    "$schema",
    "meta",
    "env",
    "wizard",
    "diagnostics",
    "logging",
    "update",
    "telemetry",
    "browser",
    "ui",
    "secrets",
    "auth",
    "accessGroups",
    "acp",
    "models",
    "nodeHost",
    "agents",
    "worktreeRoot",
    "worktreeAcceleration",
    "tools",
    "security",
    "bindings",
    "broadcast",
    "attachments",
    "messages",
    "tts",
    "commands",
    "approvals",
    "session",
    "cron",
    "transcripts",
    "hooks",
    "channels",
    "discovery",
    "talk",
    "gateway",
    "cloudWorkers",
    "desktop",
    "memory",
    "mcp",
    "skills",
    "plugins",
    "surfaces",
    "proxy",
)
_ROOT_KEY_SET: Final = frozenset(ROOT_KEYS)

_MCP_SHAPE: Final[dict[str, FieldCheck]] = {
    "sessionIdleTtlMs": _non_negative_number,
    "servers": _servers,
    "apps": _strict(_APPS_SHAPE),
}


# --- public API -------------------------------------------------------------------------------------------


def validate_config(root: object) -> list[Issue]:
    """The issues of a whole config document, as far as the port validates it (D8): the root must be an
    object with only the keys of :data:`ROOT_KEYS`, the tool-policy fields of ``agents`` and ``tools`` must
    satisfy :mod:`domain.validation_tools` and the ``mcp`` block §2.1–§2.3. Empty list = valid.

    Raises ``ValidatorThrew`` where the reference's validator throws (see there).
    """
    out = Collector()
    if not isinstance(root, dict):
        out.add((), expected("object", root), aborts=True)
        return out.issues()
    mcp = root.get("mcp")
    if isinstance(mcp, dict):
        servers = mcp.get("servers")
        if isinstance(servers, dict) and RESERVED_SERVER_NAME in servers:
            out.add(("mcp", "servers", RESERVED_SERVER_NAME), _RESERVED_NAME_MESSAGE, aborts=False)
    # The root schema's order: agents, tools, …, mcp.
    if "agents" in root:
        check_agents(_strip_proto(root["agents"]), ("agents",), out)
    if "tools" in root:
        check_tools(_strip_proto(root["tools"]), ("tools",), out)
    if "mcp" in root:
        _object(_strip_proto(mcp), ("mcp",), out, _MCP_SHAPE, strict=True)
    unknown = [key for key in js_ordered_keys(root) if key not in _ROOT_KEY_SET and key != "__proto__"]
    if unknown:
        out.add((), unrecognized(unknown), aborts=False)
    return out.issues()
