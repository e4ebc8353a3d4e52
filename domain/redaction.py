"""Secret redaction exactly as the reference prints it (spec cli-registry §4.2–§4.4, D4; client-runtime
§1.8, §4.12, D13).

Four redactors, each reproducing one of the reference's:

* :func:`redact_sensitive_url` — URL redaction (userinfo → ``***``, sensitive query values → ``***``,
  Telegram bot-token path segments → ``/bot***``, nested URLs in query values and fragments, WHATWG
  re-serialisation only when something changed, a text fallback for unparsable values);
* :func:`redact_sensitive_text` (alias :func:`redact_text_line`) — the generic secret-text redactor the
  reference applies to every printed console line, to error messages and to argv entries: the
  ``NAME=value`` assignment rules, ``Authorization``/``Proxy-Authorization`` and API-key headers,
  ``Bearer`` tokens, passwords of URLs in free text, sensitive query and form pairs, PEM private keys,
  40-character AWS secret keys, and the reference's vendor token prefixes (``sk-``, ``ghp_``,
  ``github_pat_``, ``xox?-``, ``AKIA``, ``eyJ…`` JWTs, Telegram tokens, …). Short secrets become
  ``***``; secrets of 18+ UTF-16 units keep their first 6 and last 4 characters around ``…``;
* :func:`redact_argv` — stdio launch arguments (secret flags, then the text redactor);
* :func:`redact_diagnostic` — MCP diagnostics (response bodies cut, URLs and secrets redacted).

Deviations, all outside what the MCP commands print: exact-value redaction of secrets registered at
runtime and user-configured ``logging.redactPatterns`` are not supported (the reference's defaults
apply); regex character classes built from Unicode category C omit unassigned code points; JavaScript's
case-insensitive ``u``-flag regexes also fold U+017F/U+212A onto ``s``/``k``, which is not reproduced.
Verified against the reference on tens of thousands of generated inputs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from jscompat import urls as _u

__all__ = [
    "MASK",
    "is_sensitive_url_query_param_name",
    "mask_token",
    "redact_argv",
    "redact_diagnostic",
    "redact_sensitive_text",
    "redact_sensitive_url",
    "redact_text_line",
    "redact_url_text",
    "sanitize_for_log",
]

MASK = "***"
# JavaScript's case-insensitive flag, restricted to ASCII letters. (With the ``u`` flag JavaScript also
# folds U+017F/U+212A onto s/k; Python's Unicode folding would add U+0130/U+0131 — neither is kept.)
_CI = re.ASCII | re.IGNORECASE

# JavaScript's ``\s`` (WhiteSpace + LineTerminator), as regex class content.
_WS = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
# Unicode category C without unassigned code points (Node 24 / Unicode 17 data), plus the invisible
# separators the reference lists explicitly, as regex class content.
_CAT_C = (
    "\\x00-\\x1f\\x7f-\\x9f\\xad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u180e"
    "\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb"
    "\\U000110bd\\U000110cd\\U00013430-\\U0001343f\\U0001bca0-\\U0001bca3\\U0001d173-\\U0001d17a"
    "\\U000e0001\\U000e0020-\\U000e007f\\ud800-\\udfff\\ue000-\\uf8ff\\U000f0000-\\U000ffffd"
    "\\U00100000-\\U0010fffd"
)
_INVISIBLE = _CAT_C + "\\xa0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000\\u115f\\u1160\\u3164\\uffa0"
_HANGUL_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")

# ---------------------------------------------------------------------------------------------------
# Small JavaScript compatibility helpers
# ---------------------------------------------------------------------------------------------------


def _u16len(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _u16_prefix(text: str, units: int) -> str:
    """``sliceUtf16Safe(text, 0, units)``: never ends inside a surrogate pair."""
    count = 0
    for index, c in enumerate(text):
        count += 2 if ord(c) > 0xFFFF else 1
        if count > units:
            return text[:index]
    return text


def _u16_suffix(text: str, units: int) -> str:
    """``sliceUtf16Safe(text, -units)``: never starts inside a surrogate pair."""
    count = 0
    for index in range(len(text) - 1, -1, -1):
        count += 2 if ord(text[index]) > 0xFFFF else 1
        if count > units:
            return text[index + 1 :]
    return text


def _is_c_or_z(c: str) -> bool:
    return unicodedata.category(c)[0] in "CZ" or c in _HANGUL_FILLERS or c == "+"


def _strip_separators(text: str) -> str:
    """Remove Unicode category C/Z characters, the Hangul fillers and ``+``."""
    if text.isascii() and "+" not in text:
        return "".join(c for c in text if " " < c < "\x7f")
    return "".join(c for c in text if not _is_c_or_z(c))


def _js_regex(source: str, flags: int = 0) -> re.Pattern[str]:
    """Compile a JavaScript (non-``u``) regex source with JavaScript's ``\\s``, ``.`` and ``$``."""
    out: list[str] = []
    i = 0
    in_class = False
    n = len(source)
    while i < n:
        c = source[i]
        if c == "\\":
            nxt = source[i + 1]
            if nxt == "s":
                out.append(_WS if in_class else f"[{_WS}]")
            elif nxt == "S" and not in_class:
                out.append(f"[^{_WS}]")
            elif nxt == "/":
                out.append("/")
            else:
                out.append(c + nxt)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
                out.append(c)
            elif c in "[&~|":
                out.append("\\" + c)
            else:
                out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            if source.startswith("^", i + 1):
                out.append("^")
                i += 1
        elif c == ".":
            out.append("[^\\n\\r\\u2028\\u2029]")
        elif c == "$":
            out.append("\\Z")
        else:
            out.append(c)
        i += 1
    return re.compile("".join(out), flags)


# ---------------------------------------------------------------------------------------------------
# Token masking
# ---------------------------------------------------------------------------------------------------

_MIN_HINTED_LENGTH = 18
_KEEP_START = 6
_TRAILING_DELIMITERS = re.compile("([\"'`,;)}\\]]+)\\Z")
_DELIMITER_SUFFIX = re.compile("[\"'`,;)}\\]]*\\Z")


def mask_token(token: str) -> str:
    """``***`` for short values; ``first6…last4`` for values of 18+ UTF-16 units."""
    if token == MASK:
        return token
    if _u16len(token) < _MIN_HINTED_LENGTH:
        return MASK
    return f"{_u16_prefix(token, _KEEP_START)}…{_u16_suffix(token, 4)}"


@dataclass(frozen=True, slots=True)
class _Split:
    maskable: str
    suffix: str
    start: int
    end: int


def _split_secret_value(token: str) -> _Split:
    quote = token[:1]
    if quote in ('"', "'", "`"):
        closing = token.rfind(quote)
        if closing > 0:
            suffix = token[closing + 1 :]
            if _DELIMITER_SUFFIX.match(suffix):
                return _Split(token[1:closing], suffix, 0, closing + 1)
        rest = token[1:]
        m = _TRAILING_DELIMITERS.search(rest)
        trailing = m.group(1) if m else ""
        if trailing and len(trailing) < len(rest):
            maskable = rest[: -len(trailing)]
            return _Split(maskable, trailing, 0, 1 + len(maskable))
        return _Split(rest, "", 0, 1 + len(rest))
    m = _TRAILING_DELIMITERS.search(token)
    trailing = m.group(1) if m else ""
    if trailing and len(trailing) < len(token):
        maskable = token[: -len(trailing)]
        return _Split(maskable, trailing, 0, len(maskable))
    return _Split(token, "", 0, len(token))


def _mask_secret_value(token: str) -> str:
    split = _split_secret_value(token)
    return mask_token(split.maskable) + split.suffix


# ---------------------------------------------------------------------------------------------------
# URL redaction (redactSensitiveUrl)
# ---------------------------------------------------------------------------------------------------

