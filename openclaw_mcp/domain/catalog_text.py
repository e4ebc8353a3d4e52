"""The texts the catalog carries: an error's diagnostic text (spec client-runtime §4.12, upstream
``formatErrorMessage`` and ``redactDiagnostic``) and a tool description as the model may see it (§4.16,
upstream ``sanitizeMcpMetadataText``)."""

from __future__ import annotations

import re

from openclaw_mcp.domain.redaction import redact_diagnostic, redact_sensitive_text
from openclaw_mcp.jscompat.jsjson import js_number
from openclaw_mcp.jscompat.text import JS_WHITESPACE, js_trim, utf16_len, utf16_truncate

__all__ = ["MCP_METADATA_TEXT_LIMIT", "diagnostic_message", "format_error_message", "sanitize_metadata_text"]

MCP_METADATA_TEXT_LIMIT = 1200


def _causes(error: BaseException) -> list[BaseException]:
    nested: list[BaseException] = []
    if error.__cause__ is not None:
        nested.append(error.__cause__)
    if isinstance(error, BaseExceptionGroup):
        nested.extend(error.exceptions)
    return nested


def _code_text(error: BaseException) -> str | None:
    code = getattr(error, "code", None)
    if isinstance(code, str):
        return code
    if isinstance(code, int | float) and not isinstance(code, bool):
        return js_number(code)
    return None


def _message(error: BaseException) -> str:
    return error.message if isinstance(error, BaseExceptionGroup) else str(error)


def format_error_message(exc: BaseException) -> str:
    """The error text of a diagnostic or warning (upstream ``formatErrorMessage``).

    ``str(exc)`` (an exception group's ``message``; else the class name); then, walking the cause graph
    breadth-first (``__cause__`` and the members of an exception group — not the implicit
    ``__context__``), each cause's message unless the
    text so far already contains it, and each cause's string/number ``code`` attribute unless already
    appended; joined with `` | ``; finally generic secret redaction (D13). The top error's own ``code``
    is not appended.
    """
    formatted = _message(exc) or type(exc).__name__
    seen_texts = {formatted}

    def append(text: str | None) -> None:
        nonlocal formatted
        if text and text not in seen_texts:
            formatted += f" | {text}"
            seen_texts.add(text)

    candidates = [exc]
    seen_ids = {id(exc)}
    for current in candidates:
        for nested in _causes(current):
            if id(nested) not in seen_ids:
                seen_ids.add(id(nested))
                candidates.append(nested)
    for cause in candidates[1:]:
        message = _message(cause)
        if message and message in formatted:
            seen_texts.add(message)
        else:
            append(message)
        append(_code_text(cause))
    return redact_sensitive_text(formatted)


def diagnostic_message(exc: BaseException) -> str:
    """``redact_diagnostic(error)`` (§4.12): the catalog diagnostic / warning text of an error."""
    return redact_diagnostic(format_error_message(exc))


_WS_CLASS = "[" + re.escape(JS_WHITESPACE) + "]"
_INSTRUCTION = re.compile(
    f"(?:ignore|disregard){_WS_CLASS}+(?:all{_WS_CLASS}+)?(?:previous|prior|above){_WS_CLASS}+instructions",
    re.ASCII | re.IGNORECASE,
)
_SYSTEM_PROMPT = re.compile(f"system{_WS_CLASS}+prompt", re.ASCII | re.IGNORECASE)


def sanitize_metadata_text(value: object) -> str | None:
    """A tool description as the model may see it (§4.16); ``None`` for non-strings and blank strings.

    Trim; redact ``ignore|disregard [all] previous|prior|above instructions``; normalise ``system prompt``;
    cap at 1 200 UTF-16 units without splitting a surrogate pair, appending ``...``.
    """
    if not isinstance(value, str):
        return None
    text = js_trim(value)
    if not text:
        return None
    text = _INSTRUCTION.sub("[redacted MCP metadata instruction]", text)
    text = _SYSTEM_PROMPT.sub("system prompt", text)
    if utf16_len(text) > MCP_METADATA_TEXT_LIMIT:
        return utf16_truncate(text, MCP_METADATA_TEXT_LIMIT) + "..."
    return text
