"""Token masking: ``***`` for short secrets, ``first6…last4`` for long ones, quotes and trailing
delimiters kept outside the mask."""

from __future__ import annotations

from openclaw_mcp.domain.redaction._js import lazy_regex, u16_suffix
from openclaw_mcp.jscompat.text import utf16_len, utf16_truncate

__all__ = ["MASK", "SecretSplit", "mask_secret_value", "mask_token", "split_secret_value"]

MASK = "***"
_MIN_HINTED_LENGTH = 18
_KEEP_START = 6
_TRAILING_DELIMITERS = lazy_regex("([\"'`,;)}\\]]+)\\Z")
_DELIMITER_SUFFIX = lazy_regex("[\"'`,;)}\\]]*\\Z")


def mask_token(token: str) -> str:
    """``***`` for short values; ``first6…last4`` for values of 18+ UTF-16 units."""
    if token == MASK:
        return token
    if utf16_len(token) < _MIN_HINTED_LENGTH:
        return MASK
    return f"{utf16_truncate(token, _KEEP_START)}…{u16_suffix(token, 4)}"


# The records of this package are plain slotted classes, not dataclasses: creating a dataclass costs
# ~0.3 ms at import, more than the rest of a module here.
class SecretSplit:
    """A secret value without its quotes and trailing delimiters, and where it sits in the token."""

    __slots__ = ("end", "maskable", "start", "suffix")

    def __init__(self, maskable: str, suffix: str, start: int, end: int) -> None:
        self.maskable = maskable
        self.suffix = suffix
        self.start = start
        self.end = end


def split_secret_value(token: str) -> SecretSplit:
    """Separate the maskable part of ``token`` from its quotes and trailing delimiters."""
    quote = token[:1]
    if quote in ('"', "'", "`"):
        closing = token.rfind(quote)
        if closing > 0:
            suffix = token[closing + 1 :]
            if _DELIMITER_SUFFIX().match(suffix):
                return SecretSplit(token[1:closing], suffix, 0, closing + 1)
        rest = token[1:]
        m = _TRAILING_DELIMITERS().search(rest)
        trailing = m.group(1) if m else ""
        if trailing and len(trailing) < len(rest):
            maskable = rest[: -len(trailing)]
            return SecretSplit(maskable, trailing, 0, 1 + len(maskable))
        return SecretSplit(rest, "", 0, 1 + len(rest))
    m = _TRAILING_DELIMITERS().search(token)
    trailing = m.group(1) if m else ""
    if trailing and len(trailing) < len(token):
        maskable = token[: -len(trailing)]
        return SecretSplit(maskable, trailing, 0, len(maskable))
    return SecretSplit(token, "", 0, len(token))


def mask_secret_value(token: str) -> str:
    """:func:`mask_token` of the maskable part, the delimiters after it kept."""
    split = split_secret_value(token)
    return mask_token(split.maskable) + split.suffix
