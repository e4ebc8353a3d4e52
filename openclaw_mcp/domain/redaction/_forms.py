"""Secrets in query strings and form bodies inside free text: ``?token=…``, ``password=…&user=…``,
percent-encoded or invisible-character-obfuscated keys, ``body: "secret=…"`` contexts."""

from __future__ import annotations

import re
from collections.abc import Iterator

from openclaw_mcp.domain.redaction._js import CI, INVISIBLE, JS_WORD_BEFORE, WS, lazy_regex, strip_separators
from openclaw_mcp.domain.redaction._mask import MASK, mask_token, split_secret_value
from openclaw_mcp.domain.redaction._query import is_sensitive_url_query_param_name
from openclaw_mcp.jscompat import urlencoded as _qs

__all__ = ["redact_assignments", "redact_form_body"]

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
_FORM_KEY = f"[{INVISIBLE}+]*(?:[A-Za-z_]|%[0-9A-Fa-f]{{2}})(?:[A-Za-z0-9_.\\-]|%[0-9A-Fa-f]{{2}}|[{INVISIBLE}+])*"
_FORM_VALUE = f"[^&{WS}<>]*"
_URL_QUERY_VALUE = f"[^&#{WS}<>]*"
_FORM_PAIR = f"{_FORM_KEY}={_FORM_VALUE}"
_FORM_BODY = lazy_regex(f"{_FORM_PAIR}(?:&{_FORM_PAIR})+\\Z")
_FORM_BODY_SUBSTRING = lazy_regex(f"(^|[{WS}:({{\\[,=\"'`])({_FORM_PAIR}(?:&{_FORM_PAIR})+)")
_ENCODED_FORM_PAIR = lazy_regex(f"(^|[{WS}:({{\\[,=\"'`\\&])({_FORM_KEY})=({_FORM_VALUE})")
_CONTEXT_FORM_PAIR = lazy_regex(
    f"({JS_WORD_BEFORE}(?:body|form(?:[\\-_{WS}]?body)?)[{WS}]*[:=][{WS}]*([\"'`]?))"
    f"({_FORM_KEY})=({_FORM_VALUE})([\"'`]?)",
    CI,
)
_URL_QUERY_PAIR = lazy_regex(f"([?&])({_FORM_KEY})=({_URL_QUERY_VALUE})")
_FORM_OBFUSCATION = lazy_regex(f"[{INVISIBLE}+]")
_PERCENT_ESCAPE = lazy_regex(r"%[0-9A-Fa-f]{2}")
_LINE_BREAK = lazy_regex(r"(\r\n|\r|\n)")


def _normalize_body_key(value: str) -> str:
    stripped = strip_separators(value)
    try:
        return strip_separators(_qs.decode_uri_component(stripped)).lower().replace("-", "_")
    except ValueError:
        return stripped.lower().replace("-", "_")


def _is_sensitive_body_key(key: str) -> bool:
    return is_sensitive_url_query_param_name(key) or _normalize_body_key(key) in _BODY_SECRET_KEYS


def _has_encoded_or_invisible_key(key: str) -> bool:
    return bool(_PERCENT_ESCAPE().search(key)) or bool(_FORM_OBFUSCATION().search(key))


def _assignment_spans(text: str, kind: str) -> Iterator[tuple[int, int, str]]:
    if not text or (kind == "url" and "?" not in text):
        return
    if kind == "encoded" and "%" not in text and not _FORM_OBFUSCATION().search(text):
        return
    if kind == "context" and "=" not in text and ":" not in text:
        return

    def visit(key: str, token: str, offset: int) -> Iterator[tuple[int, int, str]]:
        if kind == "encoded" and not _has_encoded_or_invisible_key(key):
            return
        if not _is_sensitive_body_key(key):
            return
        split = split_secret_value(token)
        yield offset + split.start, offset + split.end, split.maskable

    if kind == "form":
        cursor = 0
        for pair in text.split("&"):
            equals = pair.find("=")
            if equals >= 0:
                yield from visit(pair[:equals], pair[equals + 1 :], cursor + equals + 1)
            cursor += len(pair) + 1
        return
    pattern = (
        _URL_QUERY_PAIR() if kind == "url" else _ENCODED_FORM_PAIR() if kind == "encoded" else _CONTEXT_FORM_PAIR()
    )
    key_index = 3 if kind == "context" else 2
    for m in pattern.finditer(text):
        prefix = m.group(1) or ""
        key = m.group(key_index) or ""
        yield from visit(key, m.group(key_index + 1) or "", m.start() + len(prefix) + len(key) + 1)


def redact_assignments(text: str, kind: str) -> str:
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
    redacted = redact_assignments(redact_assignments(text, "encoded"), "context")
    if "&" not in redacted:
        return redacted
    if _FORM_BODY().match(redacted):
        return redact_assignments(redacted, "form")

    def substring(m: re.Match[str]) -> str:
        prefix, body = m.group(1), m.group(2)
        new_body = redact_assignments(body, "form")
        return m.group(0) if new_body == body else f"{prefix}{new_body}"

    redacted = _FORM_BODY_SUBSTRING().sub(substring, redacted)
    return redact_assignments(redact_assignments(redacted, "encoded"), "context")


def redact_form_body(text: str) -> str:
    if "=" not in text:
        return text
    if not _LINE_BREAK().search(text):
        return _redact_form_body_line(text)
    return "".join(
        segment if segment in ("\r\n", "\r", "\n") else _redact_form_body_line(segment)
        for segment in _LINE_BREAK().split(text)
    )
