"""Reading the config text into what the commands work on, or into the issues that block them
(spec cli-registry §1.2–§1.4)."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

from openclaw_mcp.domain.config_doc import configured_servers, is_newer_version, is_sensitive_path, substitute_env
from openclaw_mcp.domain.config_issues import Issue, ValidatorThrew
from openclaw_mcp.domain.config_legacy import legacy_lines
from openclaw_mcp.domain.includes import IncludeError, IncludeRequest, IncludeResolution, drive_walk, include_walk
from openclaw_mcp.domain.record import Record
from openclaw_mcp.domain.validation import validate_config
from openclaw_mcp.jscompat.jsjson import js_dumps, js_order
from openclaw_mcp.jscompat.json5 import Json5Error, locate_value_line, parse_json5

__all__ = ["ConfigAnalysis", "IssueView", "analyze_config", "config_analysis", "unreadable_config"]


class IssueView(Record):
    """One validation issue as the invalid-config block shows it."""

    path: str  # as the JSON envelope prints it
    display: str  # as the text block prints it
    message: str
    allowed_values: tuple[str, ...] | None = None
    line: int | None = None
    got: str | None = None


@dataclass(frozen=True, slots=True)
class ConfigAnalysis:
    exists: bool
    authored: dict[str, Any] = field(default_factory=dict)
    document: dict[str, Any] = field(default_factory=dict)
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    missing_env: tuple[tuple[str, str], ...] = ()
    issues: tuple[IssueView, ...] = ()
    legacy: tuple[str, ...] = ()
    newer_version: str | None = None
    includes: IncludeResolution | None = None

    @property
    def valid(self) -> bool:
        return not self.issues


def _value_at(document: Any, path: tuple[str | int, ...]) -> tuple[bool, Any]:
    value = document
    for part in path:
        if isinstance(value, dict) and isinstance(part, str) and part in value:
            value = value[part]
        elif isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
            value = value[part]
        else:
            return False, None
    return True, value


def _got(issue: Issue, authored: Any, document: Any) -> str | None:
    if "received" in issue.message or "got:" in issue.message or is_sensitive_path(issue.dotted):
        return None
    found, value = _value_at(document, issue.path)
    found_authored, authored_value = _value_at(authored, issue.path)
    if not found or not found_authored or authored_value != value:
        return None
    if isinstance(value, str | int | float):
        text = js_dumps(value, None)
        return text[:157] + "..." if len(text) > 160 else text
    return None


def _newer_version(document: Any) -> str | None:
    meta = document.get("meta") if isinstance(document, dict) else None
    version = meta.get("lastTouchedVersion") if isinstance(meta, dict) else None
    return str(version) if is_newer_version(version) else None


def unreadable_config(message: str) -> ConfigAnalysis:
    """The analysis of a config file that exists but cannot be read (``message``: the node-style error, e.g.
    ``EISDIR: illegal operation on a directory, read``), as the reference reports it."""
    return ConfigAnalysis(exists=True, issues=(IssueView("<root>", "<root>", f"read failed: Error: {message}"),))


def analyze_config(text: str | None, env: Mapping[str, str]) -> ConfigAnalysis:
    """Parse, substitute env references and validate the config text (``None`` = no file), leaving
    ``$include`` directives as written (:func:`config_analysis` resolves them)."""

    def no_files(request: IncludeRequest) -> None:
        raise AssertionError(f"unexpected include request {request!r}")  # pragma: no cover

    return drive_walk(config_analysis(text, env, None), no_files)


def config_analysis(
    text: str | None, env: Mapping[str, str], config_path: str | None
) -> Generator[IncludeRequest, Any, ConfigAnalysis]:
    """:func:`analyze_config`, resolving ``$include`` directives of the config at ``config_path`` first
    (``None``: none are resolved). A walk (``domain.includes.include_walk``): it asks for the include files;
    a failed request makes the analysis the single issue ``<root>: <message>``."""
    if text is None:
        return ConfigAnalysis(exists=False)
    try:
        parsed = parse_json5(text)
    except Json5Error as exc:
        parse_issue = IssueView("<root>", "<root>", f"JSON5 parse failed: SyntaxError: {exc.message}")
        return ConfigAnalysis(exists=True, issues=(parse_issue,))
    authored = js_order(parsed)
    resolution: IncludeResolution | None = None
    merged = authored
    if config_path is not None:
        try:
            resolution = yield from include_walk(authored, config_path)
        except IncludeError as exc:
            failed = IssueView("<root>", "<root>", exc.message)
            return ConfigAnalysis(exists=True, issues=(failed,), newer_version=_newer_version(authored))
        if resolution.sites:
            merged = js_order(resolution.document)
    substitution = substitute_env(merged, env)
    document = substitution.value
    newer = _newer_version(document)
    try:
        issues = validate_config(document)
    except ValidatorThrew as exc:
        thrown = IssueView("<root>", "<root>", f"read failed: {exc.error_name}: {exc.message}")
        return ConfigAnalysis(exists=True, issues=(thrown,), newer_version=newer)
    if issues:
        views: list[IssueView] = []
        for issue in issues:
            line = locate_value_line(text, issue.path) if issue.path else None
            views.append(
                IssueView(
                    issue.json_path,
                    issue.display,
                    issue.message,
                    issue.allowed_values,
                    line,
                    _got(issue, merged, document) if line is not None else None,
                )
            )
        return ConfigAnalysis(
            exists=True,
            authored=authored if isinstance(authored, dict) else {},
            missing_env=substitution.missing,
            issues=tuple(views),
            legacy=tuple(legacy_lines(document)),
            newer_version=newer,
        )
    return ConfigAnalysis(
        exists=True,
        authored=authored,
        document=document,
        servers=configured_servers(document),
        missing_env=substitution.missing,
        newer_version=newer,
        includes=resolution,
    )