_SENSITIVE_QUERY_NAMES = frozenset(
    {
        "token", "key", "api_key", "apikey", "secret", "access_token", "auth_token", "password", "pass",
        "passwd", "auth", "jwt", "session", "id_token", "code", "client_secret", "app_secret",
        "hook_token", "refresh_token", "signature", "x_amz_signature", "x_amz_security_token",
        "private_key", "credential", "authorization", "sig", "x_api_key", "x_access_token",
        "x_auth_token",
    }
)  # fmt: skip
_SCOPED_TOKEN_NAME = re.compile(r"(?:^|_)token(?:_[a-f0-9]{16,})?\Z")
_TELEGRAM_PATH = re.compile(r"/bot[0-9]{6,}(?::|%3[aA])[A-Za-z0-9_-]{20,}(?=/|\Z)", _CI)
_MAX_DEPTH = 8
_JS_WORD_BEFORE = "(?<![A-Za-z0-9_\\u017f\\u212a])"
_URL_SCHEME = re.compile(r"(?:^|[^a-z0-9+.\-])[a-z][a-z0-9+.\-]{0,31}:", _CI)
_SPECIAL_AUTHORITY = re.compile(_JS_WORD_BEFORE + f"(?:https?|wss?|ftp):[\\\\/]{{0,2}}[^\\\\/?#{_WS}]*", _CI)
_SPECIAL_SPILLED_USERINFO = re.compile(
    _JS_WORD_BEFORE + f"(?:https?|wss?|ftp):[\\\\/]{{0,2}}[^{_WS}]*@[^\\\\/?#{_WS}]*", _CI
)
_PROTOCOL_RELATIVE_AUTHORITY = re.compile(f"[\\\\/]{{2,}}[^\\\\/?#{_WS}]*")
_FALLBACK_QUERY_PAIR = re.compile(r"([?&])([^=&]+)=([^&]*)")
_AUTHORITY_INTRO = re.compile(_JS_WORD_BEFORE + r"(?:https?|wss?|ftp):[\\/]{0,2}|[\\/]{2,}", _CI)
_UNREDACTED_AT = re.compile(r"(?<!\*\*\*:\*\*\*)@")
_RESERVED = re.compile(r"[\\/?#]")
_HOSTLIKE_AFTER_AT = re.compile(f"[^/?#{_WS}]+\\.[^/?#{_WS}]+(?:[/?#]|\\Z)")
_PERCENT_ESCAPE_I = re.compile(r"%[0-9a-f]{2}", _CI)
_QUERY_DELIMITER = re.compile(r"[?&]")
_DIGITS = re.compile(r"[0-9]+\Z")
_BRACKETED_AUTHORITY = re.compile(r"\[[^\]]+\](?::[0-9]+)?\Z")


def _search(pattern: re.Pattern[str], text: str) -> int:
    m = pattern.search(text)
    return m.start() if m else -1


def _normalize_query_name(name: str) -> tuple[str, bool]:
    current = _strip_separators(name)
    for _ in range(_MAX_DEPTH + 1):
        try:
            decoded = _strip_separators(_u.decode_uri_component(current))
        except ValueError:
            return current.strip().lower().replace("-", "_"), "%" in current
        if decoded == current:
            return current.strip().lower().replace("-", "_"), False
        current = decoded
    return current.strip().lower().replace("-", "_"), "%" in current


def is_sensitive_url_query_param_name(name: str) -> bool:
    """True for credential-like query parameter names (cli-registry §4.3 step 4)."""
    value, unresolved = _normalize_query_name(name)
    return unresolved or value in _SENSITIVE_QUERY_NAMES or bool(_SCOPED_TOKEN_NAME.search(value))


def _redact_url_path(value: str) -> str:
    return _TELEGRAM_PATH.sub("/bot***", value)


def _looks_like_nested_url(value: str) -> bool:
    if _URL_SCHEME.search(value):
        return True
    forward = value.find("//")
    backward = value.find("\\\\")
    index = backward if forward < 0 else forward if backward < 0 else min(forward, backward)
    if index >= 0 and value.find("@", index + 2) >= 0:
        return True
    query = _search(_QUERY_DELIMITER, value)
    if query >= 0 and value.find("=", query + 1) >= 0:
        return True
    fragment = value.find("#")
    if fragment >= 0 and value.find("=", fragment + 1) >= 0:
        return True
    return bool(_PERCENT_ESCAPE_I.search(value))


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
    pairs = _node_search_params(parsed.query or "")
    changed = False
    for key, _ in list(pairs):
        if is_sensitive_url_query_param_name(key):
            pairs = _u.search_params_set(pairs, key, MASK)
            changed = True
    if changed:
        parsed = _u.set_search_params(parsed, pairs)
        mutated = True
    return parsed.href if mutated else value


_VALID_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


def _node_form_decode(text: str) -> str:
    """How Node decodes one name or value in ``new URLSearchParams(string)``.

    Node tries ``decodeURIComponent``; when that throws it falls back to a byte-wise decoder that keeps
    only the low byte of each UTF-16 code unit, which garbles non-ASCII text next to a bad escape
    (``"é%41%zz"`` → ``"�A%zz"``). For ASCII input this equals the WHATWG form decoding.
    """
    text = text.replace("+", " ")
    if not _VALID_ESCAPE.search(text):
        return text
    try:
        return _u.decode_uri_component(text)
    except ValueError:
        pass
    units = _to_code_units(text)
    out = bytearray()
    index = 0
    n = len(units)
    while index < n:
        code = ord(units[index])
        if code == 0x25 and index < n - 2:
            high, low = units[index + 1], units[index + 2]
            if high in _HEX and low in _HEX:
                out.append(int(high + low, 16))
                index += 3
                continue
        out.append(code & 0xFF)
        index += 1
    return bytes(out).decode("utf-8", errors="replace")


_HEX = frozenset("0123456789abcdefABCDEF")


def _node_search_params(text: str) -> list[tuple[str, str]]:
    """``Array.from(new URLSearchParams(text))`` as Node 24 computes it."""
    text = _u.to_usv_string(text)
    if text.startswith("?"):
        text = text[1:]
    pairs: list[tuple[str, str]] = []
    for piece in text.split("&"):
        if not piece:
            continue
        name, _, value = piece.partition("=")
        pairs.append((_node_form_decode(name), _node_form_decode(value)))
    return pairs


def _redact_query_string(value: str, depth: int) -> str:
    entries = _node_search_params(value)
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
    return _u.serialize_search_params(redacted)


def _redact_fallback_pair(m: re.Match[str]) -> str:
    prefix, key = m.group(1), m.group(2)
    return f"{prefix}{key}={MASK}" if is_sensitive_url_query_param_name(key) else m.group(0)


def _redact_url_like_fallback(value: str) -> str:
    return _redact_url_path(_FALLBACK_QUERY_PAIR.sub(_redact_fallback_pair, _redact_embedded_userinfo(value)))


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
    reserved = _search(_RESERVED, candidate[start:])
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
    if _DIGITS.match(possible_port) or _BRACKETED_AUTHORITY.match(prefix):
        return candidate
    return f"{candidate[:start]}***:***@{candidate[at + 1 :]}"


def _protocol_relative(m: re.Match[str]) -> str:
    candidate = m.group(0)
    return _redact_authority_userinfo(candidate, _skip_slashes(candidate, 0))


def _redact_embedded_userinfo(value: str) -> str:
    value = _SPECIAL_AUTHORITY.sub(_special_authority, value)
    value = _SPECIAL_SPILLED_USERINFO.sub(_spilled_userinfo, value)
    return _PROTOCOL_RELATIVE_AUTHORITY.sub(_protocol_relative, value)


