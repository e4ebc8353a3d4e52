"""Structured ``Authorization``/``Proxy-Authorization`` headers: the parameters of Digest, Hawk, AWS4
and similar credentials (``Digest username="u", response="…"``) are masked as one range, also when the
header is JSON- or shell-serialised (``\\r\\n``, ``\\t`` and escaped quotes)."""

from __future__ import annotations

from openclaw_mcp.domain.redaction._js import CI, ch, lazy_regex
from openclaw_mcp.domain.redaction._mask import MASK

__all__ = ["redact_structured_auth_headers"]

_AUTH_TOKEN_CHARS = "A-Za-z0-9!#$%\\&'*+.^_`\\|\\~\\-"
_SER_TAB = r"\\{1,64}t"
_SER_INDENT = f"(?:[ \\t]+|{_SER_TAB})"
_OPT_WS = (
    f"(?:[ \\t]*\\r?\\n{_SER_INDENT}|[ \\t]*\\\\{{1,64}}r\\\\{{1,64}}n{_SER_INDENT}"
    f"|[ \\t]*\\\\{{1,64}}n{_SER_INDENT}|[ \\t]*{_SER_TAB}[ \\t]*|[ \\t]*)"
)
_REQ_WS = _OPT_WS[: -len("|[ \\t]*)")] + "|[ \\t]+)"
_SER_QUOTE = "(?:\\\\{1,64}[\"']|[\"']|)"
_HEADER_BOUNDARY = "(^|[^A-Za-z0-9_-]|\\\\{1,64}[rn])"
_AUTH_SCHEME = f"[{_AUTH_TOKEN_CHARS}]+"

_STRUCTURED_AUTH_HEADER = lazy_regex(
    f"{_HEADER_BOUNDARY}(?:Proxy-)?Authorization{_SER_QUOTE}[ \\t]*[:=]{_OPT_WS}{_SER_QUOTE}({_AUTH_SCHEME}){_REQ_WS}",
    CI,
)
_AUTH_PARAM_NAME = lazy_regex(f"[{_AUTH_TOKEN_CHARS}]+")
_AWS_SCOPE_VALUE = lazy_regex(f"[{_AUTH_TOKEN_CHARS}:/]+")
_SIGNED_HEADERS_VALUE = lazy_regex(f":?[{_AUTH_TOKEN_CHARS}]+(?:;:?[{_AUTH_TOKEN_CHARS}]+)*")
_HEADER_NAME_CHAR = lazy_regex(r"[A-Za-z0-9_-]")


def _skip_horizontal(text: str, cursor: int) -> int:
    while cursor < len(text) and text[cursor] in (" ", "\t"):
        cursor += 1
    return cursor


def _serialized_line_end(text: str, start: int) -> int | None:
    cursor = start
    slashes = 0
    while slashes < 64 and ch(text, cursor) == "\\":
        slashes += 1
        cursor += 1
    if slashes == 0:
        return None
    if ch(text, cursor) == "n":
        return cursor + 1
    if ch(text, cursor) != "r":
        return None
    cursor += 1
    slashes = 0
    while slashes < 64 and ch(text, cursor) == "\\":
        slashes += 1
        cursor += 1
    return cursor + 1 if slashes > 0 and ch(text, cursor) == "n" else None


def _serialized_tab_end(text: str, start: int) -> int | None:
    cursor = start
    slashes = 0
    while slashes < 64 and ch(text, cursor) == "\\":
        slashes += 1
        cursor += 1
    return cursor + 1 if slashes > 0 and ch(text, cursor) == "t" else None


def _skip_auth_ws(text: str, start: int) -> int:
    cursor = start
    while True:
        cursor = _skip_horizontal(text, cursor)
        tab_end = _serialized_tab_end(text, cursor)
        if tab_end is not None:
            cursor = tab_end
            continue
        if ch(text, cursor) == "\r" and ch(text, cursor + 1) == "\n":
            line_end: int | None = cursor + 2
        elif ch(text, cursor) == "\n":
            line_end = cursor + 1
        else:
            line_end = _serialized_line_end(text, cursor)
        if line_end is None or (ch(text, line_end) not in (" ", "\t") and _serialized_tab_end(text, line_end) is None):
            return cursor
        cursor = line_end


def _auth_param_name(text: str, start: int) -> tuple[str, int] | None:
    m = _AUTH_PARAM_NAME().match(text, start)
    return (m.group(0).lower(), m.end()) if m else None


def _is_auth_header_start(text: str, index: int) -> bool:
    previous = ch(text, index - 1)
    serialized_boundary = False
    if previous in ("n", "r") and previous:
        cursor = index - 2
        slashes = 0
        while slashes < 64 and ch(text, cursor) == "\\":
            slashes += 1
            cursor -= 1
        serialized_boundary = slashes > 0
    if not serialized_boundary and previous and _HEADER_NAME_CHAR().match(previous):
        return False
    candidate = text[index : index + 19].lower()
    if candidate == "proxy-authorization":
        name = candidate
    elif candidate.startswith("authorization"):
        name = "authorization"
    else:
        return False
    cursor = index + len(name)
    slashes = 0
    while slashes < 64 and ch(text, cursor) == "\\":
        slashes += 1
        cursor += 1
    if ch(text, cursor) in ('"', "'") and ch(text, cursor):
        cursor += 1
    elif slashes > 0:
        return False
    cursor = _skip_horizontal(text, cursor)
    return ch(text, cursor) in (":", "=") and ch(text, cursor) != ""


