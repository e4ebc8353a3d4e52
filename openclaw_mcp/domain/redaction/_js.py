"""JavaScript regex and string semantics the redactors rely on: ``\\s``, Unicode category C, lazily
compiled patterns, UTF-16 slicing."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable

from openclaw_mcp.jscompat.text import JS_WHITESPACE

__all__ = [
    "CI",
    "INVISIBLE",
    "JS_WORD_BEFORE",
    "WS",
    "ch",
    "from_code_units",
    "js_regex",
    "lazy_js_regex",
    "lazy_regex",
    "search_index",
    "strip_separators",
    "to_code_units",
    "u16_suffix",
]

# JavaScript's case-insensitive flag, restricted to ASCII letters. (With the ``u`` flag JavaScript also
# folds U+017F/U+212A onto s/k; Python's Unicode folding would add U+0130/U+0131 — neither is kept.)
CI = re.ASCII | re.IGNORECASE

# JavaScript's ``\s`` (WhiteSpace + LineTerminator), as regex class content.
WS = "".join(f"\\u{ord(c):04x}" for c in JS_WHITESPACE)
# Unicode category C without unassigned code points (Node 24 / Unicode 17 data), plus the invisible
# separators the reference lists explicitly, as regex class content.
_CAT_C = (
    "\\x00-\\x1f\\x7f-\\x9f\\xad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u180e"
    "\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb"
    "\\U000110bd\\U000110cd\\U00013430-\\U0001343f\\U0001bca0-\\U0001bca3\\U0001d173-\\U0001d17a"
    "\\U000e0001\\U000e0020-\\U000e007f\\ud800-\\udfff\\ue000-\\uf8ff\\U000f0000-\\U000ffffd"
    "\\U00100000-\\U0010fffd"
)
INVISIBLE = _CAT_C + "\\xa0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000\\u115f\\u1160\\u3164\\uffa0"
# JavaScript's ``\b`` before a word under the case-insensitive ``u`` flag (U+017F/U+212A are word characters).
JS_WORD_BEFORE = "(?<![A-Za-z0-9_\\u017f\\u212a])"
_HANGUL_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")


def lazy_regex(source: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A builder returning ``re.compile(source, flags)``, compiled on its first call only."""
    return functools.cache(lambda: re.compile(source, flags))


def lazy_js_regex(source: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A builder returning :func:`js_regex` of ``source``, compiled on its first call only."""
    return functools.cache(lambda: js_regex(source, flags))


def search_index(pattern: re.Pattern[str], text: str) -> int:
    """``text.search(pattern)``: the index of the first match, or -1."""
    m = pattern.search(text)
    return m.start() if m else -1


def ch(text: str, index: int) -> str:
    """``text[index] ?? ""``: the character at ``index``, or ``""`` outside the text."""
    return text[index] if 0 <= index < len(text) else ""


def u16_suffix(text: str, units: int) -> str:
    """``sliceUtf16Safe(text, -units)``: never starts inside a surrogate pair."""
    count = 0
    for index in range(len(text) - 1, -1, -1):
        count += 2 if ord(text[index]) > 0xFFFF else 1
        if count > units:
            return text[index + 1 :]
    return text


def to_code_units(text: str) -> str:
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


def from_code_units(text: str) -> str:
    """The inverse of :func:`to_code_units` (surrogate pairs joined, lone surrogates kept)."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _is_c_or_z(c: str) -> bool:
    return unicodedata.category(c)[0] in "CZ" or c in _HANGUL_FILLERS or c == "+"


def strip_separators(text: str) -> str:
    """Remove Unicode category C/Z characters, the Hangul fillers and ``+``."""
    if text.isascii() and "+" not in text:
        return "".join(c for c in text if " " < c < "\x7f")
    return "".join(c for c in text if not _is_c_or_z(c))


def js_regex(source: str, flags: int = 0) -> re.Pattern[str]:
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
                out.append(WS if in_class else f"[{WS}]")
            elif nxt == "S" and not in_class:
                out.append(f"[^{WS}]")
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