def _has_unresolved_userinfo(value: str) -> bool:
    for m in _AUTHORITY_INTRO.finditer(value):
        remainder = value[m.end() :]
        at = _search(_UNREDACTED_AT, remainder)
        authority_end = _search(_RESERVED, remainder)
        # JavaScript's slice(authorityEnd + 1, userInfoEnd) with negative indices counting from the end.
        start = authority_end + 1
        end = at if at >= 0 else max(len(remainder) + at, 0)
        path_before_at = remainder[start:end] if end > start else ""
        if at >= 0 and (
            authority_end < 0
            or at <= authority_end
            or (
                remainder[authority_end] == "/"
                and (":" in path_before_at or _HOSTLIKE_AFTER_AT.match(remainder, at + 1) is not None)
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
    if depth > _MAX_DEPTH and _looks_like_nested_url(value):
        return MASK
    whole, parsed_whole = _redact_url_at_depth(value, depth)
    if parsed_whole:
        return _redact_url_like_fallback(whole)
    first_delimiter = _search(_QUERY_DELIMITER, value)
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
        decoded = _u.decode_uri_component(fallback)
    except ValueError:
        return MASK
    if decoded == fallback:
        return fallback
    redacted = _redact_fragment(decoded, depth + 1)
    return fallback if redacted == decoded else _u.encode_uri_component(redacted)


def _redact_encoded_nested_path(value: str, depth: int) -> str:
    if not _looks_like_nested_url(value):
        return value
    if depth > _MAX_DEPTH:
        return MASK
    try:
        decoded = _u.decode_uri_component(value)
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
        if depth > _MAX_DEPTH:
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
    if depth > _MAX_DEPTH:
        return MASK
    try:
        decoded = _u.decode_uri_component(value)
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
    if depth > _MAX_DEPTH:
        return MASK
    direct, parsed_whole = _redact_url_like_at_depth(value, depth)
    if direct != value:
        return direct
    if _has_unresolved_userinfo(value):
        return MASK
    if parsed_whole:
        return value
    try:
        decoded = _u.decode_uri_component(value)
    except ValueError:
        return MASK
    if decoded == value or not _looks_like_nested_url(decoded):
        return value
    redacted = _redact_nested_value(decoded, depth + 1)
    return value if redacted == decoded else _u.encode_uri_component(redacted)


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


# ---------------------------------------------------------------------------------------------------
# Structured Authorization headers (parameters of Digest/AWS4/… credentials)
# ---------------------------------------------------------------------------------------------------

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

_STRUCTURED_AUTH_HEADER = re.compile(
    f"{_HEADER_BOUNDARY}(?:Proxy-)?Authorization{_SER_QUOTE}[ \\t]*[:=]{_OPT_WS}{_SER_QUOTE}({_AUTH_SCHEME}){_REQ_WS}",
    _CI,
)
_AUTH_PARAM_NAME = re.compile(f"[{_AUTH_TOKEN_CHARS}]+")
_AWS_SCOPE_VALUE = re.compile(f"[{_AUTH_TOKEN_CHARS}:/]+")
_SIGNED_HEADERS_VALUE = re.compile(f":?[{_AUTH_TOKEN_CHARS}]+(?:;:?[{_AUTH_TOKEN_CHARS}]+)*")
_HEADER_NAME_CHAR = re.compile(r"[A-Za-z0-9_-]")


def _ch(text: str, index: int) -> str:
    return text[index] if 0 <= index < len(text) else ""


def _skip_horizontal(text: str, cursor: int) -> int:
    while cursor < len(text) and text[cursor] in (" ", "\t"):
        cursor += 1
    return cursor


def _serialized_line_end(text: str, start: int) -> int | None:
    cursor = start
    slashes = 0
    while slashes < 64 and _ch(text, cursor) == "\\":
        slashes += 1
        cursor += 1
    if slashes == 0:
        return None
    if _ch(text, cursor) == "n":
        return cursor + 1
    if _ch(text, cursor) != "r":
        return None
    cursor += 1
    slashes = 0
    while slashes < 64 and _ch(text, cursor) == "\\":
        slashes += 1
        cursor += 1
    return cursor + 1 if slashes > 0 and _ch(text, cursor) == "n" else None


def _serialized_tab_end(text: str, start: int) -> int | None:
    cursor = start
    slashes = 0
    while slashes < 64 and _ch(text, cursor) == "\\":
        slashes += 1
        cursor += 1
    return cursor + 1 if slashes > 0 and _ch(text, cursor) == "t" else None


def _skip_auth_ws(text: str, start: int) -> int:
    cursor = start
    while True:
        cursor = _skip_horizontal(text, cursor)
        tab_end = _serialized_tab_end(text, cursor)
        if tab_end is not None:
            cursor = tab_end
            continue
        if _ch(text, cursor) == "\r" and _ch(text, cursor + 1) == "\n":
            line_end: int | None = cursor + 2
        elif _ch(text, cursor) == "\n":
            line_end = cursor + 1
        else:
            line_end = _serialized_line_end(text, cursor)
        if line_end is None or (_ch(text, line_end) not in (" ", "\t") and _serialized_tab_end(text, line_end) is None):
            return cursor
        cursor = line_end


def _auth_param_name(text: str, start: int) -> tuple[str, int] | None:
    m = _AUTH_PARAM_NAME.match(text, start)
    return (m.group(0).lower(), m.end()) if m else None


def _is_auth_header_start(text: str, index: int) -> bool:
    previous = _ch(text, index - 1)
    serialized_boundary = False
    if previous in ("n", "r") and previous:
        cursor = index - 2
        slashes = 0
        while slashes < 64 and _ch(text, cursor) == "\\":
            slashes += 1
            cursor -= 1
        serialized_boundary = slashes > 0
    if not serialized_boundary and previous and _HEADER_NAME_CHAR.match(previous):
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
    while slashes < 64 and _ch(text, cursor) == "\\":
        slashes += 1
        cursor += 1
    if _ch(text, cursor) in ('"', "'") and _ch(text, cursor):
        cursor += 1
    elif slashes > 0:
        return False
    cursor = _skip_horizontal(text, cursor)
    return _ch(text, cursor) in (":", "=") and _ch(text, cursor) != ""


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
            if _ch(text, equals) == "=" and _ch(text, equals + 1) != "=":
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
    while _ch(text, start + escaped_slashes) == "\\":
        escaped_slashes += 1
    escaped_quotes = escaped_slashes > 0 and _ch(text, start + escaped_slashes) == '"'
    quote = _ch(text, start) if _ch(text, start) in ('"', "'") and _ch(text, start) else ""
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
                while _ch(text, slash_end) == "\\":
                    slash_end += 1
                if _ch(text, slash_end) == '"':
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
        m = _SIGNED_HEADERS_VALUE.match(text, start)
        if not m:
            return None
        nxt = _ch(text, m.end())
        return m.end() if nxt in ("", ",", " ", "\t", "\r", "\n") else None
    m = (_AWS_SCOPE_VALUE if aws_scope else _AUTH_PARAM_NAME).match(text, start)
    return m.end() if m else None


def _structured_auth_ranges(text: str) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for header in _STRUCTURED_AUTH_HEADER.finditer(text):
        scheme = (header.group(2) or "").lower()
        uses_params = scheme in ("digest", "hawk") or scheme.startswith("aws4-")
        cursor = header.end()
        range_start = range_end = cursor
        direct = _auth_param_name(text, cursor)
        direct_equals = _skip_auth_ws(text, direct[1]) if direct else None
        if (
            direct is None
            or direct_equals is None
            or _ch(text, direct_equals) != "="
            or _ch(text, direct_equals + 1) == "="
        ):
            if _ch(text, _skip_auth_ws(text, cursor)) != "," and not uses_params:
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
            if _ch(text, cursor) != "=":
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
            sep = _ch(text, separator)
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


def _redact_structured_auth_headers(text: str) -> str:
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


# ---------------------------------------------------------------------------------------------------
# Query strings and form bodies in free text
# ---------------------------------------------------------------------------------------------------

_BODY_SECRET_KEYS = frozenset(
    {
        "access_token", "auth_token", "awssecretaccesskey", "aws_secret_access_key", "hook_token",
        "refresh_token", "id_token", "token", "api_key", "apikey", "client_secret", "app_secret",
        "password", "pass", "passwd", "auth", "jwt", "session", "code", "signature", "x_amz_signature",
        "x_amz_security_token", "secret", "secretaccesskey", "credential", "private_key",
        "authorization", "key", "card_number", "card_cvc", "card_cvv", "cvc", "cvv", "security_code",
        "payment_credential", "shared_payment_token",
    }
)  # fmt: skip
_FORM_KEY = f"[{_INVISIBLE}+]*(?:[A-Za-z_]|%[0-9A-Fa-f]{{2}})(?:[A-Za-z0-9_.\\-]|%[0-9A-Fa-f]{{2}}|[{_INVISIBLE}+])*"
_FORM_VALUE = f"[^&{_WS}<>]*"
_URL_QUERY_VALUE = f"[^&#{_WS}<>]*"
_FORM_PAIR = f"{_FORM_KEY}={_FORM_VALUE}"
_FORM_BODY = re.compile(f"{_FORM_PAIR}(?:&{_FORM_PAIR})+\\Z")
_FORM_BODY_SUBSTRING = re.compile(f"(^|[{_WS}:({{\\[,=\"'`])({_FORM_PAIR}(?:&{_FORM_PAIR})+)")
_ENCODED_FORM_PAIR = re.compile(f"(^|[{_WS}:({{\\[,=\"'`\\&])({_FORM_KEY})=({_FORM_VALUE})")
_CONTEXT_FORM_PAIR = re.compile(
    f"({_JS_WORD_BEFORE}(?:body|form(?:[\\-_{_WS}]?body)?)[{_WS}]*[:=][{_WS}]*([\"'`]?))"
    f"({_FORM_KEY})=({_FORM_VALUE})([\"'`]?)",
    _CI,
)
_URL_QUERY_PAIR = re.compile(f"([?&])({_FORM_KEY})=({_URL_QUERY_VALUE})")
_FORM_OBFUSCATION = re.compile(f"[{_INVISIBLE}+]")
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")
_FORM_PAIR_BOUNDARY = re.compile(r"&[A-Za-z_][A-Za-z0-9_.-]*=")


def _normalize_body_key(value: str) -> str:
    stripped = _strip_separators(value)
    try:
        return _strip_separators(_u.decode_uri_component(stripped)).lower().replace("-", "_")
    except ValueError:
        return stripped.lower().replace("-", "_")


def _is_sensitive_body_key(key: str) -> bool:
    return is_sensitive_url_query_param_name(key) or _normalize_body_key(key) in _BODY_SECRET_KEYS


def _has_encoded_or_invisible_key(key: str) -> bool:
    return bool(_PERCENT_ESCAPE.search(key)) or bool(_FORM_OBFUSCATION.search(key))


def _assignment_spans(text: str, kind: str) -> Iterator[tuple[int, int, str]]:
    if not text or (kind == "url" and "?" not in text):
        return
    if kind == "encoded" and "%" not in text and not _FORM_OBFUSCATION.search(text):
        return
    if kind == "context" and "=" not in text and ":" not in text:
        return

    def visit(key: str, token: str, offset: int) -> Iterator[tuple[int, int, str]]:
        if kind == "encoded" and not _has_encoded_or_invisible_key(key):
            return
        if not _is_sensitive_body_key(key):
            return
        split = _split_secret_value(token)
        yield offset + split.start, offset + split.end, split.maskable

    if kind == "form":
        cursor = 0
        for pair in text.split("&"):
            equals = pair.find("=")
            if equals >= 0:
                yield from visit(pair[:equals], pair[equals + 1 :], cursor + equals + 1)
            cursor += len(pair) + 1
        return
    pattern = _URL_QUERY_PAIR if kind == "url" else _ENCODED_FORM_PAIR if kind == "encoded" else _CONTEXT_FORM_PAIR
    key_index = 3 if kind == "context" else 2
    for m in pattern.finditer(text):
        prefix = m.group(1) or ""
        key = m.group(key_index) or ""
        yield from visit(key, m.group(key_index + 1) or "", m.start() + len(prefix) + len(key) + 1)


def _redact_assignments(text: str, kind: str) -> str:
    parts: list[str] = []
    cursor = 0
    for start, end, maskable in _assignment_spans(text, kind):
        parts.append(text[cursor:start])
        parts.append(mask_token(maskable) if kind == "url" else MASK)
        cursor = end
    if not parts:
        return text
    parts.append(text[cursor:])
    return "".join(parts)


def _redact_form_body_line(text: str) -> str:
    if not text:
        return text
    redacted = _redact_assignments(_redact_assignments(text, "encoded"), "context")
    if "&" not in redacted:
        return redacted
    if _FORM_BODY.match(redacted):
        return _redact_assignments(redacted, "form")

    def substring(m: re.Match[str]) -> str:
        prefix, body = m.group(1), m.group(2)
        new_body = _redact_assignments(body, "form")
        return m.group(0) if new_body == body else f"{prefix}{new_body}"

    redacted = _FORM_BODY_SUBSTRING.sub(substring, redacted)
    return _redact_assignments(_redact_assignments(redacted, "encoded"), "context")


def _redact_form_body(text: str) -> str:
    if "=" not in text:
        return text
    if not _LINE_BREAK.search(text):
        return _redact_form_body_line(text)
    return "".join(
        segment if segment in ("\r\n", "\r", "\n") else _redact_form_body_line(segment)
        for segment in _LINE_BREAK.split(text)
    )


# ---------------------------------------------------------------------------------------------------
# The pattern list
# ---------------------------------------------------------------------------------------------------

_PAY_ENV = (
    "CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|PAYMENT[_-]?CREDENTIAL"
    "|SHARED[_-]?PAYMENT[_-]?TOKEN"
)
_PAY_QUERY = (
    "card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential"
    "|shared[-_]?payment[-_]?token"
)
_PAY_JSON = (
    "cardNumber|card_number|cardCvc|card_cvc|cardCvv|card_cvv|cvc|cvv|securityCode|security_code"
    "|paymentCredential|payment_credential|sharedPaymentToken|shared_payment_token"
)
_AWS_FIELD = "aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey"
_AUTH_QUERY_KEYS = (
    "access[-_]?token|auth[-_]?token|hook[-_]?token|refresh[-_]?token|id[-_]?token|api[-_]?key|apikey"
    f"|client[-_]?secret|app[-_]?secret|private[-_]?key|{_AWS_FIELD}|credential|authorization|token|key"
    "|secret|password|pass|passwd|auth|jwt|session|code|signature"
    "|x[-_]?amz[-_]?(?:signature|security[-_]?token)"
)
_STANDALONE_KEYS = (
    "access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|api[-_]?key|client[-_]?secret"
    "|app[-_]?secret|private[-_]?key|authorization|jwt|token|secret|password|pass|passwd|credential"
    f"|{_PAY_QUERY}"
)
_CONFIG_KEYS = (
    "access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)"
    "|client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization"
    f"|jwt|token|secret|password|passphrase|pass|passwd|credential|{_PAY_QUERY}"
)
_CONFIG_QUOTED_KEYS = (
    "access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)"
    "|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd"
    f"|{_PAY_QUERY}"
)
_CONFIG_DIRECT_KEYS = (
    "access-token|refresh-token|id-token|auth-token|hook-token|api[-_]?(?:key|secret)|secret[-_]?key"
    "|key[-_]?material|passphrase"
)
_PREFIXED_PASSWORD_KEYS = "password|passphrase|pass|passwd"
_CLI_FLAG_KEYS = (
    f"{_AWS_FIELD}|api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token"
    f"|secret|password|passwd|credential|private[-_]?key|client[-_]?secret|{_PAY_QUERY}"
)
_JSON_SECRET_KEYS = (
    "apiKey|api_key|apiToken|api_token|bearerToken|bearer_token|token|secret|password|passwd"
    f"|{_AWS_FIELD}|credential|authorization|proxy-authorization|cookie|set-cookie|x-api-key"
    "|x-auth-token|accessToken|access_token|refreshToken|refresh_token|idToken|id_token|authToken"
    "|auth_token|clientSecret|client_secret|privateKey|private_key|secret_value|raw_secret"
    "|secret_input|key_material"
)
_JS_SER_QUOTE = "(?:\\\\{1,64}[\"']|[\"']|)"
_JS_SER_TAB = "\\\\{1,64}t"
_JS_SER_INDENT = f"(?:[ \\t]+|{_JS_SER_TAB})"
_JS_WS_TAIL = (
    f"[ \\t]*\\r?\\n{_JS_SER_INDENT}|[ \\t]*\\\\{{1,64}}r\\\\{{1,64}}n{_JS_SER_INDENT}"
    f"|[ \\t]*\\\\{{1,64}}n{_JS_SER_INDENT}|[ \\t]*{_JS_SER_TAB}[ \\t]*"
)
_JS_OPT_WS = f"(?:{_JS_WS_TAIL}|[ \\t]*)"
_JS_REQ_WS = f"(?:{_JS_WS_TAIL}|[ \\t]+)"
_JS_LEGACY_WS = (
    f"(?:[ \\t\\r\\n]*|[ \\t]*\\\\{{1,64}}r\\\\{{1,64}}n(?:[ \\t]*|{_JS_SER_TAB})"
    f"|[ \\t]*\\\\{{1,64}}n(?:[ \\t]*|{_JS_SER_TAB})|[ \\t]*{_JS_SER_TAB}[ \\t]*)"
)
_JS_HEADER_BOUNDARY = "(^|[^A-Za-z0-9_-]|\\\\{1,64}[rn])"
_JS_LOG_BOUNDARY = "(^|[^A-Za-z0-9_?&-]|\\\\{1,64}[rn])"
_JS_CREDENTIAL = "((?:\\[REDACTED\\]|[^\\s\\\\\"',;&#?<>)}\\]]+))"
_JS_SCHEME = "[A-Za-z0-9!#$%&'*+.^_`|~-]+"
_JS_HEADER_END = f"[ \\t]*(?={_JS_SER_QUOTE}(?:$|[,;)}}\\]]|\\r?\\n(?![ \\t])))"
_JS_NOT_SPECIAL_SCHEME = f"(?!(?:Bearer|Basic|Bot)(?={_JS_REQ_WS}))"
_CREDENTIAL_HEADER_KEYS = "x-goog-api-key|api-key|apikey|x-api-token|x-access-token"
_GATEWAY_HEADER_KEYS = "X-OpenClaw-Token|x-pomerium-jwt-assertion|X-Api-Key|X-Auth-Token"
_BASE64_GUARD = "(?<!;base64,[A-Za-z0-9+/=]*)"
_B64 = "(^|[^A-Za-z0-9])" + _BASE64_GUARD
_IDENT = "(^|[^A-Za-z0-9_])"


def _authorization(scheme: str) -> str:
    return f"Authorization{_JS_SER_QUOTE}[ \\t]*[:=]{_JS_LEGACY_WS}{_JS_SER_QUOTE}{scheme}{_JS_REQ_WS}{_JS_CREDENTIAL}"


def _header(name: str, *, scheme: bool, until_end: bool) -> str:
    head = f"{_JS_HEADER_BOUNDARY}{name}{_JS_SER_QUOTE}[ \\t]*[:=]{_JS_OPT_WS}{_JS_SER_QUOTE}"
    if name == "Authorization":
        head += _JS_NOT_SPECIAL_SCHEME
    if scheme:
        return f"{head}{_JS_SCHEME}{_JS_REQ_WS}{_JS_CREDENTIAL}"
    return f"{head}{_JS_CREDENTIAL}{_JS_HEADER_END}" if until_end else head


def _credential_style(separator: str) -> str:
    return (
        f"{_JS_LOG_BOUNDARY}(?:{_CREDENTIAL_HEADER_KEYS}){_JS_SER_QUOTE}[ \\t]*{separator}{_JS_OPT_WS}"
        f"{_JS_SER_QUOTE}([^\\s\\\\\"',;]+)"
    )


# (source, case-sensitive?, flags): flags in {"shell", "form", "chunk-unsafe"}
_FIELD_SOURCES: list[tuple[str, bool, frozenset[str]]] = [
    (
        f"\\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{_PAY_ENV})\\b\\s*[=:]\\s*([\"']?)([^\\s\"'\\\\]+)\\1",
        True,
        frozenset({"shell"}),
    ),
    (
        f"\\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{_PAY_ENV})\\b\\s*[=:]\\s*\\\\+([\"'])"
        "([^\\s\"'\\\\]+)\\\\+\\1",
        True,
        frozenset({"shell"}),
    ),
    (f'"(?:{_JSON_SECRET_KEYS})"\\s*:\\s*"([^"]+)"', False, frozenset()),
    (f'"(?:{_PAY_JSON})"\\s*:\\s*"([^"]+)"', False, frozenset()),
    (
        "(^|[\\s,{])[\"']?(?:api[-_]key|access[-_]token|refresh[-_]token|id[-_]token|authToken"
        "|auth[-_]token|clientSecret|client[-_]secret|appSecret|app[-_]secret|private[-_]key|credential"
        "|authorization|secret[-_]value|raw[-_]secret|secret[-_]input|key[-_]material)[\"']?\\s*[:=]\\s*"
        "([\"'])([^\"'\\r\\n]+)\\2",
        False,
        frozenset(),
    ),
    (
        "(^|[\\s,{])[\"']?(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token)"
        "[\"']?\\s*[:=]\\s*([\"'])([^\"'\\r\\n]+)\\2",
        False,
        frozenset(),
    ),
    (f"--(?:{_CLI_FLAG_KEYS})=([^\\s\"']+)", False, frozenset()),
    (f"--(?:{_CLI_FLAG_KEYS})\\s+(?!(?:or|and)\\b(?=\\s+--))([\"']?)([^\\s\"']+)\\1", False, frozenset()),
    (_authorization("Bearer"), False, frozenset({"chunk-unsafe"})),
    (_authorization("Basic"), False, frozenset({"chunk-unsafe"})),
    (_authorization("Bot"), False, frozenset({"chunk-unsafe"})),
    (_header("Proxy-Authorization", scheme=True, until_end=False), False, frozenset({"chunk-unsafe"})),
    (_header("Proxy-Authorization", scheme=False, until_end=True), False, frozenset({"chunk-unsafe"})),
    (_header("Authorization", scheme=True, until_end=False), False, frozenset({"chunk-unsafe"})),
    (_header("Authorization", scheme=False, until_end=True), False, frozenset({"chunk-unsafe"})),
    (_credential_style(":"), False, frozenset({"chunk-unsafe"})),
    (_credential_style("="), False, frozenset({"chunk-unsafe", "form"})),
    (f"{_JS_LOG_BOUNDARY}(?:{_GATEWAY_HEADER_KEYS})\\s*:\\s*([^\\s\"',;]+)", False, frozenset()),
    (f"{_JS_LOG_BOUNDARY}(?:{_GATEWAY_HEADER_KEYS})\\s*=\\s*([^\\s\"',;]+)", False, frozenset({"form"})),
    ("\\bBearer\\s+([-A-Za-z0-9._~+/=]{18,})(?![-A-Za-z0-9._~+/=])", False, frozenset({"chunk-unsafe"})),
    ("\\b(?:https?|wss?|ftp):\\/\\/[^\\/\\s:@]*:([^\\/\\s@]+)@", False, frozenset()),
    (
        "\\b(?:postgres(?:ql)?|mysql|mongodb(?:\\+srv)?|rediss?|amqps?):\\/\\/[^:\\s/@]*:([^@\\s]+)@",
        False,
        frozenset(),
    ),
    (
        f"(^|[\\s,;])(?:{_AUTH_QUERY_KEYS}|app[-_]?secret|credential|{_PAY_QUERY})=([^&\\s]+)"
        "(?=&[A-Za-z_][A-Za-z0-9_.-]*=)",
        False,
        frozenset(),
    ),
    (
        f'(^|[\\s,;({{\\["])(?:{_STANDALONE_KEYS})=(["\'\\x60])((?:(?!\\2)[^\\r\\n])+)\\2',
        False,
        frozenset({"shell"}),
    ),
    (
        f'(^|[\\s,;({{\\["])(?:{_STANDALONE_KEYS})=(["\'\\x60]?[^\\s&#"\'\\x60<>]+)',
        False,
        frozenset({"shell"}),
    ),
    (
        f"(^|[\\s,{{])(?:(?:{_CONFIG_QUOTED_KEYS})(?:\\s*:\\s*|\\s+=\\s*|=\\s*)"
        f"|[a-z0-9][a-z0-9._-]{{0,79}}[-_](?:{_PREFIXED_PASSWORD_KEYS})\\s*[:=]\\s*"
        f"|[a-z0-9_.-]{{1,80}}\\.(?:{_CONFIG_KEYS})\\s*[:=]\\s*)([\"'\\x60])((?:(?!\\2)[^\\r\\n])+)\\2",
        True,
        frozenset(),
    ),
    (f"(^|[\\s,{{])(?:{_CONFIG_KEYS})(?:\\s*:\\s*|\\s+=\\s*|=\\s+)([^\\s#\"'\\x60<>]+)", True, frozenset()),
    (f"(^|[\\s,{{])(?:{_CONFIG_DIRECT_KEYS})=([^\\s#\"'\\x60<>]+)", True, frozenset()),
    (
        f"(^|[\\s,{{])[a-z0-9][a-z0-9._-]{{0,79}}[-_](?:{_PREFIXED_PASSWORD_KEYS})\\s*[:=]\\s*([^\\s#\"'\\x60<>]+)",
        True,
        frozenset(),
    ),
    (
        f"(^|[\\s,{{])[a-z0-9_.-]{{1,80}}\\.(?:{_CONFIG_KEYS})\\s*[:=]\\s*([^\\s#\"'\\x60<>]+)",
        True,
        frozenset(),
    ),
    ("-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]+?-----END [A-Z ]*PRIVATE KEY-----", False, frozenset()),
    (
        f"(^|[\\s,{{])[\"']?(?:{_AWS_FIELD})[\"']?\\s*[:=]\\s*([\"']?)([A-Za-z0-9/+=]{{40}})(?![A-Za-z0-9/+=])\\2",
        False,
        frozenset(),
    ),
]

_VENDOR_SOURCES: list[str] = [
    "\\b(sk-[A-Za-z0-9_-]{8,})\\b",
    "(ghp_[A-Za-z0-9]{10,})",
    "(github_pat_[A-Za-z0-9_]{10,})",
    "(gho_[A-Za-z0-9]{10,})",
    "(ghu_[A-Za-z0-9]{10,})",
    "(ghs_[A-Za-z0-9]{10,})",
    "(ghr_[A-Za-z0-9]{10,})",
    "(glpat-[A-Za-z0-9._=\\-]{20,})",
    "(gloas-(?:[A-Fa-f0-9]{65,}|[A-Za-z0-9_-]{64}|[A-Fa-f0-9]{32,}))",
    "(gldt-[A-Za-z0-9_-]{20,})",
    "(glcbt-[A-Za-z0-9]{1,5}_[A-Za-z0-9_-]{20,})",
    "(glptt-[A-Za-z0-9_-]{40,})",
    "(glft-(?:[A-Za-z0-9_-]{20,}|[a-h0-9]+-[0-9]+_))",
    "(glimt-[A-Za-z0-9_-]{25,})",
    "(glagent-[A-Za-z0-9_-]{50,})",
    "(glwt-[A-Za-z0-9_-]{20,})",
    "(glsoat-[A-Za-z0-9_-]{20,})",
    "(glffct-[A-Za-z0-9_-]{20,})",
    "(glrt-[A-Za-z0-9._-]{20,})",
    "(glrtr?-[A-Za-z0-9_-]{27,300}\\.[0-9a-z]{2}\\.[0-9a-z]{9})",
    "(GR1348941[A-Za-z0-9_-]{20,})",
    "(_gitlab_session=[A-Za-z0-9%._-]{20,})",
    "(xox[baprs]-[A-Za-z0-9-]{10,})",
    "(xapp-[A-Za-z0-9-]{10,})",
    "(https:\\/\\/hooks\\.slack\\.com\\/(?:services\\/T[A-Z0-9]+\\/B[A-Z0-9]+"
    "|workflows\\/T[A-Z0-9]+\\/A[A-Z0-9]+\\/[0-9]{17,19})\\/[A-Za-z0-9]{20,})",
    "(https:\\/\\/discord(?:app)?\\.com\\/api\\/webhooks\\/[0-9]{17,20}\\/[A-Za-z0-9_-]{60,})",
    "discord(?:.|\\n|\\r){0,40}?\\b([A-Za-z0-9_-]{24}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27})\\b",
    "(gsk_[A-Za-z0-9_-]{10,})",
    "(AIza[0-9A-Za-z\\-_]{20,})",
    "(ya29\\.[0-9A-Za-z_\\-./+=]{10,})",
    "(1//0[0-9A-Za-z_\\-./+=]{10,})",
    "(eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,})",
    "(pplx-[A-Za-z0-9_-]{10,})",
    "(fal_[A-Za-z0-9_-]{10,})",
    f"{_IDENT}(fc-[A-Za-z0-9]{{10,}})",
    "(bb_live_[A-Za-z0-9_-]{10,})",
    f"{_B64}(gAAAA[A-Za-z0-9_=-]{{20,}})",
    "(sk_live_[A-Za-z0-9]{10,})",
    "(sk_test_[A-Za-z0-9]{10,})",
    "(rk_live_[A-Za-z0-9]{10,})",
    "(SG\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,})",
    "(npm_[A-Za-z0-9]{10,})",
    "(pypi-[A-Za-z0-9_-]{10,})",
    "(dop_v1_[A-Za-z0-9]{10,})",
    "(doo_v1_[A-Za-z0-9]{10,})",
    "(dor_v1_[A-Za-z0-9]{10,})",
    "(dp\\.(?:ct|pt|sa|scim|audit)\\.[A-Za-z0-9]{40,44})",
    "(dp\\.st\\.[A-Za-z0-9]{40,44})",
    "(dp\\.st\\.[a-z0-9_-]{2,35}\\.[A-Za-z0-9]{40,44})",
    "(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})",
    "(bkua_[a-z0-9]{40})",
    "(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})",
    "(sbp_[a-z0-9]{40})",
    f"{_B64}(dapi[0-9a-f]{{32}}(?:-\\d)?)",
    "(dd[pw]_[A-Za-z0-9]{36})",
    "(glsa_[A-Za-z0-9_]{41})",
    "(glc_eyJ[A-Za-z0-9+/=]{60,160})",
    "(nfp_[A-Za-z0-9_]{36})",
    "(CFPAT-[A-Za-z0-9_\\-]{40,})",
    f"{_B64}(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{{8}})",
    f"{_B64}(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{{8}})",
    f"{_B64}(ATBB[A-Za-z0-9_=.-]{{16,}})",
    "(BBDC-[A-Za-z0-9+/@_-]{40,50})",
    "(HRKU-AA[A-Za-z0-9_-]{20,})",
    "(pat-(?:eu|na)1-[A-Za-z0-9]{8}\\-[A-Za-z0-9]{4}\\-[A-Za-z0-9]{4}\\-[A-Za-z0-9]{4}\\-[A-Za-z0-9]{12})",
    "(apify_api_[A-Za-z0-9\\-]{20,})",
    "(FlyV1 fm\\d+_[A-Za-z0-9+/=,_-]{100,})",
    "(fio-u-[A-Za-z0-9_-]{40,})",
    "(^|[^A-Za-z0-9_])(am_[A-Za-z0-9_-]{10,})",
    "(^|[^A-Za-z0-9_])(sk_[A-Za-z0-9_]{10,})",
    "(tvly-[A-Za-z0-9]{10,})",
    "(exa_[A-Za-z0-9]{10,})",
    "(syt_[A-Za-z0-9]{10,})",
    "(retaindb_[A-Za-z0-9]{10,})",
    "(hsk-[A-Za-z0-9]{10,})",
    "(mem0_[A-Za-z0-9]{10,})",
    "(brv_[A-Za-z0-9]{10,})",
    "(xai-[A-Za-z0-9]{30,})",
    f"{_IDENT}(fw-[A-Za-z0-9]{{30,}})",
    f"{_IDENT}(fw_[A-Za-z0-9]{{30,}})",
    f"{_IDENT}(fpk_[A-Za-z0-9]{{30,}})",
    f"{_B64}(AKIA[A-Z0-9]{{16}})",
    f"{_B64}(ASIA[A-Z0-9]{{16}})",
    "(AKID[A-Za-z0-9]{10,})",
    "(LTAI[A-Za-z0-9]{10,})",
    "(hf_[A-Za-z0-9]{10,})",
    "(api_org_[A-Za-z0-9]{20,})",
    "(r8_[A-Za-z0-9]{10,})",
    "\\bbot(\\d{6,}:[A-Za-z0-9_-]{20,})\\b",
    "\\b(\\d{6,}:[A-Za-z0-9_-]{20,})\\b",
]


@dataclass(frozen=True, slots=True)
class _Match:
    text: str  # the whole match
    start: int
    groups: tuple[str, ...]
    group_starts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Pattern:
    source: str  # the JavaScript source, for tests comparing against the reference
    regex: re.Pattern[str]
    shell: bool = False
    form_aware: bool = False
    chunk_unsafe: bool = False
    base64_guard: bool = False

    def matches(self, text: str) -> Iterator[_Match]:
        pos = 0
        n = len(text)
        while pos <= n:
            m = self.regex.search(text, pos)
            if m is None:
                return
            if self.base64_guard and _after_base64_prefix(text, m.end(1)):
                pos = m.start() + 1
                continue
            count = self.regex.groups
            groups = tuple(m.group(i) or "" for i in range(1, count + 1))
            starts = tuple(m.start(i) for i in range(1, count + 1))
            yield _Match(m.group(0), m.start(), groups, starts)
            pos = m.end() if m.end() > m.start() else m.end() + 1


def _after_base64_prefix(text: str, index: int) -> bool:
    """JavaScript ``(?<!;base64,[A-Za-z0-9+/=]*)`` at ``index`` (case-insensitive)."""
    cursor = index
    while cursor > 0 and text[cursor - 1] in _BASE64_CHARS:
        cursor -= 1
    return cursor >= 8 and text[cursor - 8 : cursor].lower() == ";base64,"


_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def _compile_patterns() -> tuple[_Pattern, ...]:
    out: list[_Pattern] = []
    for source, case_sensitive, flags in _FIELD_SOURCES:
        regex_flags = re.ASCII | (0 if case_sensitive else re.IGNORECASE)
        out.append(
            _Pattern(
                source=source,
                regex=_js_regex(source, regex_flags),
                shell="shell" in flags,
                form_aware="form" in flags,
                chunk_unsafe="chunk-unsafe" in flags or source.startswith("-----BEGIN"),
            )
        )
    for source in _VENDOR_SOURCES:
        guarded = _BASE64_GUARD in source
        out.append(
            _Pattern(
                source=source,
                regex=_js_regex(source.replace(_BASE64_GUARD, ""), re.ASCII | re.IGNORECASE),
                chunk_unsafe=source.startswith((_B64, _IDENT))
                or source.startswith("\\bbot(")
                or source.startswith("\\b(\\d{6,}:"),
                base64_guard=guarded,
            )
        )
    return tuple(out)


_compiled_patterns: tuple[_Pattern, ...] | None = None


def _patterns() -> tuple[_Pattern, ...]:
    """The pattern table, compiled on first use: compiling it costs ~0.2 s, which every CLI start-up
    would pay although most printed lines never get past the prefilter."""
    global _compiled_patterns
    if _compiled_patterns is None:
        _compiled_patterns = _compile_patterns()
    return _compiled_patterns


def _redact_pem_block(block: str) -> str:
    lines = [line for line in re.split(r"\r?\n", block) if line]
    if len(lines) < 2:
        return MASK
    return f"{lines[0]}\n…redacted…\n{lines[-1]}"


def _replacement(pattern: _Pattern, m: _Match) -> str:
    if "PRIVATE KEY-----" in m.text:
        return _redact_pem_block(m.text)
    index = -1
    value = m.text
    for i, group in enumerate(m.groups):
        if group:
            index, value = i, group
    if value == MASK:
        return m.text
    offset = 0 if value == m.text or index < 0 else m.group_starts[index] - m.start
    token = value
    secret, suffix = token, ""
    if pattern.form_aware:
        boundary = _FORM_PAIR_BOUNDARY.search(token)
        if boundary:
            secret, suffix = token[: boundary.start()], token[boundary.start() :]
    if _split_secret_value(secret).maskable == MASK:
        return m.text
    if pattern.shell:
        if _preserves_shell_reference(m.text, token) or _EMPTY_EXPANSION_TAIL.match(token):
            return m.text
        masked = mask_token(token)
    else:
        masked = _mask_secret_value(secret) + suffix
    return m.text[:offset] + masked + m.text[offset + len(token) :]


_SHELL_KEY = re.compile(r"[A-Z_][A-Z0-9_]*\Z")
_SHELL_BARE = re.compile(r"\$([A-Z_][A-Z0-9_]*)\Z")
_SHELL_BRACED = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)(?::[-=?+])?\}\Z")
_ENV_KEY = _js_regex("\\b([A-Z_][A-Z0-9_]*)\\b\\s*[=:]", re.ASCII)
_EMPTY_EXPANSION_TAIL = re.compile(r"[-=?+]\}\Z")


