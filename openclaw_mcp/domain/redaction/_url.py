"""URL redaction, the reference's ``redactSensitiveUrl`` (cli-registry §4.3): userinfo → ``***``,
sensitive query values → ``***``, Telegram bot-token path segments → ``/bot***``, nested URLs in query
values and fragments, WHATWG re-serialisation only when something changed, a text fallback for values
that do not parse."""

from __future__ import annotations

import re

from openclaw_mcp.domain.redaction._js import CI, JS_WORD_BEFORE, WS, lazy_regex, search_index
from openclaw_mcp.domain.redaction._mask import MASK
from openclaw_mcp.domain.redaction._query import MAX_DEPTH, is_sensitive_url_query_param_name, node_search_params
from openclaw_mcp.jscompat import urlencoded as _qs
from openclaw_mcp.jscompat import urls as _u

__all__ = ["redact_sensitive_url", "redact_url_text"]

_TELEGRAM_PATH = lazy_regex(r"/bot[0-9]{6,}(?::|%3[aA])[A-Za-z0-9_-]{20,}(?=/|\Z)", CI)
_URL_SCHEME = lazy_regex(r"(?:^|[^a-z0-9+.\-])[a-z][a-z0-9+.\-]{0,31}:", CI)
_SPECIAL_AUTHORITY = lazy_regex(JS_WORD_BEFORE + f"(?:https?|wss?|ftp):[\\\\/]{{0,2}}[^\\\\/?#{WS}]*", CI)
_SPECIAL_SPILLED_USERINFO = lazy_regex(
    JS_WORD_BEFORE + f"(?:https?|wss?|ftp):[\\\\/]{{0,2}}[^{WS}]*@[^\\\\/?#{WS}]*", CI
)
_PROTOCOL_RELATIVE_AUTHORITY = lazy_regex(f"[\\\\/]{{2,}}[^\\\\/?#{WS}]*")
_FALLBACK_QUERY_PAIR = lazy_regex(r"([?&])([^=&]+)=([^&]*)")
_AUTHORITY_INTRO = lazy_regex(JS_WORD_BEFORE + r"(?:https?|wss?|ftp):[\\/]{0,2}|[\\/]{2,}", CI)
_UNREDACTED_AT = lazy_regex(r"(?<!\*\*\*:\*\*\*)@")
_RESERVED = lazy_regex(r"[\\/?#]")
_HOSTLIKE_AFTER_AT = lazy_regex(f"[^/?#{WS}]+\\.[^/?#{WS}]+(?:[/?#]|\\Z)")
_PERCENT_ESCAPE_I = lazy_regex(r"%[0-9a-f]{2}", CI)
_QUERY_DELIMITER = lazy_regex(r"[?&]")
_DIGITS = lazy_regex(r"[0-9]+\Z")
_BRACKETED_AUTHORITY = lazy_regex(r"\[[^\]]+\](?::[0-9]+)?\Z")


def _redact_url_path(value: str) -> str:
    return _TELEGRAM_PATH().sub("/bot***", value)


def _looks_like_nested_url(value: str) -> bool:
    if _URL_SCHEME().search(value):
        return True
    forward = value.find("//")
    backward = value.find("\\\\")
    index = backward if forward < 0 else forward if backward < 0 else min(forward, backward)
    if index >= 0 and value.find("@", index + 2) >= 0:
        return True
    query = search_index(_QUERY_DELIMITER(), value)
    if query >= 0 and value.find("=", query + 1) >= 0:
        return True
    fragment = value.find("#")
    if fragment >= 0 and value.find("=", fragment + 1) >= 0:
        return True
    return bool(_PERCENT_ESCAPE_I().search(value))


def _redact_direct_url(value: str) -> str:
    parsed = _u.parse_url(value)
    if parsed is None:
        return value
    mutated = False
    path = _redact_url_path(parsed.pathname)
    if path != parsed.pathname:
        parsed = _u.set_pathname(parsed, path)
        mutated = True
    if parsed.username or parsed.password:
        parsed = _u.set_username(parsed, MASK if parsed.username else "")
        parsed = _u.set_password(parsed, MASK if parsed.password else "")
        mutated = True
    pairs = node_search_params(parsed.query or "")
    changed = False
    for key, _ in list(pairs):
        if is_sensitive_url_query_param_name(key):
            pairs = _qs.search_params_set(pairs, key, MASK)
            changed = True
    if changed:
        parsed = _u.set_search_params(parsed, pairs)
        mutated = True
    return parsed.href if mutated else value


