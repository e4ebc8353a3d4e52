"""Compiling the pattern table and applying one pattern: which group is the secret, shell references
and PEM blocks kept readable, large texts redacted in 16 384-unit chunks as the reference does."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from openclaw_mcp.domain.redaction._js import from_code_units, js_regex, lazy_js_regex, lazy_regex, to_code_units
from openclaw_mcp.domain.redaction._mask import MASK, mask_secret_value, mask_token, split_secret_value
from openclaw_mcp.jscompat.text import utf16_len

__all__ = ["Pattern", "apply_pattern", "patterns"]

_FORM_PAIR_BOUNDARY = lazy_regex(r"&[A-Za-z_][A-Za-z0-9_.-]*=")


class _Match:
    """One match: the whole text, where it starts, its groups (``""`` when unmatched) and their starts."""

    __slots__ = ("group_starts", "groups", "start", "text")

    def __init__(self, text: str, start: int, groups: tuple[str, ...], group_starts: tuple[int, ...]) -> None:
        self.text = text
        self.start = start
        self.groups = groups
        self.group_starts = group_starts


class Pattern:
    """One compiled pattern of the table and how its matches are masked; ``source`` is the JavaScript
    source (for tests comparing against the reference)."""

    __slots__ = ("base64_guard", "chunk_unsafe", "form_aware", "regex", "shell", "source")

    def __init__(
        self,
        *,
        source: str,
        regex: re.Pattern[str],
        shell: bool = False,
        form_aware: bool = False,
        chunk_unsafe: bool = False,
        base64_guard: bool = False,
    ) -> None:
        self.source = source
        self.regex = regex
        self.shell = shell
        self.form_aware = form_aware
        self.chunk_unsafe = chunk_unsafe
        self.base64_guard = base64_guard

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


@functools.cache
def patterns() -> tuple[Pattern, ...]:
    """The pattern table, compiled on first use: compiling it costs ~0.2 s, which every CLI start-up
    would pay although most printed lines never get past the prefilter."""
    from openclaw_mcp.domain.redaction._pattern_table import B64, BASE64_GUARD, FIELD_SOURCES, IDENT, VENDOR_SOURCES

    out: list[Pattern] = []
    for source, case_sensitive, flags in FIELD_SOURCES:
        regex_flags = re.ASCII | (0 if case_sensitive else re.IGNORECASE)
        out.append(
            Pattern(
                source=source,
                regex=js_regex(source, regex_flags),
                shell="shell" in flags,
                form_aware="form" in flags,
                chunk_unsafe="chunk-unsafe" in flags or source.startswith("-----BEGIN"),
            )
        )
    for source in VENDOR_SOURCES:
        guarded = BASE64_GUARD in source
        out.append(
            Pattern(
                source=source,
                regex=js_regex(source.replace(BASE64_GUARD, ""), re.ASCII | re.IGNORECASE),
                chunk_unsafe=source.startswith((B64, IDENT))
                or source.startswith("\\bbot(")
                or source.startswith("\\b(\\d{6,}:"),
                base64_guard=guarded,
            )
        )
    return tuple(out)


def _redact_pem_block(block: str) -> str:
    lines = [line for line in re.split(r"\r?\n", block) if line]
    if len(lines) < 2:
        return MASK
    return f"{lines[0]}\n…redacted…\n{lines[-1]}"


def _replacement(pattern: Pattern, m: _Match) -> str:
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
        boundary = _FORM_PAIR_BOUNDARY().search(token)
        if boundary:
            secret, suffix = token[: boundary.start()], token[boundary.start() :]
    if split_secret_value(secret).maskable == MASK:
        return m.text
    if pattern.shell:
        if _preserves_shell_reference(m.text, token) or _EMPTY_EXPANSION_TAIL().match(token):
            return m.text
        masked = mask_token(token)
    else:
        masked = mask_secret_value(secret) + suffix
    return m.text[:offset] + masked + m.text[offset + len(token) :]


_SHELL_KEY = lazy_regex(r"[A-Z_][A-Z0-9_]*\Z")
_SHELL_BARE = lazy_regex(r"\$([A-Z_][A-Z0-9_]*)\Z")
_SHELL_BRACED = lazy_regex(r"\$\{([A-Z_][A-Z0-9_]*)(?::[-=?+])?\}\Z")
_ENV_KEY = lazy_js_regex("\\b([A-Z_][A-Z0-9_]*)\\b\\s*[=:]", re.ASCII)
_EMPTY_EXPANSION_TAIL = lazy_regex(r"[-=?+]\}\Z")


def _preserves_shell_reference(match: str, token: str) -> bool:
    key_match = _ENV_KEY().search(match)
    if not key_match:
        return False
    key = key_match.group(1)
    if not _SHELL_KEY().match(key):
        return False
    bare = _SHELL_BARE().match(token)
    if bare:
        return bare.group(1) == key
    braced = _SHELL_BRACED().match(token)
    return braced is not None and braced.group(1) == key


_CHUNK_THRESHOLD = 32768
_CHUNK_SIZE = 16384


def apply_pattern(pattern: Pattern, text: str) -> str:
    if pattern.chunk_unsafe or len(text) * 2 <= _CHUNK_THRESHOLD or utf16_len(text) <= _CHUNK_THRESHOLD:
        return _apply_whole(pattern, text)
    # Large texts are redacted in chunks of 16 384 UTF-16 code units, as the reference does.
    units = to_code_units(text)
    parts = [
        to_code_units(_apply_whole(pattern, from_code_units(units[i : i + _CHUNK_SIZE])))
        for i in range(0, len(units), _CHUNK_SIZE)
    ]
    return from_code_units("".join(parts))


def _apply_whole(pattern: Pattern, text: str) -> str:
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