def _preserves_shell_reference(match: str, token: str) -> bool:
    key_match = _ENV_KEY.search(match)
    if not key_match:
        return False
    key = key_match.group(1)
    if not _SHELL_KEY.match(key):
        return False
    bare = _SHELL_BARE.match(token)
    if bare:
        return bare.group(1) == key
    braced = _SHELL_BRACED.match(token)
    return braced is not None and braced.group(1) == key


_CHUNK_THRESHOLD = 32768
_CHUNK_SIZE = 16384


def _to_code_units(text: str) -> str:
    """The text with astral characters as two surrogate code points (JavaScript's UTF-16 view)."""
    out: list[str] = []
    for c in text:
        o = ord(c)
        if o > 0xFFFF:
            o -= 0x10000
            out.append(chr(0xD800 + (o >> 10)) + chr(0xDC00 + (o & 0x3FF)))
        else:
            out.append(c)
    return "".join(out)


def _from_code_units(text: str) -> str:
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _apply(pattern: _Pattern, text: str) -> str:
    if pattern.chunk_unsafe or len(text) * 2 <= _CHUNK_THRESHOLD or _u16len(text) <= _CHUNK_THRESHOLD:
        return _apply_whole(pattern, text)
    # Large texts are redacted in chunks of 16 384 UTF-16 code units, as the reference does.
    units = _to_code_units(text)
    parts = [
        _to_code_units(_apply_whole(pattern, _from_code_units(units[i : i + _CHUNK_SIZE])))
        for i in range(0, len(units), _CHUNK_SIZE)
    ]
    return _from_code_units("".join(parts))


