"""Connecting to configured servers from the CLI: ``probe``, ``add``'s probe before saving and
``doctor --probe`` (spec cli-registry §5.4, §6). Imports the client runtime, so only these paths pay for it."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

import anyio

from openclaw_mcp.application.doctor import ProbeCheck
from openclaw_mcp.application.errors import CommandError
from openclaw_mcp.application.ports.mcp import (
    McpConnectError,
    McpConnection,
    McpConnector,
    McpError,
    McpEvent,
    McpRequestError,
    McpTimeout,
)
from openclaw_mcp.application.ports.oauth import OAuthFlowError
from openclaw_mcp.application.registry import CandidateProbe
from openclaw_mcp.application.runtime.errors import SERVER_FAILURES, ConnectTimedOut, ServerNotConnected
from openclaw_mcp.domain.catalog import Catalog
from openclaw_mcp.domain.doctor import DoctorIssue
from openclaw_mcp.domain.probe import APPROVAL_HINT, probe_issue, probe_result
from openclaw_mcp.domain.toolnames import build_tools_from_catalog
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.cli.console import Console
from openclaw_mcp.entrypoints.runtime_api import (
    RuntimeApps,
    RuntimeHost,
    SessionMcpRuntime,
    enabled_servers,
    runtime_container,
)
from openclaw_mcp.entrypoints.settings import Settings

if TYPE_CHECKING:
    from openclaw_mcp.entrypoints.containers import Container

__all__ = [
    "ConnectTimes",
    "ErrorClass",
    "add_probe",
    "add_timings",
    "doctor_probe",
    "error_class",
    "pin_issues",
    "run_probe",
]

ADD_PROBE_CONNECT_TIMEOUT_MS = 5000


async def run_probe(
    servers: Mapping[str, dict[str, Any]],
    session_id: str,
    console: Console,
    settings: Settings,
    *,
    apps: bool = False,
    timings: bool = False,
) -> dict[str, Any]:
    """Connect ``servers`` in one session runtime, read the catalog once, dispose, and return the
    ``probe --json`` document. Runtime warnings go to stderr as ``[bundle-mcp] …`` lines. ``apps``:
    ``mcp.apps.enabled`` (the connections then send the MCP Apps capability, mcp-apps §2). ``timings``
    (``probe --timings``, beyond the reference) adds what :func:`add_timings` describes."""
    collator = composition.collator()

    def warn(text: str) -> None:
        console.err(f"[bundle-mcp] {text}")

    times = ConnectTimes() if timings else None
    container = runtime_container(settings) if times is None else _timed_container(settings, times)
    runtime = SessionMcpRuntime(
        servers, session_id=session_id, host=RuntimeHost(warn=warn, container=container), apps=RuntimeApps(enabled=apps)
    )
    async with runtime:
        if console.err_is_terminal() and len(runtime.session.parts) > 1:
            catalog = await _with_progress(runtime, console)
        else:
            catalog = await runtime.session.get_catalog()
        built = build_tools_from_catalog(catalog, collator.key)
        for line in built.warnings:
            warn(line.removeprefix("bundle-mcp: "))
        result = probe_result(catalog, [tool.name for tool in built.tools], collator.key)
        if times is not None:
            await add_timings(result, catalog, runtime, times, servers)
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


def add_probe(path: str, console: Console, settings: Settings) -> CandidateProbe:
    """The probe ``add``/``configure --probe`` run before saving (§6.5): failures raise ``CommandError``."""

    async def probe(name: str, server: dict[str, Any]) -> None:
        candidate = {name: _with_probe_timeout(server)}
        result = await run_probe(candidate, "openclaw-cli-mcp-probe", console, settings)
        issue = probe_issue(path, result, candidate)
        if issue is not None:
            raise CommandError(issue)

    return probe


def doctor_probe(console: Console, settings: Settings) -> ProbeCheck:
    """``doctor --probe``: each server alone, no connect-timeout default (§5.4)."""

    async def probe(name: str, server: dict[str, Any]) -> list[DoctorIssue]:
        try:
            result = await run_probe({name: server}, "openclaw-cli-mcp-doctor", console, settings)
        except Exception as exc:  # reported as the check's outcome, like the reference
            return [DoctorIssue("error", f"probe failed: {exc}")]
        if result["diagnostics"]:
            return [DoctorIssue("error", f"probe failed: {result['diagnostics'][0]['message']}")]
        entry = result["servers"].get(name)
        if entry is None:
            return [DoctorIssue("error", "probe did not connect to this server")]
        issues = pin_issues(name, entry.get("pins"))
        if "approvalHint" in entry:
            issues.append(DoctorIssue("info", f"Codex approval mode: {entry['codexApprovalMode']}; {APPROVAL_HINT}"))
        return issues

    return probe


def pin_issues(name: str, pins: dict[str, Any] | None) -> list[DoctorIssue]:
    """``doctor --probe`` on a pinned server (issue 35): held tools are a warning (an error when the pin store
    could not be read), removed ones a warning; nothing for an unpinned server."""
    if pins is None:
        return []
    issues: list[DoctorIssue] = []
    if any(item["reason"] == "unreadable" for item in pins["held"]):
        issues.append(DoctorIssue("error", "pin store unreadable; every tool of this server is held"))
    held = [item["tool"] for item in pins["held"] if item["reason"] != "unreadable"]
    if held:
        issues.append(
            DoctorIssue("warning", f"tools held since pinned: {', '.join(held)} (openclaw mcp review {name})")
        )
    if pins["removed"]:
        issues.append(DoctorIssue("warning", f"tools removed since pinned: {', '.join(pins['removed'])}"))
    return issues


# ------------------------------------------------------------------ probe --timings (beyond the reference)

ErrorClass = Literal["timeout", "connect", "auth", "protocol", "config", "executable_not_found"]
_AUTH_TEXT = re.compile(
    r"\b(?:401|403)\b|unauthori[sz]ed|forbidden|oauth|invalid_token|www-authenticate", re.IGNORECASE
)


class ConnectTimes:
    """Each server's first connect attempt: how long it took (ms, monotonic clock), how it failed and the
    protocol version it settled (protocol-eras §3.10)."""

    def __init__(self) -> None:
        self.connect_ms: dict[str, float] = {}
        self.failures: dict[str, BaseException] = {}
        self.versions: dict[str, str | None] = {}

    def record(
        self, server_name: str, started: float, failure: BaseException | None, version: str | None = None
    ) -> None:
        if server_name in self.connect_ms:
            return
        self.connect_ms[server_name] = round((time.monotonic() - started) * 1000, 1)
        self.versions[server_name] = version
        if failure is not None:
            self.failures[server_name] = failure


class _TimedConnection(AbstractAsyncContextManager[McpConnection]):
    def __init__(self, inner: AbstractAsyncContextManager[McpConnection], server_name: str, times: ConnectTimes):
        self._inner = inner
        self._server_name = server_name
        self._times = times

    async def __aenter__(self) -> McpConnection:
        started = time.monotonic()
        try:
            connection = await self._inner.__aenter__()
        except BaseException as exc:  # recorded, then re-raised unchanged (cancellation included)
            self._times.record(self._server_name, started, exc)
            raise
        self._times.record(self._server_name, started, None, connection.protocol_version)
        return connection

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc, tb)


class _TimedConnector:
    """An ``McpConnector`` that times entering each connection (spawn or request, then ``initialize``)."""

    def __init__(self, inner: McpConnector, times: ConnectTimes) -> None:
        self._inner = inner
        self._times = times

    def connect(
        self,
        server_name: str,
        config: StdioConfig | HttpConfig,
        *,
        on_event: Callable[[McpEvent], None],
        log: Callable[[str], None],
    ) -> AbstractAsyncContextManager[McpConnection]:
        inner = self._inner.connect(server_name, config, on_event=on_event, log=log)
        return _TimedConnection(inner, server_name, self._times)


def _timed_container(settings: Settings, times: ConnectTimes) -> Container:
    """The runtime's container with both MCP connectors wrapped in :class:`_TimedConnector` (each still built
    by its own provider on first use)."""
    from dependency_injector import providers

    container = runtime_container(settings)
    for provider in (container.stdio_connector, container.http_connector):
        original = providers.Singleton(provider.provides, *provider.args, **provider.kwargs)
        provider.override(providers.Singleton(_TimedConnector, original, times))
    return container


def _chain(failure: BaseException | None) -> list[BaseException]:
    seen: list[BaseException] = []
    while failure is not None and failure not in seen:
        seen.append(failure)
        failure = failure.__cause__ or failure.__context__
    return seen


def error_class(failure: BaseException | None, message: str) -> ErrorClass:
    """The kind of a failed server: ``executable_not_found`` (a stdio command that does not exist; issue 36),
    ``auth`` (OAuth, 401/403), ``timeout``, ``protocol`` (the server answered
    with a JSON-RPC error, or not as MCP requires), ``connect`` (the transport or ``initialize`` failed
    otherwise). ``failure`` is the connect error (None when the connect succeeded and a later request
    failed: then ``timeout`` or ``protocol``); ``message`` the diagnostic's."""
    chain = _chain(failure)
    if any(isinstance(item, McpError) and item.detail and item.detail.kind == "executable_not_found" for item in chain):
        return "executable_not_found"
    texts = [message, *(str(item) for item in chain)]
    if any(isinstance(item, OAuthFlowError) for item in chain) or any(_AUTH_TEXT.search(text) for text in texts):
        return "auth"
    if any(isinstance(item, McpTimeout | ConnectTimedOut) for item in chain) or "timed out" in message:
        return "timeout"
    if any(isinstance(item, McpRequestError) for item in chain):
        return "protocol"
    if failure is not None or any(isinstance(item, McpConnectError | ServerNotConnected) for item in chain):
        return "connect"
    return "protocol"


