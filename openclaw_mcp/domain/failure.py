"""Why a server failed to connect, beyond the reference's text (issue 36, "failures say why").

The reference reports a stdio server that cannot start, or exits before ``initialize`` completes, as
``MCP error -32000: Connection closed`` (client-runtime D8) — the same words for a missing executable and for a
server that printed its reason on stderr and exited. Those texts stay as they are (the CLI's reference outputs
reproduce them); :class:`FailureDetail` carries the why next to them: it travels on the connect error
(``McpError.detail``) and on the catalog diagnostic (``Diagnostic.detail``), and is shown only where no script
reads a reference text (``probe --timings``, the library's ``SessionMcpRuntime.failures()``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from openclaw_mcp.domain.redaction import redact_diagnostic, sanitize_for_log

__all__ = [
    "STDERR_TAIL_MAX_CHARS",
    "STDERR_TAIL_MAX_LINES",
    "FailureDetail",
    "FailureKind",
    "stderr_tail",
]

STDERR_TAIL_MAX_LINES: Final = 5
STDERR_TAIL_MAX_CHARS: Final = 500

FailureKind = Literal["executable_not_found", "spawn_failed", "exited", "other"]


@dataclass(frozen=True, slots=True)
class FailureDetail:
    """``kind``: ``executable_not_found`` (the command does not exist), ``spawn_failed`` (another OS error at
    spawn: permissions, a missing ``cwd``), ``exited`` (the process ended before the connect completed),
    ``other``; ``reason``: one redacted line (``executable not found: <command>``, ``process exited with code 1``);
    ``stderr_tail``: the server's last stderr lines (see :func:`stderr_tail`)."""

    kind: FailureKind = "other"
    reason: str | None = None
    stderr_tail: tuple[str, ...] = ()

    def explain(self) -> str:
        """``<reason>`` then ``stderr: <line>`` lines (empty when there is nothing to say)."""
        lines = [self.reason] if self.reason else []
        lines += [f"stderr: {line}" for line in self.stderr_tail]
        return "\n".join(lines)


def _redacted_line(line: str) -> str:
    return sanitize_for_log(redact_diagnostic(line)).strip()


def stderr_tail(lines: Iterable[str]) -> tuple[str, ...]:
    """The last :data:`STDERR_TAIL_MAX_LINES` non-empty lines of ``lines``, each redacted (URLs, secrets) and
    without control characters, together at most :data:`STDERR_TAIL_MAX_CHARS` characters: older lines are
    dropped first; a single line longer than the cap keeps its end, after ``…``."""
    kept: list[str] = []
    total = 0
    for line in reversed([text for text in (_redacted_line(item) for item in lines) if text]):
        if len(kept) == STDERR_TAIL_MAX_LINES:
            break
        if total + len(line) > STDERR_TAIL_MAX_CHARS:
            if not kept:
                kept.append("…" + line[-(STDERR_TAIL_MAX_CHARS - 1) :])
            break
        kept.append(line)
        total += len(line)
    return tuple(reversed(kept))
