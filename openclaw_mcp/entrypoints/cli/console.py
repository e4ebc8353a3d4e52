"""Where the CLI's lines go: stdout and stderr, every text line through the secret redactor
(spec cli-registry §0.4, §4.4, D4) with its control characters made visible (``\x1b``), JSON documents
verbatim."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from openclaw_mcp.jscompat.jsjson import js_dumps

__all__ = ["Console"]


def _redacted(text: str) -> str:
    from openclaw_mcp.domain.redaction import redact_text_line  # deferred: JSON-only commands never load its patterns
    from openclaw_mcp.entrypoints.cli.printable import printable_lines

    return "".join(redact_text_line(printable_lines(line)) + "\n" for line in text.split("\n"))


class Console:
    def __init__(self, stdout: TextIO | None = None, stderr: TextIO | None = None) -> None:
        self._stdout = stdout or sys.stdout
        self._stderr = stderr or sys.stderr
        self.command_hints: str | None = None
        """``--profile <name>`` / ``--container <hint>``: added to every ``openclaw …`` command a text line
        suggests, as the reference's messages do (:mod:`openclaw_mcp.entrypoints.command_hints`); JSON is verbatim."""

    def _hinted(self, text: str) -> str:
        if self.command_hints is None:
            return text
        from openclaw_mcp.entrypoints.command_hints import format_command_hints

        return format_command_hints(text, self.command_hints)

    def out(self, text: str) -> None:
        """Print text lines to stdout, each redacted, control characters other than tabs escaped."""
        self._stdout.write(_redacted(self._hinted(text)))

    def err(self, text: str) -> None:
        """Print text lines to stderr, each redacted."""
        self._stderr.write(_redacted(self._hinted(text)))

    def json(self, document: Any) -> None:
        """Print one JSON document (``JSON.stringify(doc, null, 2)``) to stdout, unredacted."""
        self._stdout.write(js_dumps(document, 2) + "\n")

    def raw_out(self, text: str) -> None:
        """Print text lines to stdout as they are (help texts)."""
        self._stdout.write(text + "\n")

    def raw_err(self, text: str) -> None:
        """Print text lines to stderr as they are (usage errors echo the user's own argv), command hints added."""
        self._stderr.write(self._hinted(text) + "\n")

    def out_is_terminal(self) -> bool:
        """Whether stdout is an interactive terminal (lines beyond the reference's texts are shown only there)."""
        isatty = getattr(self._stdout, "isatty", None)
        return bool(isatty and isatty())

    def err_is_terminal(self) -> bool:
        """Whether stderr is an interactive terminal (progress lines are shown only there)."""
        isatty = getattr(self._stderr, "isatty", None)
        return bool(isatty and isatty())

    def flush(self) -> None:
        self._stdout.flush()
        self._stderr.flush()
