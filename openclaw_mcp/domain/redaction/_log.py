"""``sanitizeForLog``: ANSI escape sequences and control characters removed from logged text."""

from __future__ import annotations

from openclaw_mcp.domain.redaction._js import ch, lazy_regex

__all__ = ["sanitize_for_log"]

_OSC = lazy_regex("(?:\x1b\\]|\x9d)[^\x07\x1b\x9c]*(?:\x1b\\\\|\x07|\x9c)")
_LOG_CONTROL = lazy_regex("[\x00-\x1f\x7f-\x9f]")


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
        osc = _OSC().match(text, index)
        if osc:
            out.append(text[copy_start:index])
            index = copy_start = osc.end()
            continue
        if code == 155:
            cursor = index + 1
        elif code == 27 and ch(text, index + 1) == "[":
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
    return _LOG_CONTROL().sub("", _strip_ansi(text))
