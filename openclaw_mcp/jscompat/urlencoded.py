"""``application/x-www-form-urlencoded`` (the WHATWG parser and serialiser behind ``URLSearchParams``) and
JavaScript's ``encodeURIComponent`` / ``decodeURIComponent``.

``search_params`` is the WHATWG urlencoded parser; Node's ``new URLSearchParams(string)`` differs for
non-ASCII text next to an invalid percent-escape (the redactor reproduces that quirk itself).
"""

from __future__ import annotations

from collections.abc import Iterable

from openclaw_mcp.jscompat._url_percent import _ASCII_HEX, _pct_byte, _percent_decode_bytes, to_usv_string

__all__ = [
    "decode_uri_component",
    "encode_uri_component",
    "search_params",
    "search_params_set",
    "serialize_search_params",
]

# --- application/x-www-form-urlencoded ------------------------------------------------------------------


def search_params(query: str) -> list[tuple[str, str]]:
    """Parse ``query`` as ``application/x-www-form-urlencoded`` (what ``url.searchParams`` holds).

    ``new URLSearchParams(text)`` additionally drops one leading ``?`` first; callers do that themselves.
    """
    pairs: list[tuple[str, str]] = []
    for sequence in to_usv_string(query).encode("utf-8").split(b"&"):
        if not sequence:
            continue
        name, sep, value = sequence.partition(b"=")
        if not sep:
            value = b""
        pairs.append(
            (
                _percent_decode_bytes(name.replace(b"+", b" ")).decode("utf-8", errors="replace"),
                _percent_decode_bytes(value.replace(b"+", b" ")).decode("utf-8", errors="replace"),
            )
        )
    return pairs


_FORM_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._")


def _form_encode(text: str) -> str:
    out: list[str] = []
    for b in to_usv_string(text).encode("utf-8"):
        if b == 0x20:
            out.append("+")
        elif b in _FORM_SAFE:
            out.append(chr(b))
        else:
            out.append(_pct_byte(b))
    return "".join(out)


def serialize_search_params(pairs: Iterable[tuple[str, str]]) -> str:
    """``URLSearchParams.prototype.toString``: spaces become ``+``, the urlencoded byte set is escaped."""
    return "&".join(f"{_form_encode(name)}={_form_encode(value)}" for name, value in pairs)


def search_params_set(pairs: Iterable[tuple[str, str]], name: str, value: str) -> list[tuple[str, str]]:
    """``URLSearchParams.prototype.set``: replace the first ``name`` pair, drop later ones, else append."""
    name, value = to_usv_string(name), to_usv_string(value)
    out: list[tuple[str, str]] = []
    found = False
    for pair in pairs:
        if pair[0] == name:
            if not found:
                out.append((name, value))
                found = True
            continue
        out.append(pair)
    if not found:
        out.append((name, value))
    return out


# --- JavaScript URI component functions -----------------------------------------------------------------

_URI_UNESCAPED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")


def encode_uri_component(text: str) -> str:
    """JavaScript ``encodeURIComponent``; ``ValueError`` (JavaScript: ``URIError``) on a lone surrogate."""
    out: list[str] = []
    for c in text:
        if c in _URI_UNESCAPED:
            out.append(c)
            continue
        if 0xD800 <= ord(c) <= 0xDFFF:
            raise ValueError("URI malformed")
        out.extend(_pct_byte(b) for b in c.encode("utf-8"))
    return "".join(out)


def _hex_byte(text: str, index: int) -> int:
    pair = text[index + 1 : index + 3]
    if len(pair) != 2 or pair[0] not in _ASCII_HEX or pair[1] not in _ASCII_HEX:
        raise ValueError("URI malformed")
    return int(pair, 16)


def decode_uri_component(text: str) -> str:
    """JavaScript ``decodeURIComponent``; ``ValueError`` (JavaScript: ``URIError``) on malformed input."""
    if "%" not in text:
        return text
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        first = _hex_byte(text, i)
        i += 3
        if first < 0x80:
            out.append(chr(first))
            continue
        if first & 0xE0 == 0xC0:
            count = 2
        elif first & 0xF0 == 0xE0:
            count = 3
        elif first & 0xF8 == 0xF0:
            count = 4
        else:
            raise ValueError("URI malformed")
        data = bytearray([first])
        for _ in range(count - 1):
            if i >= n or text[i] != "%":
                raise ValueError("URI malformed")
            b = _hex_byte(text, i)
            if b & 0xC0 != 0x80:
                raise ValueError("URI malformed")
            data.append(b)
            i += 3
        try:
            out.append(bytes(data).decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ValueError("URI malformed") from exc
    return "".join(out)
