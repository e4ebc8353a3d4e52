"""The rules of the MCP settings page (spec mcp-settings-page §3–§7, §11.3): summary cards, server rows,
shell quoting of hints, the add form and its command-line tokenizer, the page's redaction of the ``mcp``
block with the sentinel restore of a save, and the snapshot hash. Pure functions over config values."""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from openclaw_mcp.domain.redaction import holds_secret
from openclaw_mcp.domain.shell_quoting import posix_quote
from openclaw_mcp.jscompat.urls import parse_url

__all__ = [
    "MISSING_HASH",
    "REDACTED",
    "AddProblem",
    "Hint",
    "Row",
    "SentinelMisplaced",
    "added_server",
    "changed_paths",
    "config_hash",
    "oauth_label",
    "redact_mcp",
    "restore_redacted",
    "server_row",
    "shell_quote",
    "summary",
    "tokenize_command",
    "ui_transport",
]

REDACTED = "__OPENCLAW_REDACTED__"
MISSING_HASH = "sha256:missing"

Path = tuple[str, ...]


def config_hash(text: str | None) -> str:
    """``sha256:<hex>`` of the file's UTF-8 bytes; ``sha256:missing`` when there is no file (§11.3)."""
    if text is None:
        return MISSING_HASH
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# -- cards and rows -------------------------------------------------------------------------------------


def _nonempty(value: object) -> bool:
    return isinstance(value, str) and len(value) > 0


def _truthy(value: object) -> bool:
    """JavaScript truthiness of a JSON value."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and value == value
    if isinstance(value, str):
        return value != ""
    return True


def _entry(server: object) -> Mapping[str, Any]:
    return server if isinstance(server, dict) else {}


def summary(servers: Mapping[str, object]) -> dict[str, int]:
    """The four cards of §3.1."""
    entries = [_entry(server) for server in servers.values()]
    return {
        "servers": len(entries),
        "enabled": sum(1 for entry in entries if entry.get("enabled") is not False),
        "oauth": sum(1 for entry in entries if entry.get("auth") == "oauth"),
        "filtered": sum(1 for entry in entries if _truthy(entry.get("toolFilter"))),
    }


def ui_transport(server: object) -> str:
    """The page's own transport classification (§4.3): ``stdio``, ``streamable-http``, ``sse`` or ``invalid``."""
    entry = _entry(server)
    if _nonempty(entry.get("command")):
        return "stdio"
    if _nonempty(entry.get("url")):
        transport = entry.get("transport")
        if transport == "streamable-http":
            return "streamable-http"
        if "transport" not in entry or transport is None or transport == "sse":
            return "sse"
    return "invalid"


_PLAIN_NAME = re.compile(r"[A-Za-z0-9._:/-]+")


def shell_quote(name: str) -> str:
    """A name as the hints print it (§4.5): as is when plain, else single-quoted with ``'\\''``."""
    return posix_quote(name, _PLAIN_NAME)


def _page_text(text: str) -> str:
    """A row's target as the page shows it: the sentinel when it holds a secret, as the editor shows it
    (§2.2; ``holds_secret`` is cached: the same strings come snapshot after snapshot)."""
    return REDACTED if holds_secret(text) else text


@dataclass(frozen=True, slots=True)
class Hint:
    """The row's hint: a ``<code>`` command (``code``) or a sentence (``text``)."""

    kind: Literal["code", "text"]
    text: str


@dataclass(frozen=True, slots=True)
class Row:
    name: str
    target: str
    meta: str
    enabled: bool
    hint: Hint
    sign_in: Literal["profile", "requester", "operator"] | None


def _sign_in(entry: Mapping[str, Any], transport: str) -> Literal["profile", "requester", "operator"] | None:
    if entry.get("auth") != "oauth":
        return None
    oauth = _entry(entry.get("oauth"))
    if _truthy(oauth.get("authProfileId")):
        return "profile"
    if oauth.get("identity") == "per-requester":
        return "requester"
    url = entry.get("url")
    if transport in ("sse", "streamable-http") and isinstance(url, str):
        parsed = parse_url(url)
        if parsed is not None and parsed.scheme in ("http", "https"):
            return "operator"
    return None