def _apply_whole(pattern: _Pattern, text: str) -> str:
    parts: list[str] = []
    end = 0
    for m in pattern.matches(text):
        parts.append(text[end : m.start])
        parts.append(_replacement(pattern, m))
        end = m.start + len(m.text)
    if not parts:
        return text
    parts.append(text[end:])
    return "".join(parts)


# ---------------------------------------------------------------------------------------------------
# 40-character AWS secret access keys
# ---------------------------------------------------------------------------------------------------

_AWS_RUN = re.compile(r"[A-Za-z0-9/+=]{40}")
_AWS_VALUE = re.compile(
    r"(?=[A-Za-z0-9/+=]{0,39}[A-Z])(?=[A-Za-z0-9/+=]{0,39}[a-z])(?=[A-Za-z0-9/+=]{0,39}[0-9/+=])"
    r"(?=[A-Za-z0-9/+=]{0,39}[G-Zg-z/+=])[A-Za-z0-9/+=]{40}"
)
_JS_WS_CHARS = frozenset("\t\n\x0b\x0c\r \xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | frozenset(
    chr(c) for c in range(0x2000, 0x200B)
)
_CLOSING = {'"': '"', "'": "'", "`": "`", "<": ">", "(": ")", "[": "]", "{": "}"}


def _aws_could_match(text: str) -> bool:
    return len(text) >= 40 and bool(_AWS_RUN.search(text)) and bool(_AWS_VALUE.search(text))


