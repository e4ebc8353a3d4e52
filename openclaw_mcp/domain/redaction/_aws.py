"""40-character AWS secret access keys in free text, with the reference's exclusions (word-adjacent
runs, ``;base64,`` data, public URLs without credentials)."""

from __future__ import annotations

from collections.abc import Iterator

from openclaw_mcp.domain.redaction._js import ch, lazy_regex
from openclaw_mcp.domain.redaction._mask import mask_secret_value
from openclaw_mcp.jscompat.text import JS_WHITESPACE

__all__ = ["aws_could_match", "redact_aws"]

_AWS_RUN = lazy_regex(r"[A-Za-z0-9/+=]{40}")
_AWS_VALUE = lazy_regex(
    r"(?=[A-Za-z0-9/+=]{0,39}[A-Z])(?=[A-Za-z0-9/+=]{0,39}[a-z])(?=[A-Za-z0-9/+=]{0,39}[0-9/+=])"
    r"(?=[A-Za-z0-9/+=]{0,39}[G-Zg-z/+=])[A-Za-z0-9/+=]{40}"
)
_JS_WS_CHARS = frozenset(JS_WHITESPACE)
_CLOSING = {'"': '"', "'": "'", "`": "`", "<": ">", "(": ")", "[": "]", "{": "}"}


def aws_could_match(text: str) -> bool:
    return len(text) >= 40 and bool(_AWS_RUN().search(text)) and bool(_AWS_VALUE().search(text))


def _is_aws_char(c: str) -> bool:
    return ("A" <= c <= "Z") or ("a" <= c <= "z") or ("0" <= c <= "9") or c in ("/", "+", "=")


class _UrlContext:
    """The URL a scan position is in: where it starts and ends, its authority and port."""

    __slots__ = (
        "authority_end",
        "closing",
        "closing_escape_depth",
        "end",
        "has_at",
        "port_start",
        "port_valid",
        "query_or_fragment",
        "start",
    )

    def __init__(self, *, start: int, end: int, closing: str | None, closing_escape_depth: int) -> None:
        self.start = start
        self.end = end
        self.closing = closing
        self.closing_escape_depth = closing_escape_depth
        self.authority_end = -1
        self.port_start = -1
        self.port_valid = True
        self.has_at = False
        self.query_or_fragment = False


class _Run:
    """A run of 40 AWS-secret characters (``origin``: where the whole run started) and its URL."""

    __slots__ = ("end", "origin", "start", "url")

    def __init__(self, start: int, end: int, origin: int, url: _UrlContext | None) -> None:
        self.start = start
        self.end = end
        self.origin = origin
        self.url = url


def _aws_matches(text: str) -> Iterator[tuple[int, str]]:
    if not aws_could_match(text):
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
            elif index - run_start > 40 and char == "@" and ch(text, index - 41) == "/":
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
                before = ch(text, run.start - 1)
                after = ch(text, run.end)
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
                if _AWS_VALUE().search(match):
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
                opening = ch(text, scheme_start - 1)
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


def redact_aws(text: str) -> str:
    parts: list[str] = []
    end = 0
    for start, match in _aws_matches(text):
        parts.append(text[end:start])
        parts.append(mask_secret_value(match))
        end = start + len(match)
    if not parts:
        return text
    parts.append(text[end:])
    return "".join(parts)
