"""Connecting to configured servers from the CLI: ``probe``, ``add``'s probe before saving and
``doctor --probe`` (spec cli-registry §5.4, §6). Imports the client runtime, so only these paths pay for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters.collation import UcaCollator
from application.doctor import ProbeCheck
from application.errors import CommandError
from application.registry import CandidateProbe
from domain.doctor import DoctorIssue
from domain.probe import APPROVAL_HINT, probe_issue, probe_result
from domain.toolnames import build_tools_from_catalog
from entrypoints.cli.console import Console
from entrypoints.runtime_api import SessionMcpRuntime

__all__ = ["add_probe", "doctor_probe", "run_probe"]

ADD_PROBE_CONNECT_TIMEOUT_MS = 5000


async def run_probe(
    servers: Mapping[str, dict[str, Any]], session_id: str, console: Console, env: Mapping[str, str]
) -> dict[str, Any]:
    """Connect ``servers`` in one session runtime, read the catalog once, dispose, and return the
    ``probe --json`` document. Runtime warnings go to stderr as ``[bundle-mcp] …`` lines."""
    collator = UcaCollator()

    def warn(text: str) -> None:
        console.err(f"[bundle-mcp] {text}")

    runtime = SessionMcpRuntime(servers, session_id=session_id, warn=warn, environ=env)
    async with runtime:
        catalog = await runtime.session.get_catalog()
        built = build_tools_from_catalog(catalog, collator.key)
        for line in built.warnings:
            warn(line)
        result = probe_result(catalog, [tool.name for tool in built.tools], collator.key)
    return result


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