def _redact_query_string(value: str, depth: int) -> str:
    entries = node_search_params(value)
    redacted: list[tuple[str, str]] = []
    seen: set[str] = set()
    mutated = False
    for key, entry in entries:
        if is_sensitive_url_query_param_name(key):
            mutated = True
            if key not in seen:
                seen.add(key)
                redacted.append((key, MASK))
            continue
        new_key = _redact_nested_value(key, depth + 1)
        new_value = _redact_nested_value(entry, depth + 1)
        if new_key != key or new_value != entry:
            mutated = True
        redacted.append((new_key, new_value))
    if not mutated:
        return value
    return _qs.serialize_search_params(redacted)


def _redact_fallback_pair(m: re.Match[str]) -> str:
    prefix, key = m.group(1), m.group(2)
    return f"{prefix}{key}={MASK}" if is_sensitive_url_query_param_name(key) else m.group(0)


def _redact_url_like_fallback(value: str) -> str:
    return _redact_url_path(_FALLBACK_QUERY_PAIR().sub(_redact_fallback_pair, _redact_embedded_userinfo(value)))


def _redact_authority_userinfo(candidate: str, authority_start: int) -> str:
    authority = candidate[authority_start:]
    at = authority.rfind("@")
    if at < 0:
        return candidate
    return f"{candidate[:authority_start]}***:***@{authority[at + 1 :]}"


def _skip_slashes(candidate: str, start: int) -> int:
    while start < len(candidate) and candidate[start] in "/\\":
        start += 1
    return start


def _special_authority(m: re.Match[str]) -> str:
    candidate = m.group(0)
    return _redact_authority_userinfo(candidate, _skip_slashes(candidate, candidate.find(":") + 1))


def _spilled_userinfo(m: re.Match[str]) -> str:
    candidate = m.group(0)
    start = _skip_slashes(candidate, candidate.find(":") + 1)
    at = candidate.rfind("@")
    reserved = search_index(_RESERVED(), candidate[start:])
    if at < 0 or reserved < 0:
        return candidate
    reserved += start
    if reserved >= at:
        return candidate
    separator = candidate.find(":", start)
    if separator < 0 or separator > reserved:
        return candidate
    prefix = candidate[start:reserved]
    possible_port = candidate[separator + 1 : reserved]
    if _DIGITS().match(possible_port) or _BRACKETED_AUTHORITY().match(prefix):
        return candidate
    return f"{candidate[:start]}***:***@{candidate[at + 1 :]}"


def _protocol_relative(m: re.Match[str]) -> str:
    candidate = m.group(0)
    return _redact_authority_userinfo(candidate, _skip_slashes(candidate, 0))


def _redact_embedded_userinfo(value: str) -> str:
    value = _SPECIAL_AUTHORITY().sub(_special_authority, value)
    value = _SPECIAL_SPILLED_USERINFO().sub(_spilled_userinfo, value)
    return _PROTOCOL_RELATIVE_AUTHORITY().sub(_protocol_relative, value)


def _has_unresolved_userinfo(value: str) -> bool:
    for m in _AUTHORITY_INTRO().finditer(value):
        remainder = value[m.end() :]
        at = search_index(_UNREDACTED_AT(), remainder)
        authority_end = search_index(_RESERVED(), remainder)
        # JavaScript's slice(authorityEnd + 1, userInfoEnd) with negative indices counting from the end.
        start = authority_end + 1
        end = at if at >= 0 else max(len(remainder) + at, 0)
        path_before_at = remainder[start:end] if end > start else ""
        if at >= 0 and (
            authority_end < 0
            or at <= authority_end
            or (
                remainder[authority_end] == "/"
                and (":" in path_before_at or _HOSTLIKE_AFTER_AT().match(remainder, at + 1) is not None)
            )
        ):
            return True
    return False


def _redact_relative_fragment(value: str, depth: int) -> str:
    index = value.find("#")
    if index < 0:
        return value
    fragment = value[index + 1 :]
    redacted = _redact_fragment(fragment, depth + 1)
    return value if redacted == fragment else f"{value[: index + 1]}{redacted}"


def _redact_fragment(value: str, depth: int) -> str:
    if not value:
        return value
    if depth > MAX_DEPTH and _looks_like_nested_url(value):
        return MASK
    whole, parsed_whole = _redact_url_at_depth(value, depth)
    if parsed_whole:
        return _redact_url_like_fallback(whole)
    first_delimiter = search_index(_QUERY_DELIMITER(), value)
    first_equals = value.find("=")
    if first_equals >= 0 and (first_delimiter < 0 or first_equals < first_delimiter):
        return _redact_query_string(value, depth)
    router_query = value.find("?")
    if router_query >= 0:
        query = _redact_query_string(value[router_query + 1 :], depth)
        head = _redact_encoded_url_like(_redact_url_like_fallback(value[: router_query + 1]), depth + 1)
        return f"{head}{query}"
    fallback = _redact_url_like_fallback(value)
    if not _looks_like_nested_url(fallback):
        return fallback
    try:
        decoded = _qs.decode_uri_component(fallback)
    except ValueError:
        return MASK
    if decoded == fallback:
        return fallback
    redacted = _redact_fragment(decoded, depth + 1)
    return fallback if redacted == decoded else _qs.encode_uri_component(redacted)