async def _count(list_items: Callable[[], Any]) -> int | None:
    try:
        return len(await list_items())
    except SERVER_FAILURES:
        return None


async def add_timings(
    result: dict[str, Any],
    catalog: Catalog,
    runtime: SessionMcpRuntime,
    times: ConnectTimes,
    servers: Mapping[str, Any],
) -> None:
    """``probe --timings``: each connected server gains ``protocolVersion`` (the negotiated legacy version or
    ``2026-07-28``, protocol-eras D-PE10), ``connectMs`` (spawn or first request through ``initialize`` — and
    ``server/discover`` after a refused one —, ms, 1 decimal), ``counts`` (``tools`` as listed in ``tools``;
    ``resources`` and ``prompts`` listed now, 0 when not advertised, null when the listing failed) and
    ``errorClass`` (null); each diagnostic gains ``protocolVersion`` (null), ``connectMs`` (null when no connect
    was attempted), ``errorClass`` (``executable_not_found`` when a stdio command does not exist), ``reason``
    (``executable not found: <command>``, ``process exited with code 1``, …, or null) and ``stderrTail`` (the
    server's last ≤ 5 stderr lines, redacted, ≤ 500 characters; issue 36); ``skipped`` lists the enabled servers
    whose definition could not be used
    (``errorClass: "config"``)."""
    session = runtime.session
    for name, item in result["servers"].items():
        entry = catalog.servers[name]

        def resources(name: str = name) -> Any:
            return session.list_resources(name, failure_backoff="ignore")

        def prompts(name: str = name) -> Any:
            return session.list_prompts(name)

        item["protocolVersion"] = times.versions.get(name)
        item["connectMs"] = times.connect_ms.get(name)
        item["counts"] = {
            "tools": entry.tool_count,
            "resources": await _count(resources) if entry.resources is not None else 0,
            "prompts": await _count(prompts) if entry.prompts is not None else 0,
        }
        item["errorClass"] = None
    reported = set(result["servers"])
    details = {item.server_name: item.detail for item in reversed(catalog.diagnostics or ()) if item.detail}
    for diagnostic in result["diagnostics"]:
        name = diagnostic["serverName"]
        reported.add(name)
        diagnostic["protocolVersion"] = None
        diagnostic["connectMs"] = times.connect_ms.get(name)
        diagnostic["errorClass"] = error_class(times.failures.get(name), diagnostic["message"])
        detail = details.get(name)
        diagnostic["reason"] = None if detail is None else detail.reason
        diagnostic["stderrTail"] = [] if detail is None else list(detail.stderr_tail)
    result["skipped"] = [
        {"serverName": name, "errorClass": "config"} for name in enabled_servers(servers) if name not in reported
    ]
