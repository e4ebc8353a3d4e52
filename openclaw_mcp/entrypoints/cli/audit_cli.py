"""``openclaw mcp audit [--json] [--since <time>] [--server <name>] [--tool <name>] [--limit <n>]`` and
``openclaw mcp audit --verify`` (issue 35, docs/audit.md): the audit trail of the state database, read without
creating anything. ``--verify`` exits 1 naming the first broken record."""

from __future__ import annotations

from typing import Any

from openclaw_mcp.application.errors import CommandError
from openclaw_mcp.application.ports.audit import AuditLogError
from openclaw_mcp.domain.audit import AuditEntry, AuditQuery, format_ts, parse_since
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.cli.options import AuditOptions
from openclaw_mcp.entrypoints.cli.printable import printable
from openclaw_mcp.entrypoints.settings import Settings

__all__ = ["audit_line", "cmd_audit"]


def _limit(text: str) -> int:
    value = text.strip()
    if not value.isascii() or not value.isdigit() or int(value) <= 0:
        raise CommandError("--limit must be a positive integer")
    return int(value)


def audit_line(entry: AuditEntry) -> str:
    """One record as a line: ``#<seq> <time> <server>/<tool> <outcome> <ms>ms <bytes>B decision=… [approved_by=…]
    [agent=…] [session=…] [run=…] args=<preview>``."""
    record = entry.record
    parts = [
        f"#{entry.seq}",
        format_ts(record.ts),
        f"{printable(record.server)}/{printable(record.tool)}",
        record.outcome,
        f"{record.duration_ms}ms",
        f"{record.result_bytes}B",
        f"decision={record.decision.summary}",
    ]
    for label, value in (
        ("approved_by", record.approved_by),
        ("agent", record.agent),
        ("session", record.session_key),
        ("run", record.run_id),
    ):
        if value:
            parts.append(f"{label}={printable(value)}")
    parts.append(f"args={printable(record.args_preview)}")
    return " ".join(parts)


def _records(count: int) -> str:
    return f"{count} record" if count == 1 else f"{count} records"


def _json(entry: AuditEntry) -> dict[str, Any]:
    return {"seq": entry.seq, **entry.record.to_json()}


async def cmd_audit(options: AuditOptions, console: Console, settings: Settings, *, inline: bool) -> int:
    log = composition.audit_log_at(settings.state_db_path, inline=inline)
    try:
        if options.verify:
            verdict = await log.verify()
            if options.json:
                console.json(
                    {
                        "intact": verdict.first_broken is None,
                        "checked": verdict.checked,
                        "first_broken": verdict.first_broken,
                    }
                )
            elif verdict.first_broken is None:
                console.out(f"Audit chain intact: {_records(verdict.checked)} checked.")
            else:
                console.out(
                    f"Audit chain broken at record {verdict.first_broken} ({_records(verdict.checked)} checked): "
                    "it was edited, or a record before it was removed."
                )
            return 0 if verdict.first_broken is None else 1
        limit = _limit(options.limit)
        try:
            since = None if options.since is None else parse_since(options.since, composition.clock().now_ms())
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        entries = await log.query(AuditQuery(since_ms=since, server=options.server, tool=options.tool, limit=limit))
    except AuditLogError as exc:
        raise CommandError(str(exc)) from exc
    if options.json:
        console.json([_json(entry) for entry in entries])
        return 0
    if not entries:
        off = "" if settings.audit_enabled else " (the audit trail is off: OPENCLAW_MCP_AUDIT)"
        console.out(f"No audit records in {settings.state_db_path}{off}.")
        return 0
    console.out("\n".join(audit_line(entry) for entry in entries))
    return 0