def _redact_encoded_nested_path(value: str, depth: int) -> str:
    if not _looks_like_nested_url(value):
        return value
    if depth > MAX_DEPTH:
        return MASK
    try:
        decoded = _qs.decode_uri_component(value)
    except ValueError:
        return MASK
    if decoded == value:
        return value
    direct, parsed_whole = _redact_url_like_at_depth(decoded, depth)
    if direct != decoded or _has_unresolved_userinfo(decoded):
        return direct if direct != decoded else MASK
    if parsed_whole:
        return value
    nested = _redact_encoded_nested_path(decoded, depth + 1)
    return value if nested == decoded else nested


def _redact_url_at_depth(value: str, depth: int) -> tuple[str, bool]:
    try:
        direct = _redact_direct_url(value)
        parsed = _u.parse_url(direct)
        if parsed is None:
            return value, False
        if depth > MAX_DEPTH:
            return MASK, True
        mutated = direct != value
        nested_path = _redact_embedded_userinfo(_redact_encoded_nested_path(parsed.pathname, depth + 1))
        if nested_path != parsed.pathname:
            original = parsed.pathname
            parsed = _u.set_pathname(parsed, nested_path)
            if parsed.pathname == original:
                return direct, False
            mutated = True
        query = parsed.search[1:]
        redacted_query = _redact_query_string(query, depth)
        if redacted_query != query:
            parsed = _u.set_search(parsed, redacted_query)
            mutated = True
        fragment = parsed.hash[1:]
        redacted_fragment = _redact_fragment(fragment, depth + 1)
        if redacted_fragment != fragment:
            parsed = _u.set_hash(parsed, redacted_fragment)
            mutated = True
        return (parsed.href if mutated else value), True
    except ValueError:  # encodeURIComponent on a lone surrogate
        return value, False


def _redact_url_like_at_depth(value: str, depth: int) -> tuple[str, bool]:
    whole, parsed_whole = _redact_url_at_depth(value, depth)
    if parsed_whole:
        return whole, True
    text = _redact_relative_fragment(_redact_url_like_fallback(whole), depth)
    return _redact_encoded_url_like(text, depth + 1), False


def _redact_encoded_url_like(value: str, depth: int) -> str:
    if not _looks_like_nested_url(value):
        return value
    if depth > MAX_DEPTH:
        return MASK
    try:
        decoded = _qs.decode_uri_component(value)
    except ValueError:
        return MASK
    if decoded == value:
        return value
    redacted, parsed_whole = _redact_url_like_at_depth(decoded, depth + 1)
    if redacted != decoded or parsed_whole:
        return value if redacted == decoded else redacted
    return MASK if _has_unresolved_userinfo(decoded) else value


def _redact_nested_value(value: str, depth: int) -> str:
    if not _looks_like_nested_url(value):
        return value
    if depth > MAX_DEPTH:
        return MASK
    direct, parsed_whole = _redact_url_like_at_depth(value, depth)
    if direct != value:
        return direct
    if _has_unresolved_userinfo(value):
        return MASK
    if parsed_whole:
        return value
    try:
        decoded = _qs.decode_uri_component(value)
    except ValueError:
        return MASK
    if decoded == value or not _looks_like_nested_url(decoded):
        return value
    redacted = _redact_nested_value(decoded, depth + 1)
    return value if redacted == decoded else _qs.encode_uri_component(redacted)


def redact_sensitive_url(text: str) -> str:
    """Redact credentials in a URL (cli-registry §4.3); unchanged input is returned verbatim.

    Text that is not a URL goes through the text fallback (:func:`redact_url_text`).
    """
    return _redact_url_like_at_depth(text, 0)[0]


def redact_url_text(text: str) -> str:
    """The text fallback of :func:`redact_sensitive_url` (for values that do not parse as a URL).

    For such values this is exactly what the reference prints in ``its url is not a valid URL: <url>``
    (it calls the same function as :func:`redact_sensitive_url`): ``scheme://user:pass@`` and
    ``//user@`` userinfo become ``***:***@``, sensitive ``?``/``&`` pair values become ``***``,
    Telegram bot tokens in paths become ``/bot***``, and fragments/percent-encoded parts are searched
    for nested URLs.
    """
    fallback = _redact_relative_fragment(_redact_url_like_fallback(text), 0)
    return _redact_encoded_url_like(fallback, 1)
