"""``openclaw config get/set/unset`` and ``openclaw doctor`` rules for the ``mcp`` section: path syntax, the
``mcp`` schema's path shape, reading and editing by path, the value parser of ``config set``, the view ``get``
prints (schema key order, redaction), the gateway-apply hint, and the doctor's legacy-key migration
(spec cli-registry §1.4; upstream ``src/shared/dot-path.ts``, ``src/cli/config-cli-path.ts``,
``src/config/redact-snapshot.ts``, ``src/gateway/config-reload-plan.ts``,
``doctor/shared/legacy-config-migrations.runtime.mcp.ts``).

Pure: no I/O. Paths are lists of tokens: ``str`` for keys (also ``"0"`` written with dots), ``int`` for an
unquoted bracket index (``args[0]``).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from openclaw_mcp.domain.canonical import canonicalize_server, is_known_type_alias, transport_for_type_alias
from openclaw_mcp.domain.config_doc import is_sensitive_path
from openclaw_mcp.domain.redaction import redact_sensitive_url
from openclaw_mcp.jscompat.jsjson import js_number, js_string
from openclaw_mcp.jscompat.json5 import Json5Error, parse_json5
from openclaw_mcp.jscompat.jsonstrict import JsonSyntaxError, parse_json_strict
from openclaw_mcp.jscompat.text import js_trim, utf16_len, utf16_truncate

__all__ = [
    "REDACTED",
    "ConfigPath",
    "PathError",
    "SetValueError",
    "Token",
    "apply_hint",
    "changed_leaf_paths",
    "format_path",
    "get_at",
    "is_known_mcp_path",
    "mcp_view",
    "migrate_legacy_mcp",
    "outside_mcp_message",
    "parse_path",
    "parse_set_value",
    "quote_cli_arg",
    "set_at",
    "unset_at",
]

Token = str | int
REDACTED: Final = "__OPENCLAW_REDACTED__"
_BLOCKED_KEYS: Final = frozenset({"__proto__", "prototype", "constructor"})
_INDEX = re.compile(r"(?:0|[1-9][0-9]*)")
_MAX_INDEX: Final = 100_000
_PLAIN_SEGMENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$:-]*")
_SAFE_CLI_ARG = re.compile(r"[A-Za-z0-9_/:=.,@%+-]+")
_PLACEHOLDER = re.compile(r"\$\{[^}]*\}")


class PathError(ValueError):
    """A config path that does not parse; ``str()`` is the reference's message."""


class SetValueError(ValueError):
    """A ``config set`` value that is refused; ``str()`` is the reference's message."""


@dataclass(frozen=True, slots=True)
class ConfigPath:
    """A parsed path: its tokens and the indices of tokens that were quoted numeric keys (``["0"]``)."""

    raw: str
    tokens: tuple[Token, ...]
    quoted_numeric: frozenset[int] = field(default_factory=frozenset)

    @property
    def keys(self) -> list[str]:
        """The tokens as strings (the reference's string-segment path)."""
        return [str(token) for token in self.tokens]


def outside_mcp_message(raw: str) -> str:
    """Our refusal of a path outside the ``mcp`` section (the reference would edit it)."""
    return f'openclaw-mcp manages only the mcp section; "{raw}" is outside it.'


def _array_index(segment: str) -> int | None:
    """``parseConfigPathArrayIndex``: a canonical non-negative integer up to 100 000."""
    if _INDEX.fullmatch(segment) is None:
        return None
    index = int(segment)
    return index if index <= _MAX_INDEX else None


# -- parsing --------------------------------------------------------------------------------------