def _next_auth_param_start(text: str, start: int) -> int | None:
    cursor = start
    n = len(text)
    while True:
        cursor = _skip_auth_ws(text, cursor)
        if cursor > start and _is_auth_header_start(text, cursor):
            return None
        if cursor >= n or text[cursor] in ("\r", "\n", ";"):
            return None
        if text[cursor] == ",":
            cursor += 1
            continue
        param = _auth_param_name(text, cursor)
        if param:
            equals = _skip_auth_ws(text, param[1])
            if ch(text, equals) == "=" and ch(text, equals + 1) != "=":
                return cursor
        while cursor < n:
            ws_end = _skip_auth_ws(text, cursor)
            if ws_end > cursor:
                cursor = ws_end
                continue
            if cursor > start and _is_auth_header_start(text, cursor):
                return None
            char = text[cursor]
            if char in ("\r", "\n", ";"):
                return None
            cursor += 1
            if char == ",":
                break


def _auth_field_end(text: str, start: int) -> int:
    cursor = start
    while cursor < len(text):
        ws_end = _skip_auth_ws(text, cursor)
        if ws_end > cursor:
            cursor = ws_end
            continue
        if cursor > start and _is_auth_header_start(text, cursor):
            break
        if text[cursor] in "\r\n;\\\"'}]":
            break
        cursor += 1
    return cursor


def _param_value_end(text: str, start: int, *, aws_scope: bool, signed_headers: bool) -> int | None:
    n = len(text)
    escaped_slashes = 0
    while ch(text, start + escaped_slashes) == "\\":
        escaped_slashes += 1
    escaped_quotes = escaped_slashes > 0 and ch(text, start + escaped_slashes) == '"'
    quote = ch(text, start) if ch(text, start) in ('"', "'") and ch(text, start) else ""
    if quote or escaped_quotes:
        cursor = start + (escaped_slashes + 1 if escaped_quotes else 1)
        while cursor < n:
            if text[cursor] in ("\r", "\n"):
                ws_end = _skip_auth_ws(text, cursor)
                if ws_end == cursor:
                    break
                cursor = ws_end
                continue
            if escaped_quotes and text[cursor] == "\\":
                slash_end = cursor + 1
                while ch(text, slash_end) == "\\":
                    slash_end += 1
                if ch(text, slash_end) == '"':
                    if (slash_end - cursor) % (2 * (escaped_slashes + 1)) == escaped_slashes:
                        return slash_end + 1
                    cursor = slash_end + 1
                    continue
                cursor = slash_end
                continue
            if not escaped_quotes and text[cursor] == "\\" and cursor + 1 < n:
                cursor += 2
                continue
            if not escaped_quotes and text[cursor] == quote:
                return cursor + 1
            cursor += 1
        return cursor if cursor > start + 1 else None
    if signed_headers:
        m = _SIGNED_HEADERS_VALUE().match(text, start)
        if not m:
            return None
        nxt = ch(text, m.end())
        return m.end() if nxt in ("", ",", " ", "\t", "\r", "\n") else None
    m = (_AWS_SCOPE_VALUE() if aws_scope else _AUTH_PARAM_NAME()).match(text, start)
    return m.end() if m else None


def _structured_auth_ranges(text: str) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for header in _STRUCTURED_AUTH_HEADER().finditer(text):
        scheme = (header.group(2) or "").lower()
        uses_params = scheme in ("digest", "hawk") or scheme.startswith("aws4-")
        cursor = header.end()
        range_start = range_end = cursor
        direct = _auth_param_name(text, cursor)
        direct_equals = _skip_auth_ws(text, direct[1]) if direct else None
        if (
            direct is None
            or direct_equals is None
            or ch(text, direct_equals) != "="
            or ch(text, direct_equals + 1) == "="
        ):
            if ch(text, _skip_auth_ws(text, cursor)) != "," and not uses_params:
                continue
            first = _next_auth_param_start(text, cursor)
            if first is None:
                continue
            cursor = first
        while True:
            param = _auth_param_name(text, cursor)
            if param is None:
                break
            cursor = _skip_auth_ws(text, param[1])
            if ch(text, cursor) != "=":
                break
            cursor = _skip_auth_ws(text, cursor + 1)
            value_end = _param_value_end(
                text,
                cursor,
                aws_scope=scheme.startswith("aws4-") and param[0] == "credential",
                signed_headers=param[0] == "signedheaders",
            )
            if value_end is None:
                nxt = _next_auth_param_start(text, cursor)
                if nxt is not None:
                    cursor = nxt
                    continue
                range_end = max(range_end, _auth_field_end(text, cursor))
                break
            range_end = value_end
            separator = _skip_auth_ws(text, value_end)
            sep = ch(text, separator)
            if sep != ",":
                if sep not in ("", "\r", "\n", ";", "\\", '"', "'", "}", "]"):
                    nxt = _next_auth_param_start(text, separator)
                    if nxt is not None:
                        cursor = nxt
                        continue
                    range_end = max(range_end, _auth_field_end(text, separator))
                break
            nxt = _next_auth_param_start(text, separator + 1)
            if nxt is None:
                break
            cursor = nxt
        if range_end > range_start:
            ranges.append((range_start, range_end))
    return ranges


def redact_structured_auth_headers(text: str) -> str:
    ranges = _structured_auth_ranges(text)
    if not ranges:
        return text
    merged: list[list[int]] = []
    for start, end in ranges:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    parts: list[str] = []
    cursor = 0
    for start, end in merged:
        parts.append(text[cursor:start])
        parts.append(MASK)
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)
