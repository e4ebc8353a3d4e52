"""JavaScript string facts: ``String.prototype.trim`` whitespace and UTF-16 code units (``length``,
``charCodeAt``, code-unit order of ``<`` / ``sort()``, slicing that does not split a surrogate pair)."""

from __future__ import annotations

__all__ = [
    "JS_LINE_TERMINATORS",
    "JS_WHITESPACE",
    "join_surrogate_pairs",
    "js_trim",
    "js_trim_or_none",
    "to_well_formed",
    "utf16_key",
    "utf16_len",
    "utf16_truncate",
    "utf16_units",
]

# ``String.prototype.trim`` whitespace: WhiteSpace (incl. U+FEFF and category Zs) and LineTerminator.
# Python's ``str.strip()`` differs (it strips U+001C–U+001F and U+0085, keeps U+FEFF).
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

# LineTerminator: what a regular expression's ``.`` and ``$`` (without the ``s`` flag) do not match.
JS_LINE_TERMINATORS = "\n\r\u2028\u2029"


def js_trim(text: str) -> str:
    """``text.trim()`` as JavaScript does it."""
    return text.strip(JS_WHITESPACE)


def js_trim_or_none(value: object) -> str | None:
    """A string ``trim()``med, ``None`` when blank or not a string (OpenClaw's ``normalizeOptionalString``)."""
    if not isinstance(value, str):
        return None
    return value.strip(JS_WHITESPACE) or None


def utf16_len(text: str) -> int:
    """``text.length``: the number of UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ch > "\uffff")


def utf16_units(text: str) -> list[int]:
    """The UTF-16 code units of ``text`` (lone surrogates kept as themselves)."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | (data[i + 1] << 8) for i in range(0, len(data), 2)]


def utf16_key(text: str) -> bytes:
    """A sort key that orders strings as JavaScript compares them (by UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


def utf16_truncate(text: str, limit: int) -> str:
    """The longest prefix of at most ``limit`` UTF-16 code units that does not split a surrogate pair."""
    if len(text) <= limit and text.isascii():
        return text
    units = 0
    for index, char in enumerate(text):
        units += 2 if char > "\uffff" else 1
        if units > limit:
            return text[:index]
    return text


def join_surrogate_pairs(text: str) -> str:
    """``text`` with each high + low surrogate pair (two code points) joined into one character, as
    JavaScript's UTF-16 sees them; lone surrogates are kept."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def to_well_formed(text: str) -> str:
    """``text.toWellFormed()``: surrogate pairs joined, lone surrogates replaced by U+FFFD (what
    ``Buffer.from(text)`` encodes)."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