def _is_aws_char(c: str) -> bool:
    return ("A" <= c <= "Z") or ("a" <= c <= "z") or ("0" <= c <= "9") or c in ("/", "+", "=")


@dataclass(slots=True)
class _UrlContext:
    start: int
    end: int
    closing: str | None
    closing_escape_depth: int
    authority_end: int = -1
    port_start: int = -1
    port_valid: bool = True
    has_at: bool = False
    query_or_fragment: bool = False


@dataclass(frozen=True, slots=True)
class _Run:
    start: int
    end: int
    origin: int
    url: _UrlContext | None


def _aws_matches(text: str) -> Iterator[tuple[int, str]]:
    if not _aws_could_match(text):
        return
    run_start = -1
    scheme_start = -1
    url: _UrlContext | None = None
    backslashes = 0
    runs: list[_Run] = []
    n = len(text)
    for index in range(n + 1):
        char = text[index] if index < n else ""
        whitespace = index == n or char in _JS_WS_CHARS
        escape_depth = backslashes
        backslashes = backslashes + 1 if char == "\\" else 0
        if char and _is_aws_char(char):
            if run_start == -1:
                run_start = index
        elif run_start != -1:
            if index - run_start == 40:
                runs.append(_Run(run_start, index, run_start, url))
            elif index - run_start > 40 and char == "@" and _ch(text, index - 41) == "/":
                runs.append(_Run(index - 40, index, run_start, url))
            run_start = -1
        if whitespace:
            if url:
                url.end = min(url.end, index)
            for run in runs:
                ctx = run.url
                public_url = (
                    ctx is not None
                    and not ctx.has_at
                    and ctx.port_valid
                    and (
                        ctx.port_start == -1
                        or (ctx.end if ctx.authority_end == -1 else ctx.authority_end) > ctx.port_start + 1
                    )
                )
                before = _ch(text, run.start - 1)
                after = _ch(text, run.end)
                slash_credential = run.start != run.origin
                port_credential = (
                    ctx is not None
                    and ctx.port_start != -1
                    and run.origin == ctx.port_start + 1
                    and ctx.authority_end > run.origin
                    and run.end > ctx.authority_end
                    and after == "@"
                )
                if (
                    (not slash_credential and (before == "_" or (before != "" and _is_aws_char(before))))
                    or after == "_"
                    or text[max(run.origin - 8, 0) : max(run.origin, 0)] == ";base64,"
                    or (
                        public_url
                        and not port_credential
                        and ctx is not None
                        and run.start >= ctx.start
                        and run.end <= ctx.end
                    )
                ):
                    continue
                match = text[run.start : run.end]
                if _AWS_VALUE.search(match):
                    yield run.start, match
            runs.clear()
            scheme_start = -1
            url = None
            continue
        if url and index >= url.start:
            if char == url.closing and escape_depth == url.closing_escape_depth:
                url.end = min(url.end, index)
                url = None
            else:
                if char in "?#\"'<>`|()[]{}":
                    url.end = min(url.end, index)
                url.query_or_fragment = url.query_or_fragment or char in ("?", "#")
                if url.authority_end == -1:
                    url.has_at = url.has_at or char == "@"
                    if char in "/?#":
                        url.authority_end = index
                    elif index < url.end:
                        if char == ":":
                            url.port_valid = url.port_valid and url.port_start == -1
                            url.port_start = index
                        elif url.port_start != -1 and not ("0" <= char <= "9"):
                            url.port_valid = False
        if char and char.isascii() and (char.isalnum() or char in "+.-"):
            if scheme_start == -1:
                scheme_start = index
        else:
            if (
                (url is None or (index >= url.end and not url.query_or_fragment))
                and char == ":"
                and text.startswith("//", index + 1)
                and scheme_start != -1
                and text[scheme_start].isascii()
                and text[scheme_start].isalpha()
            ):
                opening = _ch(text, scheme_start - 1)
                depth = 0
                offset = scheme_start - 2
                while offset >= 0 and text[offset] == "\\":
                    depth += 1
                    offset -= 1
                url = _UrlContext(
                    start=index + 3,
                    end=n,
                    closing=_CLOSING.get(opening) if opening else None,
                    closing_escape_depth=depth,
                )
            scheme_start = -1


