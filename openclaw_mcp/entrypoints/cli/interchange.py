"""``openclaw mcp export`` and ``openclaw mcp import``: options → ``application.interchange`` → printed result."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from openclaw_mcp.application.errors import CommandError
from openclaw_mcp.application.interchange import ExportRequest, ImportRequest, ImportSource, Interchange
from openclaw_mcp.application.ports.foreign_files import ForeignFileError
from openclaw_mcp.application.registry import Registry
from openclaw_mcp.domain.interchange.formats import (
    EXPORT_FORMATS,
    IMPORT_SOURCES,
    Locations,
    default_export_path,
    default_import_paths,
)
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.cli.options import ExportOptions, ImportOptions

__all__ = ["cmd_export", "cmd_import", "locations"]

_LABELS = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI", "cursor": "Cursor", "vscode": "VS Code"}


def locations(env: Mapping[str, str]) -> Locations:
    """The current directory, the user's home (``HOME``), ``CODEX_HOME`` and the platform."""
    home = env.get("HOME") or os.path.expanduser("~")
    return Locations(os.getcwd(), home, env.get("CODEX_HOME") or None, sys.platform == "darwin")


def _interchange(registry: Registry) -> Interchange:
    return Interchange(
        registry.config,
        composition.foreign_files(),
        registry.oauth,
        lambda names: registry.sorted_names(dict.fromkeys(names)),
        registry.clearing,
    )


def _choice(value: str | None, flag: str, allowed: tuple[str, ...], command: str) -> str:
    if value is None or value not in allowed:
        shown = "is required" if value is None else f'"{value}" is not one of'
        raise CommandError(f"{command}: {flag} {shown} {', '.join(allowed)}.")
    return value


async def cmd_export(registry: Registry, options: ExportOptions, console: Console) -> int:
    fmt = _choice(options.format, "--format", EXPORT_FORMATS, "export")
    where = locations(registry.env)
    output = options.output
    path = default_export_path(fmt, where) if output is None else output if output == "-" else os.path.abspath(output)
    request = ExportRequest(fmt, path, options.agent, options.include_secrets)
    try:
        report = await _interchange(registry).export(request)
    except ForeignFileError as exc:
        raise CommandError(f"export: {exc}") from exc
    if options.json:
        document = report.as_json()
        if report.text is not None:
            document["document"] = report.text
        console.json(document)
        return 0
    if report.text is not None:
        console.raw_out(report.text)
    else:
        count = len(report.servers)
        names = f": {', '.join(report.servers)}" if report.servers else ""
        console.out(f"Exported {count} MCP server{'' if count == 1 else 's'} to {path} ({_LABELS[fmt]}){names}.")
        written = report.written
        if written is not None and written.backup is not None:
            console.out(f"Previous file saved as {written.backup}.")
        if written is not None and written.comments_dropped:
            console.out(f"Comments in {path} were not kept (the file was rewritten as plain JSON).")
    for note in report.notes:
        console.err(f"note: {note}")
    for warning in report.warnings:
        console.err(f"warning: {warning}")
    if report.variables:
        console.err(f"Set these environment variables where {_LABELS[fmt]} runs:")
        uses: dict[str, list[str]] = {}  # one line per variable, naming every server and field that uses it
        for variable in report.variables:
            uses.setdefault(variable.name, []).append(f"server {variable.server}, {variable.field}")
        for name, places in uses.items():
            shown = "; ".join(places[:3]) + (f"; and {len(places) - 3} more" if len(places) > 3 else "")
            console.err(f"  {name}  ({shown})")
    return 0


def _import_sources(source: str, file: str | None, where: Locations) -> tuple[tuple[ImportSource, ...], bool]:
    if file is not None:
        path = os.path.abspath(file)
        kind = {"claude": "claude-project", "claude-desktop": "claude-desktop"}.get(source, source)
        return (ImportSource(path, path, kind),), True
    paths = default_import_paths(source, where)
    if source == "claude":
        project, user, user_project, desktop = paths
        return (
            ImportSource(project, "project .mcp.json", "claude-project"),
            ImportSource(user, "user ~/.claude.json", "claude-user"),
            ImportSource(user_project, "project entry in ~/.claude.json", "claude-user-project", where.cwd),
            ImportSource(desktop, "Claude Desktop config", "claude-desktop"),
        ), False
    kind = "claude-desktop" if source == "claude-desktop" else source
    return (ImportSource(paths[0], paths[0], kind),), True


async def cmd_import(registry: Registry, options: ImportOptions, console: Console) -> int:
    source = _choice(options.from_, "--from", IMPORT_SOURCES, "import")
    files, explicit = _import_sources(source, options.file, locations(registry.env))
    request = ImportRequest(source, files, explicit, options.dry_run, options.overwrite)
    report = await _interchange(registry).import_servers(request)
    if options.json:
        console.json(report.as_json())
        return 1 if report.problems else 0
    if report.problems:
        console.err("\n".join(report.problems))
        console.err("import: nothing written.")
        return 1
    for warning in report.warnings:
        console.err(f"warning: {warning}")
    lines = [f'Skipped "{name}": {reason}.' for name, reason in report.skipped]
    if any(reason == "target exists" for _, reason in report.skipped):
        lines.append("Use --overwrite to replace existing servers.")
    lines += report.manual
    count = len(report.servers)
    plural = "" if count == 1 else "s"
    names = ", ".join(report.servers)
    if not report.servers:
        lines.append("No MCP servers to import.")
    elif report.dry_run:
        lines.append(f"Would import {count} MCP server{plural} into {report.path} (dry run, nothing written): {names}.")
    else:
        lines.append(f"Imported {count} MCP server{plural} into {report.path}: {names}.")
    console.out("\n".join(lines))
    if report.dry_run and report.servers:
        console.json(report.servers)
    return 0
