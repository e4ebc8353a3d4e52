"""The start-up failure line of ``openclaw mcp serve`` (spec serve-bridge §1.4).

upstream: ``mcp-cli.ts`` (the ``serve`` action's catch), ``error-utils`` ``formatErrorMessage``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.entrypoints.command_hints import format_cli_command

__all__ = [
    "SHUTDOWN_FAILED_MESSAGE",
    "CodedError",
    "failure_line",
    "format_cli_command",
    "format_error_message",
]

SHUTDOWN_FAILED_MESSAGE: Final = "OpenClaw channel MCP shutdown failed"


class CodedError(ApplicationError):
    """An error carrying a JavaScript-style ``code`` (an errno name such as ``ENOENT``, or ``symlink``)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


def _message(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup):
        return error.message
    return str(error) or type(error).__name__


def _causes(error: BaseException) -> list[BaseException]:
    """The error graph below ``error``: grouped errors, then the explicit ``__cause__`` chain, depth first."""
    out: list[BaseException] = []
    seen: set[int] = {id(error)}

    def visit(current: BaseException) -> None:
        children: list[BaseException] = []
        if isinstance(current, BaseExceptionGroup):
            children.extend(current.exceptions)
        if current.__cause__ is not None:
            children.append(current.__cause__)
        for child in children:
            if id(child) in seen:
                continue
            seen.add(id(child))
            out.append(child)
            visit(child)

    visit(error)
    return out


def format_error_message(error: BaseException) -> str:
    """``formatErrorMessage``: the message, then for each cause ``| <message>`` (unless already contained)
    and ``| <code>`` when the cause has a string code. The top-level error's own code is not appended.

    Only application errors (and groups) count as causes: library exceptions chained by adapters are
    implementation detail, not part of the reference's error graph.
    """
    formatted = _message(error)
    seen = {formatted}

    def append(text: str) -> None:
        nonlocal formatted
        if text and text not in seen:
            formatted += f" | {text}"
            seen.add(text)

    for cause in _causes(error):
        if not isinstance(cause, ApplicationError | BaseExceptionGroup):
            continue
        message = _message(cause)
        if message in formatted:
            seen.add(message)
        else:
            append(message)
        code = getattr(cause, "code", None) if isinstance(cause, CodedError) else None
        if isinstance(code, str):
            append(code)
    return formatted


def failure_line(error: BaseException, env: Mapping[str, str] | None = None) -> str:
    """``MCP server failed to start: <message>. Run openclaw gateway status --deep --require-rpc to inspect
    Gateway health.`` (a message ending in ``.`` gives ``..``, as in the reference; the command gains
    ``--profile``/``--container`` like every command hint of the reference)."""
    command = format_cli_command("openclaw gateway status --deep --require-rpc", env or {})
    return f"MCP server failed to start: {format_error_message(error)}. Run {command} to inspect Gateway health."