def server_row(name: str, server: object) -> Row:
    """One row of §4.2–§4.4 (without the controls' state)."""
    entry = _entry(server)
    transport = ui_transport(entry)
    command, url = entry.get("command"), entry.get("url")
    if transport == "stdio" and isinstance(command, str):
        target = _page_text(command)
    elif _nonempty(url):
        target = _page_text(str(url))
    else:
        target = "missing transport"
    auth = entry.get("auth")
    if entry.get("sslVerify") is False:
        tls = "TLS verify off"
    elif _truthy(entry.get("clientCert")) or _truthy(entry.get("clientKey")):
        tls = "mTLS"
    else:
        tls = ""
    items = [
        transport,
        auth if isinstance(auth, str) else "",
        "tool filter" if _truthy(entry.get("toolFilter")) else "",
        "parallel" if entry.get("supportsParallelToolCalls") is True else "",
        tls,
    ]
    sign_in = _sign_in(entry, transport)
    if sign_in == "profile":
        hint = Hint("text", "Sign in through the linked account in Models.")
    elif sign_in == "requester":
        hint = Hint("text", "Each person signs in through this connector in chat.")
    else:
        verb = "login" if auth == "oauth" else "probe"
        hint = Hint("code", f"openclaw mcp {verb} {shell_quote(name)}")
    return Row(
        name=name,
        target=target,
        meta=" · ".join(item for item in items if item),
        enabled=entry.get("enabled") is not False,
        hint=hint,
        sign_in=sign_in,
    )


# -- the add form ---------------------------------------------------------------------------------------

NAME_RULE = "Server names use letters, numbers, dots, dashes, or underscores."
TARGET_RULE = "Enter a URL for HTTP transports or a valid command line for stdio."
_NAME = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9._-]*")
_HTTP_PREFIX = re.compile(r"https?://", re.IGNORECASE)
# JavaScript's \s (the tokenizer's whitespace) and String.prototype.trim's set
_JS_SPACE = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


class AddProblem(ValueError):
    """The add form's input is refused; the message is the page's text (§5)."""


def _js_trim(text: str) -> str:
    start, end = 0, len(text)
    while start < end and text[start] in _JS_SPACE:
        start += 1
    while end > start and text[end - 1] in _JS_SPACE:
        end -= 1
    return text[start:end]


