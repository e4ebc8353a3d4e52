"""Code point sets and percent-encoding of the WHATWG URL Standard (private to :mod:`jscompat.urls`)."""

from __future__ import annotations

from collections.abc import Callable


class _Failure(Exception):
    """A URL the parser rejects (``new URL`` throws)."""


_ASCII_ALPHA = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ASCII_DIGIT = frozenset("0123456789")
_ASCII_HEX = frozenset("0123456789abcdefABCDEF")
_ASCII_ALNUM = _ASCII_ALPHA | _ASCII_DIGIT
_SCHEME_CHARS = _ASCII_ALNUM | frozenset("+-.")

_FORBIDDEN_HOST = frozenset("\x00\t\n\r #/:<>?@[\\]^|")
_FORBIDDEN_DOMAIN = _FORBIDDEN_HOST | frozenset(chr(c) for c in range(0x20)) | frozenset("%\x7f")


# --- percent-encode sets -------------------------------------------------------------------------------


def _in_c0(c: str) -> bool:
    o = ord(c)
    return o < 0x20 or o > 0x7E


def _set(extra: str, base: Callable[[str], bool]) -> Callable[[str], bool]:
    chars = frozenset(extra)
    return lambda c: c in chars or base(c)


_in_fragment = _set(' "<>`', _in_c0)
_in_query = _set(' "#<>', _in_c0)
_in_special_query = _set("'", _in_query)
_in_path = _set("?^`{}", _in_query)
_in_userinfo = _set("/:;=@[\\]^|", _in_path)


def _pct_byte(b: int) -> str:
    return f"%{b:02X}"


def _encode_char(c: str, in_set: Callable[[str], bool]) -> str:
    if not in_set(c):
        return c
    return "".join(_pct_byte(b) for b in c.encode("utf-8"))


def _encode(text: str, in_set: Callable[[str], bool]) -> str:
    return "".join(_encode_char(c, in_set) for c in text)


def to_usv_string(text: str) -> str:
    """JavaScript ``USVString`` conversion: lone surrogates become U+FFFD."""
    if text.isascii():
        return text
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def _percent_decode_bytes(data: bytes) -> bytes:
    out = bytearray()
    i = 0
    n = len(data)
    hexdigits = b"0123456789abcdefABCDEF"
    while i < n:
        b = data[i]
        if b == 0x25 and i + 2 < n and data[i + 1] in hexdigits and data[i + 2] in hexdigits:
            out.append(int(data[i + 1 : i + 3], 16))
            i += 3
            continue
        out.append(b)
        i += 1
    return bytes(out)


def _percent_decode(text: str) -> bytes:
    return _percent_decode_bytes(text.encode("utf-8"))
