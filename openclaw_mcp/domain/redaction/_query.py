"""Query parameter names and values as the reference sees them: which names are credentials, and how
Node's ``URLSearchParams`` decodes a query string."""

from __future__ import annotations

from openclaw_mcp.domain.redaction._js import lazy_regex, strip_separators, to_code_units
from openclaw_mcp.jscompat import urlencoded as _qs
from openclaw_mcp.jscompat import urls as _u

__all__ = ["MAX_DEPTH", "is_sensitive_url_query_param_name", "node_search_params"]

_SENSITIVE_QUERY_NAMES = frozenset(
    {
        "token", "key", "api_key", "apikey", "secret", "access_token", "auth_token", "password", "pass",
        "passwd", "auth", "jwt", "session", "id_token", "code", "client_secret", "app_secret",
        "hook_token", "refresh_token", "signature", "x_amz_signature", "x_amz_security_token",
        "private_key", "credential", "authorization", "sig", "x_api_key", "x_access_token",
        "x_auth_token",
    }
)  # fmt: skip
_SCOPED_TOKEN_NAME = lazy_regex(r"(?:^|_)token(?:_[a-f0-9]{16,})?\Z")
_VALID_ESCAPE = lazy_regex(r"%[0-9A-Fa-f]{2}")
_HEX = frozenset("0123456789abcdefABCDEF")
MAX_DEPTH = 8


def _normalize_query_name(name: str) -> tuple[str, bool]:
    current = strip_separators(name)
    for _ in range(MAX_DEPTH + 1):
        try:
            decoded = strip_separators(_qs.decode_uri_component(current))
        except ValueError:
            return current.strip().lower().replace("-", "_"), "%" in current
        if decoded == current:
            return current.strip().lower().replace("-", "_"), False
        current = decoded
    return current.strip().lower().replace("-", "_"), "%" in current


def is_sensitive_url_query_param_name(name: str) -> bool:
    """True for credential-like query parameter names (cli-registry §4.3 step 4)."""
    value, unresolved = _normalize_query_name(name)
    return unresolved or value in _SENSITIVE_QUERY_NAMES or bool(_SCOPED_TOKEN_NAME().search(value))


def _node_form_decode(text: str) -> str:
    """How Node decodes one name or value in ``new URLSearchParams(string)``.

    Node tries ``decodeURIComponent``; when that throws it falls back to a byte-wise decoder that keeps
    only the low byte of each UTF-16 code unit, which garbles non-ASCII text next to a bad escape
    (``"é%41%zz"`` → ``"�A%zz"``). For ASCII input this equals the WHATWG form decoding.
    """
    text = text.replace("+", " ")
    if not _VALID_ESCAPE().search(text):
        return text
    try:
        return _qs.decode_uri_component(text)
    except ValueError:
        pass
    units = to_code_units(text)
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


def node_search_params(text: str) -> list[tuple[str, str]]:
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