def tokenize_command(text: str) -> list[str] | None:
    """Split a stdio command line (§5.1); ``None`` when a quote is left open."""
    tokens: list[str] = []
    current: list[str] = []
    started = False
    quote: str | None = None
    chars = _js_trim(text)
    i, n = 0, len(chars)
    while i < n:
        char = chars[i]
        if quote == "'":
            if char == "'":
                quote = None
            else:
                current.append(char)
            i += 1
            continue
        if quote == '"':
            if char == "\\":
                run = i
                while run < n and chars[run] == "\\":
                    run += 1
                count = run - i
                if run < n and chars[run] == '"':
                    current.append("\\" * (count // 2))
                    if count % 2:
                        current.append('"')
                    else:
                        quote = None
                    i = run + 1
                else:
                    current.append("\\" * count)
                    i = run
                continue
            if char == '"':
                quote = None
            else:
                current.append(char)
            i += 1
            continue
        if char in _JS_SPACE:
            if started:
                tokens.append("".join(current))
                current, started = [], False
            i += 1
            continue
        started = True
        if char in ("'", '"'):
            quote = char
        elif char == "\\" and i + 1 < n and (chars[i + 1] in ("'", '"') or chars[i + 1] in _JS_SPACE):
            current.append(chars[i + 1])
            i += 1
        else:
            current.append(char)
        i += 1
    if quote is not None:
        return None
    if started:
        tokens.append("".join(current))
    return tokens


def added_server(name: str, transport: str, target: str, existing: Iterable[str]) -> tuple[str, dict[str, Any]]:
    """The trimmed name and the entry the add form writes (§5); raises ``AddProblem``."""
    key, value = _js_trim(name), _js_trim(target)
    if not _NAME.fullmatch(key):
        raise AddProblem(NAME_RULE)
    entry: dict[str, Any] | None = None
    if transport in ("streamable-http", "sse"):
        parsed = parse_url(value)
        if parsed is not None and parsed.scheme in ("http", "https"):
            entry = {"url": value, "transport": transport}
    elif transport == "stdio" and not _HTTP_PREFIX.match(value):
        tokens = tokenize_command(value)
        if tokens:
            entry = {"command": tokens[0]}
            if len(tokens) > 1:
                entry["args"] = tokens[1:]
    if entry is None:
        raise AddProblem(TARGET_RULE)
    if key in set(existing):
        raise AddProblem(f"An MCP server named \u201c{key}\u201d already exists.")
    return key, entry


# -- redaction and restore ------------------------------------------------------------------------------


_SECRET_FIELDS = frozenset({"env", "headers"})


def _hidden_member(value: object) -> bool:
    """Whether ``env``/``headers`` given as a single scalar hides it: a string or a number (the whole value)."""
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def redact_mcp(mcp: object) -> tuple[object, frozenset[Path]]:
    """The ``mcp`` block as the page sees it (§2.2, §11.3) and the paths (under ``mcp``) that were redacted.

    Walks values, whatever the config's shape (an invalid config is shown too): every member of an ``env``
    or ``headers`` field anywhere — an object's values, a list's items, or the field itself when it is a
    string or a number — and every other string the project's redactors would change (a URL with userinfo
    or a sensitive query value wherever it sits: ``url`` as a list, a server given as a bare string,
    ``oauth.clientMetadataUrl``; a vendor token, a ``Bearer`` credential, a ``NAME=secret`` argument)
    becomes the sentinel. A list index is a path part as its decimal string. Iterative: any depth."""
    paths: set[Path] = set()
    root: list[object] = [None]
    # (value, the container its copy goes into, the slot there, its path, whether it is a secret member)
    pending: list[tuple[object, Any, Any, Path, bool]] = [(mcp, root, 0, (), False)]
    while pending:
        value, parent, slot, path, secret = pending.pop()
        if secret or (isinstance(value, str) and holds_secret(value)):
            parent[slot] = REDACTED
            paths.add(path)
        elif isinstance(value, dict):
            copied: dict[str, Any] = {}
            parent[slot] = copied
            for key, item in value.items():
                copied[key] = None
                if key in _SECRET_FIELDS and isinstance(item, (dict, list)):
                    inner: Any = {} if isinstance(item, dict) else [None] * len(item)
                    copied[key] = inner
                    members = item.items() if isinstance(item, dict) else enumerate(item)
                    for member, _ in members:
                        inner[member] = REDACTED
                        paths.add((*path, key, str(member)))
                elif key in _SECRET_FIELDS and _hidden_member(item):
                    pending.append((item, copied, key, (*path, key), True))
                else:
                    pending.append((item, copied, key, (*path, key), False))
        elif isinstance(value, list):
            items: list[object] = [None] * len(value)
            parent[slot] = items
            for index, item in enumerate(value):
                pending.append((item, items, index, (*path, str(index)), False))
        else:
            parent[slot] = value
    return root[0], frozenset(paths)


class SentinelMisplaced(ValueError):
    """A saved document holds the sentinel where nothing was redacted; ``path`` is the dotted config path."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: redacted placeholder cannot be saved here")
        self.path = path


def _lookup(document: object, path: Path) -> tuple[bool, object]:
    node = document
    for part in path:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and part.isascii() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False, None
    return True, node


def restore_redacted(edited: object, stored: object, redacted: frozenset[Path]) -> object:
    """``edited`` with each sentinel at a redacted path replaced by the stored value (§11.3); raises
    ``SentinelMisplaced`` for a sentinel anywhere else (also inside a list, or as a key)."""

    def walk(node: object, path: Path) -> object:
        if isinstance(node, dict):
            restored: dict[str, Any] = {}
            for key, value in node.items():
                if key == REDACTED:
                    raise SentinelMisplaced(_dotted((*path, key)))
                restored[key] = walk(value, (*path, key))
            return restored
        if isinstance(node, list):
            return [walk(item, (*path, str(index))) for index, item in enumerate(node)]
        if node == REDACTED:
            found, original = _lookup(stored, path)
            if path in redacted and found:
                return copy.deepcopy(original)
            raise SentinelMisplaced(_dotted(path))
        return node

    return walk(edited, ())


def _dotted(path: Path) -> str:
    return ".".join(("mcp", *path))


def changed_paths(before: object, after: object, prefix: Path = ("mcp",)) -> list[str]:
    """Dotted paths whose values differ between two documents (objects compared key by key, anything
    else as a whole), in ``after``'s key order followed by removed keys."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[str] = []
        for key, value in after.items():
            if key not in before:
                out.append(".".join((*prefix, key)))
            else:
                out.extend(changed_paths(before[key], value, (*prefix, key)))
        out.extend(".".join((*prefix, key)) for key in before if key not in after)
        return out
    if before == after and type(before) is type(after):
        return []
    return [".".join(prefix)]


def _duration(ms: int) -> str:
    minutes = max(ms, 0) // 60_000
    if minutes < 1:
        return "less than a minute"
    if minutes < 120:
        return f"{minutes} min"
    hours = minutes // 60
    if hours < 48:
        return f"{hours} h"
    return f"{hours // 24} days"


def oauth_label(auth_status: object, principals: object, now_ms: int) -> tuple[str, str] | None:
    """``(state, label)`` of an OAuth server's stored credentials for the page's OAuth badge: from the
    operator store's ``authStatus`` (``status --json``), or the per-requester principal count."""
    if isinstance(principals, int) and not isinstance(principals, bool):
        noun = "person" if principals == 1 else "people"
        return "per-requester", f"{principals} {noun} signed in"
    if not isinstance(auth_status, dict):
        return None
    state = auth_status.get("state")
    if state == "authorized":
        expires = auth_status.get("expiresAt")
        if isinstance(expires, (int, float)) and not isinstance(expires, bool):
            left = int(expires) - now_ms
            if left <= 0:
                return "expired", "token expired"
            return "authorized", f"expires in {_duration(left)}"
        return "authorized", "authorized"
    if state == "requires-authorization":
        return "requires-authorization", "requires authorization"
    if state == "pending-authorization":
        return "pending-authorization", "sign-in pending"
    return "unauthenticated", "requires authorization"
