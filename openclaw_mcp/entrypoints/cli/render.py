"""Texts the CLI prints around command results: the invalid-config block, the uncaught-error frame,
the JSON error envelope, the version-skew warning (spec cli-registry §0.5, §1.2 item 8, §1.4, §3.0.5), the
``probe --timings`` text report, the ``status`` lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openclaw_mcp.domain.config_doc import COMPAT_VERSION
from openclaw_mcp.domain.config_load import ConfigAnalysis
from openclaw_mcp.entrypoints.cli.printable import printable
from openclaw_mcp.jscompat.jsjson import js_dumps, js_truthy

__all__ = [
    "error_envelope",
    "invalid_config_block",
    "invalid_config_envelope",
    "probe_timing_lines",
    "shorten_home",
    "status_lines",
    "uncaught_frame",
]


def shorten_home(path: str, home: str) -> str:
    home = home.rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


def error_envelope(message: str) -> dict[str, Any]:
    return {"ok": False, "error": {"type": "cli_error", "message": message}}


def invalid_config_block(path: str, config_name: str, analysis: ConfigAnalysis, *, json_mode: bool) -> str:
    lines = ["OpenClaw config is invalid", f"File: {path}", "Problem:"]
    for issue in analysis.issues:
        where = f"{config_name}:{issue.line} — " if issue.line is not None else ""
        got = f", got: {issue.got}" if issue.got is not None else ""
        lines.append(f"  - {where}{issue.display}: {issue.message}{got}")
    if analysis.newer_version is not None:
        lines.append(
            f"  Config was last written by OpenClaw {analysis.newer_version}, but you are running "
            f"{COMPAT_VERSION} — upgrade or re-run setup."
        )
    if analysis.legacy:
        lines.append("Legacy config keys detected:")
        lines.extend(f"  - {line}" for line in analysis.legacy)
    lines.append("")
    if json_mode:
        lines.append("Fix: openclaw doctor --fix")
    lines.append("Inspect: openclaw config validate")
    lines.append("Audit, status, health, logs, tasks list/audit, and doctor commands still run with invalid config.")
    if not json_mode:
        lines.append('Run "openclaw doctor --fix" to repair the config, then retry.')
    return "\n".join(lines)


def invalid_config_envelope(path: str, analysis: ConfigAnalysis) -> dict[str, Any]:
    issues = []
    for issue in analysis.issues:
        item: dict[str, Any] = {"path": issue.path, "message": issue.message}
        if issue.allowed_values is not None:
            item["allowedValues"] = list(issue.allowed_values)
        issues.append(item)
    return {**error_envelope(f"OpenClaw config is invalid: {path}"), "issues": issues}


def uncaught_frame(reason: str, stack: str | None = None) -> str:
    lines = ["[openclaw] The CLI command failed.", f"[openclaw] Reason: {reason}"]
    if stack is None:
        lines.append("[openclaw] Debug: set OPENCLAW_DEBUG=1 to include the stack trace.")
    else:
        lines.append("[openclaw] Stack:")
        lines.extend(f"[openclaw] {line}" for line in stack.rstrip("\n").split("\n"))
    lines.append("[openclaw] Try: openclaw doctor")
    lines.append("[openclaw] Help: openclaw --help")
    return "\n".join(lines)


def _took(entry: Mapping[str, Any]) -> str:
    from openclaw_mcp.jscompat.jsjson import js_number

    value = entry.get("connectMs")
    if value is None:
        return ""
    version = entry.get("protocolVersion")
    return f" ({js_number(value)} ms)" if version is None else f" ({js_number(value)} ms, {version})"


def probe_timing_lines(path: str, result: Mapping[str, Any]) -> list[str]:
    """``probe --timings`` without ``--json``: the text report (§6.3) with each server's and each failed
    server's connect time after its line (``- a: 2 tools, Codex approval auto (12.5 ms)``), a connected server's
    with its protocol version (``(12.5 ms, 2025-11-25)``, protocol-eras D-PE10); a failed server's line is
    followed by its ``  reason: …`` and ``  stderr: …`` lines (issue 36)."""
    from openclaw_mcp.domain.probe import probe_lines  # deferred: the other texts here do not need the catalog

    lines = probe_lines(path, result)
    index = 1
    for server in result["servers"].values():
        lines[index] += _took(server)
        index += 2 if "approvalHint" in server else 1
    for diagnostic in result["diagnostics"]:
        lines[index] += _took(diagnostic)
        why = [f"  reason: {diagnostic['reason']}"] if diagnostic.get("reason") else []
        why += [f"  stderr: {line}" for line in diagnostic.get("stderrTail", ())]
        lines[index + 1 : index + 1] = why
        index += 1 + len(why)
    return lines


def status_lines(entry: dict[str, Any], *, verbose: bool) -> list[str]:
    """The text lines of one entry (``- <name>: …`` plus the verbose detail lines)."""
    klass = entry.get("transport", "invalid") if entry["enabled"] else "disabled"
    parts = [klass]
    is_oauth = entry.get("auth") == "oauth"
    if is_oauth:
        parts.append("oauth")
    auth = entry.get("authStatus")
    state = auth.get("state") if isinstance(auth, dict) else None
    if state == "requires-authorization":
        parts.append("authorization-required")
    elif state == "authorized":
        parts.append("authorized")
    principals = entry.get("connectedPrincipals")
    if principals is not None:
        parts.append(f"{principals}-principal-connected" if principals == 1 else f"{principals}-principals-connected")
    if js_truthy(entry.get("toolFilter")):
        parts.append("tool-filtered")
    if entry.get("supportsParallelToolCalls") is True:
        parts.append("parallel")
    pins = entry.get("pins")  # pinned servers only (issue 35)
    if pins is not None:
        parts.append("pinned")
    lines = [f"- {printable(entry['name'])}: {' '.join(parts)}"]
    if verbose:
        na = "n/a"
        lines.append(f"  launch: {entry.get('launch', na)}")
        connect = entry.get("connectionTimeoutMs", na)
        request = entry.get("requestTimeoutMs", na)
        lines.append(f"  timeouts: connect={connect}ms request={request}ms")
        if is_oauth:
            if principals is not None:
                lines.append(f"  oauth: per-requester, connected principals: {principals}")
            else:
                lines.append(f"  oauth: {state or 'unauthenticated'}")
        if "toolFilter" in entry:
            lines.append(f"  tools: {js_dumps(entry['toolFilter'], None)}")
        if pins is not None:
            by = printable(pins["pinnedBy"])
            lines.append(f"  pins: {pins['tools']} tools, pinned {pins['pinnedAt']} by {by}")
    return lines
