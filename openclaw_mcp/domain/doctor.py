"""The pure rules of ``openclaw mcp doctor`` (spec cli-registry §5.2–§5.3, §5.5)."""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "DoctorIssue",
    "command_candidates",
    "doctor_lines",
    "is_literal_value",
    "is_sensitive_key",
    "sensitive_value_warnings",
    "server_report",
]

Level = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class DoctorIssue:
    level: Level
    message: str


_SENSITIVE_EXACT = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key", "api_key"})
_SENSITIVE_SUFFIX = re.compile(r"(^|[_-])(api[_-]?key|authorization|bearer|password|secret|token)$", re.IGNORECASE)


def is_sensitive_key(name: str) -> bool:
    """Header or env names whose literal values doctor warns about."""
    return name.strip().lower() in _SENSITIVE_EXACT or _SENSITIVE_SUFFIX.search(name) is not None


def is_literal_value(value: object) -> bool:
    """A non-blank string that is not an environment reference (``$NAME``, ``${NAME}``)."""
    return isinstance(value, str) and bool(value.strip()) and not value.strip().startswith("$")


def sensitive_value_warnings(server: Mapping[str, Any]) -> list[DoctorIssue]:
    """Check 8: literal sensitive values in ``headers`` then ``env`` (raw config, key order)."""
    issues = []
    for section in ("headers", "env"):
        values = server.get(section)
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            if is_sensitive_key(key) and is_literal_value(value):
                issues.append(
                    DoctorIssue(
                        "warning",
                        f"{section}.{key} contains a literal sensitive value; prefer an environment-backed value "
                        "outside committed config",
                    )
                )
    return issues


def command_candidates(
    command: str,
    *,
    cwd: str | None,
    env_path: str | None,
    process_path: str | None,
    process_cwd: str,
    windows: bool = False,
    pathext: str | None = None,
) -> list[str]:
    """The absolute paths a stdio command may resolve to, in lookup order (§5.3)."""
    paths = ntpath if windows else posixpath
    base = cwd.strip() if cwd and cwd.strip() else process_cwd
    if "/" in command or "\\" in command or paths.isabs(command):
        return [paths.normpath(paths.join(base, command))]
    search = env_path if env_path is not None else (process_path or "")
    exts = [""]
    if windows and not paths.splitext(command)[1]:
        exts += [e.lower() for e in (pathext or ".EXE;.CMD;.BAT;.COM").split(";") if e]
    out: list[str] = []
    for entry in search.split(";" if windows else ":"):
        directory = entry.strip() or "."
        directory = paths.normpath(paths.join(base, directory))
        for ext in exts:
            out.append(paths.join(directory, command + ext))
    return out


def server_report(name: str, issues: list[DoctorIssue]) -> dict[str, Any]:
    return {
        "name": name,
        "ok": not any(i.level == "error" for i in issues),
        "issues": [{"level": i.level, "message": i.message} for i in issues],
    }


_MARK = {"error": "!", "warning": "-", "info": "i"}


def doctor_lines(path: str, reports: list[dict[str, Any]]) -> list[str]:
    """The text report (§5.5)."""
    lines = [f"MCP doctor ({path}):"]
    for report in reports:
        lines.append(f"- {report['name']}: {'ok' if report['ok'] else 'issues'}")
        for issue in report["issues"]:
            lines.append(f"  {_MARK[issue['level']]} {issue['level']}: {issue['message']}")
    return lines


APPS_TITLE = "MCP Apps UI bridge enabled"
APPS_DETAIL = (
    "mcp.apps.enabled=true allows configured MCP servers to provide interactive HTML. Views are CSP-restricted "
    "and origin-isolated, but they can call app-visible tools on their owning MCP server while the session "
    "runtime remains active."
)
APPS_REMEDIATION = (
    "Keep this enabled only for MCP servers you trust. Disable with "
    "`openclaw config set mcp.apps.enabled false --strict-json` when it is not needed."
)


def apps_issue(document: dict[str, Any]) -> dict[str, Any] | None:
    """The top-level warning when ``mcp.apps.enabled`` is ``true`` (mcp-apps §11, §13.2.7): the reference's
    security-audit finding, since the port has no ``security audit`` command."""
    mcp = document.get("mcp")
    apps = mcp.get("apps") if isinstance(mcp, dict) else None
    if not isinstance(apps, dict) or apps.get("enabled") is not True:
        return None
    return {
        "level": "warning",
        "checkId": "mcp.apps.enabled",
        "title": APPS_TITLE,
        "message": APPS_DETAIL,
        "remediation": APPS_REMEDIATION,
    }


def apps_issue_lines(issue: dict[str, Any]) -> list[str]:
    """The text form of :func:`apps_issue`: a ``mcp.apps`` block after the servers."""
    return [f"- mcp.apps: {issue['title']}", f"  - warning: {issue['message']}", f"    {issue['remediation']}"]
