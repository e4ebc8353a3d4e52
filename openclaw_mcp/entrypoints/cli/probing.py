"""Connecting to configured servers from the CLI: ``probe``, ``add``'s probe before saving and
``doctor --probe`` (spec cli-registry §5.4, §6). Imports the client runtime, so only these paths pay for it."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import anyio

from openclaw_mcp.application.doctor import ProbeCheck
from openclaw_mcp.application.errors import CommandError
from openclaw_mcp.application.registry import CandidateProbe
from openclaw_mcp.domain.catalog import Catalog
from openclaw_mcp.domain.doctor import DoctorIssue
from openclaw_mcp.domain.probe import APPROVAL_HINT, probe_issue, probe_result
from openclaw_mcp.domain.toolnames import build_tools_from_catalog
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.runtime_api import SessionMcpRuntime

__all__ = ["add_probe", "doctor_probe", "run_probe"]

ADD_PROBE_CONNECT_TIMEOUT_MS = 5000


async def run_probe(
    servers: Mapping[str, dict[str, Any]],
    session_id: str,
    console: Console,
    env: Mapping[str, str],
    *,
    apps: bool = False,
) -> dict[str, Any]:
    """Connect ``servers`` in one session runtime, read the catalog once, dispose, and return the
    ``probe --json`` document. Runtime warnings go to stderr as ``[bundle-mcp] …`` lines. ``apps``:
    ``mcp.apps.enabled`` (the connections then send the MCP Apps capability, mcp-apps §2)."""
    collator = composition.collator()

    def warn(text: str) -> None:
        console.err(f"[bundle-mcp] {text}")

    runtime = SessionMcpRuntime(servers, session_id=session_id, warn=warn, environ=env, mcp_apps_enabled=apps)
    async with runtime:
        if console.err_is_terminal() and len(runtime.session.parts) > 1:
            catalog = await _with_progress(runtime, console)
        else:
            catalog = await runtime.session.get_catalog()
        built = build_tools_from_catalog(catalog, collator.key)
        for line in built.warnings:
            warn(line.removeprefix("bundle-mcp: "))
        result = probe_result(catalog, [tool.name for tool in built.tools], collator.key)
    return result


async def _with_progress(runtime: SessionMcpRuntime, console: Console) -> Catalog:
    """Load the catalog while reporting on stderr each server as it connects or fails (terminals only)."""
    parts = runtime.session.parts
    console.err(f"Probing {len(parts)} MCP servers...")
    started = time.monotonic()
    reported: set[str] = set()

    def report() -> None:
        for part in parts:
            catalog = part.peek_catalog()
            if catalog is None or part.server_name in reported:
                continue
            reported.add(part.server_name)
            entry = catalog.servers.get(part.server_name)
            state = f"{entry.tool_count} tools" if entry is not None else "failed"
            console.err(f"  {part.server_name}: {state} ({time.monotonic() - started:.1f}s)")

    async with anyio.create_task_group() as tg:

        async def watch() -> None:
            while True:
                report()
                await anyio.sleep(0.1)

        tg.start_soon(watch)
        catalog = await runtime.session.get_catalog()
        tg.cancel_scope.cancel()
    report()
    return catalog


def _with_probe_timeout(server: dict[str, Any]) -> dict[str, Any]:
    value = server.get("connectionTimeoutMs")
    if isinstance(value, int | float) and not isinstance(value, bool) and value == value and 0 < value < float("inf"):
        return server
    return {**server, "connectionTimeoutMs": ADD_PROBE_CONNECT_TIMEOUT_MS}


def add_probe(path: str, console: Console, env: Mapping[str, str]) -> CandidateProbe:
    """The probe ``add``/``configure --probe`` run before saving (§6.5): failures raise ``CommandError``."""

    async def probe(name: str, server: dict[str, Any]) -> None:
        candidate = {name: _with_probe_timeout(server)}
        result = await run_probe(candidate, "openclaw-cli-mcp-probe", console, env)
        issue = probe_issue(path, result, candidate)
        if issue is not None:
            raise CommandError(issue)

    return probe


def doctor_probe(console: Console, env: Mapping[str, str]) -> ProbeCheck:
    """``doctor --probe``: each server alone, no connect-timeout default (§5.4)."""

    async def probe(name: str, server: dict[str, Any]) -> list[DoctorIssue]:
        try:
            result = await run_probe({name: server}, "openclaw-cli-mcp-doctor", console, env)
        except Exception as exc:  # reported as the check's outcome, like the reference
            return [DoctorIssue("error", f"probe failed: {exc}")]
        if result["diagnostics"]:
            return [DoctorIssue("error", f"probe failed: {result['diagnostics'][0]['message']}")]
        entry = result["servers"].get(name)
        if entry is None:
            return [DoctorIssue("error", "probe did not connect to this server")]
        if "approvalHint" in entry:
            return [DoctorIssue("info", f"Codex approval mode: {entry['codexApprovalMode']}; {APPROVAL_HINT}")]
        return []

    return probe
