"""``openclaw doctor [--fix]`` limited to the MCP config repairs (spec cli-registry §1.4): the legacy keys of
``mcp.servers`` entries are migrated (``application.config_paths.ConfigPaths.repair``), the file is written
with its ``.bak``, and what changed is printed.

Like OpenClaw 2026.9.6 the migration is written only when it leaves a valid config, and then with or without
``--fix`` (the reference applies it as an automatic, safe repair on every ``doctor``; ``--fix`` adds the
``Updated config`` / ``Backup`` lines). Otherwise nothing is written: without ``--fix`` the changes are
previewed (exit 0), with ``--fix`` the remaining issues are listed (exit 1).
The reference's other checks and repairs (gateway, skills, wizard, agents …) are not provided; its other
options are refused with one line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.domain.config_load import IssueView
from openclaw_mcp.entrypoints.cli.config_cli import CliUsageError, drive, parse_args
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.cli.failures import report_failure

__all__ = ["doctor_main"]

HELP = """Usage: openclaw doctor [options]

Repair legacy MCP config keys in mcp.servers (openclaw-mcp provides only the MCP
config repairs of OpenClaw's doctor)

Options:
  --fix              Apply recommended repairs (alias for --repair) (default:
                     false)
  -h, --help         Display help for command
  --non-interactive  Run without prompts (safe migrations only) (default: false)
  --repair           Apply recommended repairs without prompting (default: false)
  --yes              Accept defaults without prompting (default: false)"""

_UNSUPPORTED_FLAGS = (
    "--all",
    "--allow-exec",
    "--deep",
    "--force",
    "--generate-gateway-token",
    "--github-issue",
    "--json",
    "--lint",
    "--no-workspace-suggestions",
    "--post-upgrade",
    "--session-sqlite-all-agents",
)
_UNSUPPORTED_VALUES = (
    "--only",
    "--session-sqlite",
    "--session-sqlite-agent",
    "--session-sqlite-store",
    "--severity-min",
    "--skip",
    "--state-sqlite",
)


def doctor_main(argv: Sequence[str], env: Mapping[str, str], console: Console) -> int:
    """``openclaw doctor <argv…>``; returns the exit code. Never raises."""
    try:
        parsed = parse_args(
            argv,
            "doctor",
            flags=("--fix", "--repair", "--non-interactive", "--yes"),
            unsupported_flags=_UNSUPPORTED_FLAGS,
            unsupported_values=_UNSUPPORTED_VALUES,
            max_positionals=0,
        )
    except CliUsageError as exc:
        console.raw_err(str(exc))
        return 1
    if parsed.help:
        console.raw_out(HELP)
        return 0
    fix = bool(parsed.flags & {"--fix", "--repair"})
    from openclaw_mcp.application.config_paths import ConfigPaths
    from openclaw_mcp.entrypoints import composition
    from openclaw_mcp.entrypoints.cli.render import shorten_home
    from openclaw_mcp.entrypoints.settings import Settings

    settings = Settings.from_environ(env)
    try:
        paths = ConfigPaths(
            composition.config_service(settings, console.err, inline=True, lifecycle=False), lambda _: None
        )
        result = drive(paths.repair, inline=True)
    except (ApplicationError, OSError) as exc:
        return report_failure(exc, env, console)
    except Exception as exc:  # the last line of defence: a frame, never a bare traceback
        return report_failure(exc, env, console)
    home = settings.home
    shown = shorten_home(result.path, home)
    if not result.exists:
        console.out(f"No config file at {shown}; no MCP config repairs needed.")
        return 0
    if result.written:
        lines = ["Migrated legacy config keys in the active openclaw.json:"]
        lines += [f"- {change}" for change in result.changes]
        if fix:
            lines.append(f"Updated config: {shown}")
            backup = f"{result.path}.bak"
            if os.path.exists(backup):
                lines.append(f"  Backup: {shorten_home(backup, home)}")
        console.out("\n".join(lines))
        return 0
    before = result.before
    if not result.changes:
        console.out(f"No legacy MCP config keys to migrate in {shown}.")
        if before.valid:
            return 0
        console.err(_invalid_lines(result.path, before.issues))
        return 1 if fix else 0
    legacy = ["Legacy config keys detected:", *(f"- {line}" for line in before.legacy)]
    if fix:  # the migrated config would still be invalid: nothing written
        lines = [
            *legacy,
            "Doctor could not apply config fixes: the repaired config still fails validation.",
            *(f"- {issue.dotted}: {issue.message}" for issue in result.remaining),
            f"No config changes were written. Fix the value(s) above in {shown} by hand, then rerun "
            '"openclaw doctor --fix".',
            "Doctor finished, but config fixes were not applied.",
        ]
        console.out("\n".join(lines))
        return 1
    console.err(_invalid_lines(result.path, before.issues))
    lines = [
        *legacy,
        "Doctor changes preview:",
        *(f"- {change}" for change in result.changes),
        "Migration applied; other validation issues remain — run doctor to review.",
        'Run "openclaw doctor --fix" to finish fixing legacy config keys.',
    ]
    console.out("\n".join(lines))
    return 0


def _invalid_lines(path: str, issues: Sequence[IssueView]) -> str:
    return "\n".join([f"Invalid config at {path}:", *(f"- {issue.display}: {issue.message}" for issue in issues)])