def _redact_aws(text: str) -> str:
    parts: list[str] = []
    end = 0
    for start, match in _aws_matches(text):
        parts.append(text[end:start])
        parts.append(_mask_secret_value(match))
        end = start + len(match)
    if not parts:
        return text
    parts.append(text[end:])
    return "".join(parts)


# ---------------------------------------------------------------------------------------------------
# Prefilter (texts that cannot match are returned as they are)
# ---------------------------------------------------------------------------------------------------

_PREFILTER = re.compile(
    "|".join(
        [
            "KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|COOKIE|SIGNATURE|CREDENTIAL|CARD|CVC|CVV|PAYMENT|PRIVATE KEY",
            f"security[-_]?code|pass[{_WS}]*[=:]|passphrase[{_WS}]*[=:]"
            f"|_(?:password|pass|passphrase|passwd)[{_WS}]*[=:]|jwt[{_WS}]*[=:]|session=|code=|sig[{_WS}]*=",
            f"Bearer[{_WS}]+",
            f"://[^/{_WS}:@]*:[^{_WS}@]+@",
            "sk-|gh[opsur]_|github_pat_|glpat-|gloas-|gldt-|glcbt-|glptt-|glft-|glimt-|glagent-|glwt-"
            "|glsoat-|glffct-|glrt-|glrtr-|GR1348941|_gitlab_session=|xox[baprs]-|xapp-|hooks\\.slack\\.com"
            "|discord|gsk_|AIza|ya29\\.|1//0|eyJ|pplx-|fal_|fc-|bb_live_|gAAAA|[sr]k_(?:live|test)_|SG\\."
            "|npm_|pypi-|do[opr]_v1_|dp\\.(?:ct|pt|sa|st|scim|audit)\\.|dckr_|bkua_|CCIPAT_|sbp_|dapi[0-9a-f]"
            "|dd[pw]_|glsa_|nfp_|CFPAT-|ATCTT3|ATATT|ATBB|BBDC-|HRKU-|pat-(?:eu|na)1-|apify_api_|FlyV1"
            "|fio-u-|tvly-|exa_|syt_|retaindb_|mem0_|brv_|xai-|fw-|fw_|fpk_",
            "(?:^|[^A-Za-z0-9_])(?:am_|sk_)",
            "A[KS]IA[A-Z0-9]|AKID|LTAI|hf_|api_org_|r8_",
            "bot[0-9]{6,}:|[0-9]{6,}:[A-Za-z0-9_-]{20,}",
            f"%[0-9A-Fa-f]{{2}}[{_INVISIBLE}+A-Za-z0-9_%.\\-]*=",
        ]
    ),
    re.IGNORECASE,
)
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_%.-")
_INVISIBLE_CHAR = re.compile(f"[{_INVISIBLE}+]")


