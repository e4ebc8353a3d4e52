"""Where library log records go: one stderr handler for every logger of the process.

Nothing we print goes through :mod:`logging` (the CLI prints through ``Console``, the servers through
``stdio_process.Stderr``); the records are the libraries' (the MCP SDK, httpx, anyio, uvicorn, websockets).
Without a configuration they would reach stderr through logging's last-resort handler, tracebacks
included. :func:`configure_logging` puts one handler on the root logger (also made the last resort, for
loggers that do not propagate) and routes :mod:`warnings` there too:

- the threshold is the root ``--log-level`` (``silent|fatal|error|warn|info|debug|trace``, else
  ``OPENCLAW_LOG_LEVEL``); by default (no level) only library errors are shown — the reference prints no
  library noise, so a command that works prints nothing extra;
- below ``debug`` a record is one line, ``[openclaw-mcp] <level> <logger>: server "<name>": <message>
  (<ExceptionType>: <text>)``, without traceback; ``server`` is the MCP server the emitting task connects
  to (``adapters.mcp_sdk.log_context``), when known; at ``debug``/``trace`` the traceback follows;
- above ``debug``, a record whose exception is a write to or read from an anyio
  stream that was already closed (``BrokenResourceError``, ``ClosedResourceError``, ``EndOfStream``) counts
  as ``debug``: it is the SDK noticing our own teardown (a cancelled connect, a closed session), never a
  failure to report;
- every line, the exception text and every traceback line go through the secret redactor.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import TextIO

from openclaw_mcp.adapters.mcp_sdk.log_context import current_server_name

__all__ = ["DEFAULT_LEVEL", "LOG_LEVEL_ENV", "configure_logging", "ensure_logging", "logging_threshold"]

LOG_LEVEL_ENV = "OPENCLAW_LOG_LEVEL"
"""Where ``--log-level`` is kept for the rest of the process (``entrypoints.cli.main`` sets it)."""
DEFAULT_LEVEL = "error"
"""The threshold without ``--log-level``: library errors only, one line each."""
TRACE = 5
_SILENT = logging.CRITICAL + 10
_THRESHOLDS = {
    "silent": _SILENT,
    "fatal": logging.CRITICAL,
    "error": logging.ERROR,
    "warn": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
    "trace": TRACE,
}
_PREFIX = "[openclaw-mcp]"
_MAX_LINE = 2000
_TEARDOWN_ERRORS = ("BrokenResourceError", "ClosedResourceError", "EndOfStream")


def logging_threshold(level: str | None, env: Mapping[str, str]) -> int:
    """The handler's threshold for ``level`` (``None``: ``OPENCLAW_LOG_LEVEL``, else the default); unknown
    values mean the default (``--log-level`` is validated before this runs)."""
    for candidate in (level, env.get(LOG_LEVEL_ENV)):
        if candidate is not None and candidate.strip().lower() in _THRESHOLDS:
            return _THRESHOLDS[candidate.strip().lower()]
    return _THRESHOLDS[DEFAULT_LEVEL]


def _redact(text: str) -> str:
    from openclaw_mcp.domain.redaction import redact_sensitive_text  # deferred: compiling its patterns is not free

    return redact_sensitive_text(text)


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _MAX_LINE else line[: _MAX_LINE - 1] + "…"


def _is_teardown_noise(record: logging.LogRecord) -> bool:
    """The record's exception is one of anyio's closed-stream errors (checked by class, anyio not imported)."""
    failure = record.exc_info[1] if record.exc_info else None
    if failure is None:
        return False
    return any(
        cls.__name__ in _TEARDOWN_ERRORS and cls.__module__.split(".")[0] == "anyio" for cls in type(failure).__mro__
    )


class _StderrHandler(logging.Handler):
    """Whole records to the current ``sys.stderr`` (looked up at each record, so a replaced stream is used),
    flushed; a broken stderr is ignored (never logging's ``--- Logging error ---`` report)."""

    def __init__(self, threshold: int) -> None:
        super().__init__(logging.NOTSET)
        self.threshold = threshold
        self.setFormatter(_Formatter(details=threshold <= logging.DEBUG))

    def filter(self, record: logging.LogRecord) -> bool:
        level = record.levelno
        if self.threshold > logging.DEBUG and _is_teardown_noise(record):
            level = logging.DEBUG
        if level < self.threshold:
            return False
        record.openclaw_server = current_server_name()
        return bool(super().filter(record))

    def emit(self, record: logging.LogRecord) -> None:
        stream: TextIO | None = sys.stderr
        if stream is None:
            return
        try:
            text = self.format(record)
            stream.write(text + "\n")
            stream.flush()
        except (OSError, ValueError):
            pass
        except Exception:  # a record that cannot be formatted must not fail the command
            pass

    def handleError(self, record: logging.LogRecord) -> None:
        pass


class _Formatter(logging.Formatter):
    def __init__(self, *, details: bool) -> None:
        super().__init__()
        self._details = details

    def format(self, record: logging.LogRecord) -> str:
        try:
            message = record.getMessage()
        except Exception:  # bad %-arguments: the template is still worth a line
            message = str(record.msg)
        server = getattr(record, "openclaw_server", None)
        where = f'server "{server}": ' if server else ""
        failure = record.exc_info[1] if record.exc_info else None
        if failure is not None and not self._details:
            text = str(failure)
            message = f"{message} ({type(failure).__name__}{': ' + text if text else ''})"
        line = _one_line(_redact(f"{_PREFIX} {_level_name(record.levelno)} {record.name}: {where}{message}"))
        if not self._details:
            return line
        details: list[str] = []
        if record.exc_info and record.exc_info[1] is not None:
            details.append(self.formatException(record.exc_info))
        if record.stack_info:
            details.append(self.formatStack(record.stack_info))
        if not details:
            return line
        block = _redact("\n".join(part.rstrip("\n") for part in details))
        return "\n".join([line, *(_redact(part) for part in block.split("\n"))])


def _level_name(levelno: int) -> str:
    """The reference's level words: ``fatal``, ``error``, ``warn``, ``info``, ``debug``, ``trace``."""
    if levelno >= logging.CRITICAL:
        return "fatal"
    if levelno >= logging.WARNING:
        return "error" if levelno >= logging.ERROR else "warn"
    if levelno >= logging.DEBUG:
        return "info" if levelno >= logging.INFO else "debug"
    return "trace"


_installed: list[tuple[int, _StderrHandler]] = []


def configure_logging(level: str | None, env: Mapping[str, str]) -> None:
    """Send every logger's records to one stderr handler at the threshold of ``level`` (``--log-level``;
    ``None``: ``OPENCLAW_LOG_LEVEL``, else the default, see the module docstring). Idempotent: a second call
    replaces the first one's handler (same level: nothing changes)."""
    threshold = logging_threshold(level, env)
    if _installed and _installed[0][0] == threshold:
        return
    root = logging.getLogger()
    for _, previous in _installed:
        root.removeHandler(previous)
    _installed.clear()
    handler = _StderrHandler(threshold)
    root.addHandler(handler)
    root.setLevel(threshold)
    logging.lastResort = handler  # loggers that do not propagate and have no handler of their own
    logging.captureWarnings(True)  # warnings become records of ``py.warnings`` (a one-liner, or nothing)
    _installed.append((threshold, handler))


def ensure_logging(env: Mapping[str, str]) -> None:
    """:func:`configure_logging` from ``env`` unless the process already configured it (entrypoints that
    may run with or without ``entrypoints.cli.main``)."""
    if not _installed:
        configure_logging(None, env)