def _quoted_segment(value: str) -> str:
    """A quoted bracket segment (``"a.b"`` as JSON, ``'a.b'`` with JavaScript-like escapes)."""
    quote = '"' if value.startswith('"') else "'"
    if quote == '"':
        try:
            parsed = parse_json_strict(value)
        except JsonSyntaxError:
            parsed = None
        if isinstance(parsed, str):
            return parsed
    if not value.endswith(quote) or len(value) < 2:
        raise ValueError("Unterminated quoted path segment")
    out: list[str] = []
    index = 1
    inner_end = len(value) - 1
    while index < inner_end:
        char = value[index]
        if char == quote:
            raise ValueError("Unexpected quote in path segment")
        if char != "\\":
            out.append(char)
            index += 1
            continue
        if index + 1 >= inner_end:
            raise ValueError("Unterminated escape in path segment")
        escaped = value[index + 1]
        index += 2
        if escaped in "\n\u2028\u2029":
            continue
        if escaped == "\r":
            if index < inner_end and value[index] == "\n":
                index += 1
            continue
        if escaped == "x":
            digits = value[index : index + 2]
            if re.fullmatch(r"[0-9a-fA-F]{2}", digits) is None:
                raise ValueError("Invalid hexadecimal escape in path segment")
            out.append(chr(int(digits, 16)))
            index += 2
            continue
        if escaped == "0":
            if index < len(value) and value[index].isdigit():
                raise ValueError("Invalid numeric escape in path segment")
            out.append("\0")
            continue
        if escaped in "123456789":
            raise ValueError("Invalid numeric escape in path segment")
        if escaped == "u":
            digits = value[index : index + 4]
            if re.fullmatch(r"[0-9a-fA-F]{4}", digits) is None:
                raise ValueError("Bad Unicode escape in path segment")
            out.append(chr(int(digits, 16)))
            index += 4
            continue
        out.append({"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}.get(escaped, escaped))
    return "".join(out)


def _bracket_segment(inside: str, raw: str) -> Token:
    trimmed = js_trim(inside)
    if trimmed.startswith(('"', "'")):
        try:
            parsed = _quoted_segment(trimmed)
        except ValueError:
            parsed = ""
        if js_trim(parsed):
            return parsed
        raise PathError(f"Invalid path bracket string ({trimmed}): {raw}")
    index = _array_index(trimmed)
    return trimmed if index is None else index


def _bracket_close(path: str, start: int) -> int:
    quote: str | None = None
    index = start + 1
    while index < len(path):
        char = path[index]
        if quote is not None:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = None
        elif char == "]":
            return index
        elif char in "\"'" and not js_trim(path[start + 1 : index]):
            quote = char
        index += 1
    return -1


def parse_path(raw: str) -> ConfigPath:
    """``parseConcreteConfigPathWithProvenance``: dots, backslash escapes and brackets; raises ``PathError``."""
    text = js_trim(raw)
    if not text:
        raise PathError("Path is empty.")
    parts: list[Token] = []
    quoted_numeric: set[int] = set()
    current = ""
    emitted = False
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            if index + 1 >= len(text):
                raise PathError(f"Invalid path (trailing escape): {raw}")
            current += text[index + 1]
            index += 2
            continue
        if char == ".":
            if current and not js_trim(current):
                raise PathError(f"Invalid path (empty segment): {raw}")
            if not emitted and not js_trim(current):
                raise PathError(f"Invalid path (empty segment): {raw}")
            if current:
                parts.append(js_trim(current))
            current = ""
            emitted = False
            index += 1
            continue
        if char == "[":
            if current and not js_trim(current):
                raise PathError(f"Invalid path (empty segment): {raw}")
            if not js_trim(current) and not emitted and parts:
                raise PathError(f"Invalid path (empty segment): {raw}")
            if current:
                parts.append(js_trim(current))
            current = ""
            close = _bracket_close(text, index)
            if close == -1:
                raise PathError(f'Invalid path (missing "]"): {raw}')
            inside = js_trim(text[index + 1 : close])
            if not inside:
                raise PathError(f'Invalid path (empty "[]"): {raw}')
            segment = _bracket_segment(inside, raw)
            if isinstance(segment, str) and inside.startswith(('"', "'")) and _array_index(segment) is not None:
                quoted_numeric.add(len(parts))
            parts.append(segment)
            following = text[close + 1] if close + 1 < len(text) else None
            if following is not None and following not in ".[":
                raise PathError(f"Invalid path (missing separator after bracket): {raw}")
            emitted = True
            index = close + 1
            continue
        current += char
        index += 1
    if not emitted and not js_trim(current):
        raise PathError(f"Invalid path (empty segment): {raw}")
    if current:
        parts.append(js_trim(current))
    for part in parts:
        if isinstance(part, str) and part in _BLOCKED_KEYS:
            raise PathError(f"Invalid path segment: {part}")
    return ConfigPath(raw, tuple(parts), frozenset(quoted_numeric))


def _append_segment(path: str, segment: Token) -> str:
    if isinstance(segment, int):
        return f"{path}[{segment}]"
    if _PLAIN_SEGMENT.fullmatch(segment) is None:
        return f"{path}[{js_string(segment)}]"
    return f"{path}.{segment}" if path else segment


def format_path(tokens: Sequence[Token], source: object = None) -> str:
    """``formatConcreteConfigPath``: how ``Updated …`` / ``Removed …`` / ``Config path not found`` name a path
    (a string index into an array of ``source`` is shown as ``[n]``)."""
    cursor: object = source
    out = ""
    for token in tokens:
        segment: Token = token
        if isinstance(token, str) and isinstance(cursor, list):
            index = _array_index(token)
            segment = token if index is None else index
        if isinstance(cursor, dict):
            cursor = cursor.get(str(token))
        elif isinstance(cursor, list):
            position = _array_index(str(token))
            cursor = cursor[position] if position is not None and position < len(cursor) else None
        else:
            cursor = None
        out = _append_segment(out, segment)
    return out


def quote_cli_arg(value: str) -> str:
    """A shell-safe rendering of ``value`` for a suggested command (POSIX single quotes when needed)."""
    if _SAFE_CLI_ARG.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


# -- the mcp schema's shape -------------------------------------------------------------------------

_SERVER_FIELDS: Final = (
    "enabled",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "transport",
    "headers",
    "connectionTimeoutMs",
    "requestTimeoutMs",
    "supportsParallelToolCalls",
    "auth",
    "oauth",
    "sslVerify",
    "clientCert",
    "clientKey",
    "toolFilter",
    "codex",
)
_MCP_FIELDS: Final = ("sessionIdleTtlMs", "servers", "apps")
_APPS_FIELDS: Final = ("enabled", "sandboxOrigin", "sandboxPort")
_OAUTH_FIELDS: Final = ("identity", "authProfileId", "scope", "redirectUrl", "clientMetadataUrl")
_FILTER_FIELDS: Final = ("include", "exclude")
_CODEX_FIELDS: Final = ("agents", "defaultToolsApprovalMode")

# kind of a node: "leaf", "array" (of leaves), "map" (of leaves), "object" (fields), "any" (open value)
_SERVER_KINDS: Final[dict[str, str]] = {
    "args": "array",
    "env": "map",
    "headers": "map",
    "oauth": "oauth",
    "toolFilter": "toolFilter",
    "codex": "codex",
}


def _node_kind(keys: Sequence[str]) -> str | None:
    """The schema node at an ``mcp`` path: a kind name, or ``None`` when the schema has no such path."""
    if not keys or keys[0] != "mcp":
        return None
    rest = list(keys[1:])
    if not rest:
        return "mcp"
    head = rest.pop(0)
    if head == "sessionIdleTtlMs":
        return "leaf" if not rest else None
    if head == "apps":
        if not rest:
            return "apps"
        return "leaf" if len(rest) == 1 and rest[0] in _APPS_FIELDS else None
    if head != "servers":
        return None
    if not rest:
        return "servers"
    rest.pop(0)  # the server name
    if not rest:
        return "server"
    name = rest.pop(0)
    kind = _SERVER_KINDS.get(name, "leaf")
    if not rest:
        return kind
    if kind in ("array", "map"):
        if kind == "array" and _array_index(rest[0]) is None:
            return None
        return "leaf" if len(rest) == 1 else None
    fields = {"oauth": _OAUTH_FIELDS, "toolFilter": _FILTER_FIELDS, "codex": _CODEX_FIELDS}.get(kind)
    if fields is None or rest[0] not in fields:
        return None
    inner = "array" if rest[0] in ("include", "exclude", "agents") else "leaf"
    if len(rest) == 1:
        return inner
    if inner == "array" and len(rest) == 2 and _array_index(rest[1]) is not None:
        return "leaf"
    return None


def is_known_mcp_path(keys: Sequence[str]) -> bool:
    """Whether the config schema has this path (``Config path is valid but unset`` vs ``Unknown config path``)."""
    return _node_kind(keys) is not None


# -- reading and editing by path ----------------------------------------------------------------------


def get_at(root: object, keys: Sequence[str]) -> tuple[bool, Any]:
    """``getAtPath``: (found, value); arrays take index segments only."""
    current: Any = root
    for key in keys:
        if isinstance(current, list):
            index = _array_index(key)
            if index is None or index >= len(current):
                return False, None
            current = current[index]
        elif isinstance(current, dict):
            if key not in current:
                return False, None
            current = current[key]
        else:
            return False, None
    return True, current


def _new_container(path: ConfigPath, position: int) -> list[Any] | dict[str, Any]:
    """What to create for a missing segment: an array when the next token is an index the schema wants
    as one (an unquoted bracket index always is), else an object."""
    tokens = path.tokens
    following = tokens[position + 1]
    if isinstance(following, int):
        return []
    if _array_index(following) is None or (position + 1) in path.quoted_numeric:
        return {}
    kind = _node_kind(path.keys[: position + 1])
    return {} if kind in ("map", "server", "servers", "mcp", "apps", "oauth", "toolFilter", "codex") else []


def _assign(container: list[Any] | dict[str, Any], key: str, value: Any) -> None:
    if isinstance(container, list):
        index = _array_index(key)
        if index is None:
            raise PathError(f'Expected numeric index for array segment "{key}"')
        while len(container) <= index:
            container.append(None)
        container[index] = value
    else:
        container[key] = value


def set_at(root: dict[str, Any], path: ConfigPath, value: Any) -> None:
    """``setAtPath`` on ``root`` (changed in place); raises ``PathError`` for a path through a scalar."""
    keys = path.keys
    current: Any = root
    for position, key in enumerate(keys[:-1]):
        if isinstance(current, list):
            index = _array_index(key)
            if index is None:
                raise PathError(f'Expected numeric index for array segment "{key}"')
            existing = current[index] if index < len(current) else None
        elif isinstance(current, dict):
            existing = current.get(key)
        else:
            raise PathError(f'Cannot traverse into "{key}" (not an object)')
        if not isinstance(existing, dict | list):
            existing = _new_container(path, position)
            _assign(current, key, existing)
        current = existing
    if not isinstance(current, dict | list):
        raise PathError(f'Cannot set "{keys[-1]}" (parent is not an object)')
    _assign(current, keys[-1], value)


def unset_at(root: dict[str, Any], keys: Sequence[str]) -> bool:
    """``unsetAtPath`` on ``root`` (changed in place); whether something was removed."""
    found, parent = get_at(root, keys[:-1])
    last = keys[-1]
    if not found:
        return False
    if isinstance(parent, list):
        index = _array_index(last)
        if index is None or index >= len(parent):
            return False
        del parent[index]
        return True
    if isinstance(parent, dict) and last in parent:
        del parent[last]
        return True
    return False


# -- the set value ------------------------------------------------------------------------------------


def _check_finite(value: Any) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        shown = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        raise SetValueError(f"Value must be a finite number, got {shown}")
    if isinstance(value, list):
        for item in value:
            _check_finite(item)
    elif isinstance(value, dict):
        for item in value.values():
            _check_finite(item)


def _strict_failure(raw: str, cause: str) -> str:
    preview = raw if utf16_len(raw) <= 48 else utf16_truncate(raw, 45).rstrip() + "..."
    reason = re.sub(r"[.。]+$", "", cause.strip())
    return (
        f"Could not parse {js_string(preview)} as JSON for --strict-json. {reason}. Use valid JSON. For structured "
        "changes, use a JSON5 config patch object file with `openclaw config patch --file <path> --dry-run`. "
        "For plain strings, omit --strict-json."
    )


def parse_set_value(raw: str, *, strict: bool) -> Any:
    """``parseConfigSetValue``: strict JSON (``--strict-json``), else JSON5 with the raw text as fallback."""
    trimmed = js_trim(raw)
    if strict:
        try:
            value = parse_json_strict(trimmed)
        except JsonSyntaxError as exc:
            raise SetValueError(_strict_failure(raw, exc.message)) from exc
    else:
        try:
            value = parse_json5(trimmed)
        except Json5Error:
            return raw
    _check_finite(value)
    return value


# -- the view `config get` prints ---------------------------------------------------------------------


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
    shown = _ordered(server, _SERVER_FIELDS, open_object=True)
    if not isinstance(shown, dict):
        return shown
    oauth = _ordered(shown.get("oauth"), _OAUTH_FIELDS, open_object=False)
    if isinstance(oauth, dict):
        for key in ("authProfileId", "scope"):
            if isinstance(oauth.get(key), str):
                oauth[key] = js_trim(oauth[key])
        shown["oauth"] = oauth
    tool_filter = _ordered(shown.get("toolFilter"), _FILTER_FIELDS, open_object=False)
    if isinstance(tool_filter, dict):
        shown["toolFilter"] = {key: _trimmed_list(item) for key, item in tool_filter.items()}
    codex = _ordered(shown.get("codex"), _CODEX_FIELDS, open_object=False)
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
    shown = _ordered(copy.deepcopy(mcp), _MCP_FIELDS, open_object=False)
    if not isinstance(shown, dict):
        return shown
    servers = shown.get("servers")
    if isinstance(servers, dict):
        shown["servers"] = {name: _redact_server(_server_view(server)) for name, server in servers.items()}
    if "apps" in shown:
        shown["apps"] = _redact_open(_ordered(shown["apps"], _APPS_FIELDS, open_object=False), "mcp.apps")
    return shown


# -- after a write: does the gateway need a restart? --------------------------------------------------


def _leaves(value: object, prefix: str) -> list[str]:
    if not isinstance(value, dict) or not value:
        return [prefix]
    return [leaf for key, item in value.items() for leaf in _leaves(item, f"{prefix}.{key}")]


def changed_leaf_paths(before: object, after: object, prefix: str = "mcp") -> list[str]:
    """Dotted paths whose values differ; an object that appears or disappears counts by its leaves."""
    if before == after and type(before) is type(after):
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        keys = list(dict.fromkeys([*before, *after]))
        return [path for key in keys for path in changed_leaf_paths(before.get(key), after.get(key), f"{prefix}.{key}")]
    if before is None:
        return _leaves(after, prefix)
    if after is None:
        return _leaves(before, prefix)
    return [prefix]


def _is_under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + ".")


def apply_hint(paths: Sequence[str], *, reload_off: bool) -> str:
    """The sentence after ``Updated …``/``Removed …``: ``mcp.apps`` (but not ``mcp.apps.sandboxOrigin``) needs
    a restart, the rest of ``mcp`` reloads hot (unless ``gateway.reload.mode`` is ``off``)."""
    if not paths:
        return "No gateway restart needed."
    restart = any(_is_under(p, "mcp.apps") and not _is_under(p, "mcp.apps.sandboxOrigin") for p in paths)
    if restart or reload_off:
        return "Restart the gateway to apply."
    return "Change will apply without restarting the gateway."


# -- doctor: the legacy MCP keys ------------------------------------------------------------------------

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