def _has_obfuscated_form_key(text: str) -> bool:
    """An ``=`` right after a key-like run mixing key characters with ``+``/invisible characters."""
    index = text.find("=")
    while index >= 0:
        cursor = index
        has_key = has_invisible = False
        while cursor > 0:
            c = text[cursor - 1]
            if c in _KEY_CHARS:
                has_key = True
            elif _INVISIBLE_CHAR.match(c):
                has_invisible = True
            else:
                break
            cursor -= 1
        if has_key and has_invisible:
            return True
        index = text.find("=", index + 1)
    return False


def _could_match(text: str) -> bool:
    return bool(_PREFILTER.search(text)) or _has_obfuscated_form_key(text) or _aws_could_match(text)


# ---------------------------------------------------------------------------------------------------
# Public text redactors
# ---------------------------------------------------------------------------------------------------


def redact_sensitive_text(text: str) -> str:
    """The reference's ``redactSensitiveText`` with its built-in patterns (cli-registry §4.4, D4/D13).

    ``--env entries must use KEY=VALUE.`` → ``--env entries must use KEY=***``;
    ``Bearer abcdefghijklmnop123456`` → ``Bearer abcdef…3456``; ``https://u:p@h/?token=abc`` →
    ``https://u:***@h/?token=***``. Text without a pattern is returned unchanged.
    """
    if not text or not _could_match(text):
        return text
    result = _redact_form_body(_redact_assignments(_redact_structured_auth_headers(text), "url"))
    for pattern in _patterns():
        result = _apply(pattern, result)
    return _redact_aws(result)


def redact_text_line(line: str) -> str:
    """Redaction of one printed console text (stdout and stderr lines; not JSON documents)."""
    return redact_sensitive_text(line)


_SECRET_FLAGS = frozenset(
    {
        "--token", "--api-key", "--apikey", "--secret", "--password", "--provider-env", "--auth-token",
        "--access-token", "--refresh-token", "--client-secret", "--hook-token", "--gateway-token",
        "--bot-token", "--app-token", "--remote-token", "--push-token", "--webhook-secret",
        "--webhook-token", "--service-account-token", "--op-service-account-token", "--bearer",
        "--bearer-token", "--pat", "--personal-access-token", "--oauth-token", "--id-token",
        "--identity-token", "--session-token", "--service-token", "--private-key", "--recovery-key",
        "--gateway-key", "--session-key", "--active-key",
    }
)  # fmt: skip
_SECRET_FLAG_SUFFIX = re.compile(
    r"--(?:[a-z0-9]+(?:[-_][a-z0-9]+)*[-_])?(?:token|secret|password|passwd|passphrase|pin|api[-_]?key"
    r"|api[-_]?secret|secret[-_]?key|secret[-_]?access[-_]?key|access[-_]?key(?:[-_]?id)?|account[-_]?key"
    r"|client[-_]?key|consumer[-_]?key|license[-_]?key|subscription[-_]?key|webhook|credentials?|creds?"
    r"|auth(?:orization)?|bearer|pat|cookie|private[-_]?key|recovery[-_]?key|signing[-_]?key"
    r"|encryption[-_]?key|master[-_]?key|session[-_]?key|gateway[-_]?key|service[-_]?key|hook[-_]?key)"
)


def _is_secret_flag(arg: str) -> bool:
    if not arg.startswith("--"):
        return False
    name = arg.split("=", 1)[0].lower()
    return name in _SECRET_FLAGS or _SECRET_FLAG_SUFFIX.fullmatch(name) is not None


def redact_argv(args: Sequence[str]) -> list[str]:
    """Stdio launch arguments with secrets masked (client-runtime §1.8); same length as ``args``.

    ``--token abc`` → ``--token ***`` (the next argument is masked even when it starts with ``-``);
    ``--api-key=xyz`` → ``--api-key=***``; anything else goes through :func:`redact_sensitive_text`.
    """
    result: list[str] = []
    mask_next = False
    for arg in args:
        if mask_next:
            mask_next = False
            result.append(MASK)
            continue
        if _is_secret_flag(arg):
            equals = arg.find("=")
            if equals >= 0:
                result.append(f"{arg[: equals + 1]}{MASK}")
            else:
                result.append(arg)
                mask_next = True
            continue
        result.append(redact_sensitive_text(arg))
    return result


_BODY_MARKER = "Error POSTing to endpoint:"
_LEGACY_BODY_MARKER = re.compile(r"Error POSTing to endpoint \(HTTP [0-9]+\):")


def redact_diagnostic(text: str) -> str:
    """An MCP diagnostic message (client-runtime §4.12, upstream ``redactMcpDiagnosticError``).

    ``text`` is the joined error message (redacted or not). A response body after
    ``Error POSTing to endpoint:`` / ``Error POSTing to endpoint (HTTP <n>):`` is replaced by
    `` [redacted response body]``; URLs and secrets are redacted.
    """
    message = redact_sensitive_text(text)
    index = message.find(_BODY_MARKER)
    legacy = _LEGACY_BODY_MARKER.search(message)
    cut = index + len(_BODY_MARKER) if index >= 0 else legacy.end() if legacy else None
    if cut is not None:
        message = f"{message[:cut]} [redacted response body]"
    return redact_sensitive_text(redact_sensitive_url(message))


# ---------------------------------------------------------------------------------------------------
# sanitize_for_log
# ---------------------------------------------------------------------------------------------------

_OSC = re.compile("(?:\x1b\\]|\x9d)[^\x07\x1b\x9c]*(?:\x1b\\\\|\x07|\x9c)")
_LOG_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _strip_ansi(text: str) -> str:
    if "\x1b" not in text and "\x9b" not in text and "\x9d" not in text:
        return text
    out: list[str] = []
    copy_start = 0
    index = 0
    n = len(text)
    while index < n:
        code = ord(text[index])
        if code not in (27, 155, 157):
            index += 1
            continue
        osc = _OSC.match(text, index)
        if osc:
            out.append(text[copy_start:index])
            index = copy_start = osc.end()
            continue
        if code == 155:
            cursor = index + 1
        elif code == 27 and _ch(text, index + 1) == "[":
            cursor = index + 2
        else:
            index += 1
            continue
        controls: list[str] = []
        while cursor < n:
            c = ord(text[cursor])
            if c in (24, 26):
                cursor += 1
                break
            if c in (27, 155):
                break
            if c <= 31 or c == 127:
                controls.append(text[cursor])
                cursor += 1
                continue
            if 32 <= c <= 63:
                cursor += 1
                continue
            if 64 <= c <= 126:
                cursor += 1
            break
        out.append(text[copy_start:index])
        out.extend(controls)
        index = copy_start = cursor
    out.append(text[copy_start:])
    return "".join(out)


def sanitize_for_log(text: str) -> str:
    """Remove ANSI escape sequences (CSI, OSC) and every C0/C1 control character (client-runtime §4.12).

    ``"probe\\nWARN forged\\u001b[31m"`` → ``"probeWARN forged"``.
    """
    return _LOG_CONTROL.sub("", _strip_ansi(text))
