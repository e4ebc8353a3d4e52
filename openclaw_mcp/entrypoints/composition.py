"""The composition root: every adapter (and the use cases that hold them) is constructed here and nowhere else.

Each factory takes the process's :class:`~entrypoints.settings.Settings` (resolved once at the entry) or the
plain paths and values an adapter needs — never the environment mapping — and imports its adapter on first
use, so a command pays only for the adapters it builds. Two kinds of process use it:

* the registry CLI calls the factories directly (:func:`registry`, :func:`config_service` …): importing
  ``dependency_injector`` also imports asyncio and pydantic, which the commands that do not connect
  (``list``, ``show``, ``status``, ``set`` …) cannot afford at start-up;
* the long-running side (``serve``, the embedded client runtime, the tools servers) wires the same factories
  into the dependency-injector container (``entrypoints.containers``), which constructs nothing of its own.

``inline=True`` composes adapters that never suspend: the caller drives the coroutines with
``entrypoints.cli.inline.run_inline`` (one process, one task, no event loop).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from functools import partial
from typing import TYPE_CHECKING, Any

from openclaw_mcp.entrypoints.settings import Settings

if TYPE_CHECKING:
    from openclaw_mcp.adapters.clock import SystemClock
    from openclaw_mcp.adapters.collation import UcaCollator
    from openclaw_mcp.adapters.filesystem.completion_files import FileCompletionFiles
    from openclaw_mcp.adapters.filesystem.config_store import FileConfigStore
    from openclaw_mcp.adapters.filesystem.foreign_files import FileForeignFiles
    from openclaw_mcp.adapters.filesystem.host_files import OsHostFiles
    from openclaw_mcp.adapters.http import HttpMcpConnector
    from openclaw_mcp.adapters.http._client import RequestAuth
    from openclaw_mcp.adapters.http.gateway_health import HttpxGatewayHealthProbe
    from openclaw_mcp.adapters.http.oauth import HttpOAuthProtocol
    from openclaw_mcp.adapters.http.oauth_callback import OAuthCallbackListener
    from openclaw_mcp.adapters.plugins.entry_points import EntryPointPlugins
    from openclaw_mcp.adapters.sqlite.audit import SqliteAuditLog
    from openclaw_mcp.adapters.sqlite.device_identity import SqliteDeviceIdentityStore
    from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore
    from openclaw_mcp.adapters.sqlite.oauth_status import SqliteOAuthStatusReader
    from openclaw_mcp.adapters.sqlite.oauth_store import SqliteOAuthCredentialStore
    from openclaw_mcp.adapters.sqlite.server_refs import SqliteServerRefs
    from openclaw_mcp.adapters.sqlite.tool_pins import SqliteToolPinStore
    from openclaw_mcp.adapters.stdio import StdioMcpConnector
    from openclaw_mcp.adapters.ws.approvals import GatewayPluginApprovals
    from openclaw_mcp.adapters.ws.gateway import WebsocketsGateway
    from openclaw_mcp.adapters.ws.oneshot import WebsocketsGatewayCaller
    from openclaw_mcp.application.audit import AuditTrail
    from openclaw_mcp.application.config_service import ConfigService, Warn
    from openclaw_mcp.application.oauth import McpOAuth
    from openclaw_mcp.application.ports.audit import AuditLog
    from openclaw_mcp.application.ports.clock import Clock
    from openclaw_mcp.application.ports.config import ConfigStore, ServerRefs
    from openclaw_mcp.application.ports.gateway import DeviceIdentityStore, GatewayConnection
    from openclaw_mcp.application.ports.leases import LeasePolicy, LeaseStore
    from openclaw_mcp.application.ports.mcp import ElicitationHandler
    from openclaw_mcp.application.ports.oauth import OAuthCredentialStore, OAuthServer
    from openclaw_mcp.application.ports.telemetry import Telemetry
    from openclaw_mcp.application.registry import Registry, TransportWarnings
    from openclaw_mcp.domain.transport import HttpConfig
    from openclaw_mcp.entrypoints.otel_settings import OtelExport

__all__ = [
    "audit_log",
    "audit_log_at",
    "audit_trail",
    "clock",
    "collator",
    "completion_files",
    "config_service",
    "config_service_of",
    "config_store",
    "credential_store",
    "device_identity_store",
    "file_config_store",
    "foreign_files",
    "gateway",
    "gateway_caller",
    "gateway_health",
    "host_files",
    "http_connector",
    "lease_store",
    "lifecycle_leases",
    "mcp_oauth",
    "oauth_callback",
    "oauth_credentials",
    "oauth_protocol",
    "oauth_status",
    "oauth_status_at",
    "operator_oauth_hook",
    "plugin_approvals",
    "plugin_source",
    "registry",
    "registry_of",
    "remove_launch_page",
    "request_auth",
    "server_refs_at",
    "sqlite_mcp_oauth",
    "stdio_connector",
    "telemetry",
    "tool_pin_store",
    "tool_pins",
    "transport_warnings",
    "write_launch_page",
]


# --- the clock, the collation ------------------------------------------------------------------------------


def clock() -> SystemClock:
    """The wall clock."""
    from openclaw_mcp.adapters.clock import SystemClock

    return SystemClock()


def collator() -> UcaCollator:
    """Server-name order (the reference's ``localeCompare``)."""
    from openclaw_mcp.adapters.collation import UcaCollator

    return UcaCollator()


# --- the OpenClaw config file and the state database ---------------------------------------------------------


def file_config_store(path: str, include_roots: Sequence[str], *, inline: bool = False) -> FileConfigStore:
    """The config file store of ``path`` (``inline``: no task lock, blocking lock waits)."""
    from openclaw_mcp.adapters.filesystem.config_store import FileConfigStore

    return FileConfigStore(path, include_roots=include_roots, inline=inline)


def config_store(settings: Settings, *, inline: bool = False) -> FileConfigStore:
    """The config file store of ``settings`` (its path and ``$include`` roots)."""
    return file_config_store(settings.config_path, settings.include_roots, inline=inline)


def oauth_status_at(db_path: str) -> SqliteOAuthStatusReader:
    """Read-only OAuth status of the state database at ``db_path`` (never creates it)."""
    from openclaw_mcp.adapters.sqlite.oauth_status import SqliteOAuthStatusReader

    return SqliteOAuthStatusReader(db_path)


def oauth_status(settings: Settings) -> SqliteOAuthStatusReader:
    """Read-only OAuth status (never creates the database)."""
    return oauth_status_at(settings.state_db_path)


def server_refs_at(db_path: str) -> SqliteServerRefs:
    """The server references of the state database at ``db_path``."""
    from openclaw_mcp.adapters.sqlite.server_refs import SqliteServerRefs

    return SqliteServerRefs(db_path)


def audit_log_at(
    db_path: str, *, max_records: int | None = None, max_days: int | None = None, inline: bool = False
) -> SqliteAuditLog:
    """The audit trail of the state database at ``db_path`` (issue 35): readers never create it, the first append
    does. ``inline``: steps run on the calling thread (the CLI's loop-less commands)."""
    from openclaw_mcp.adapters.sqlite.audit import SqliteAuditLog
    from openclaw_mcp.application.ports.audit import AuditRetention

    retention = AuditRetention(max_records=max_records, max_days=max_days)
    return SqliteAuditLog(db_path, retention=retention, inline=inline)


def audit_log(settings: Settings, *, inline: bool = False) -> SqliteAuditLog | None:
    """The audit trail of ``settings`` with its retention; ``None`` when ``OPENCLAW_MCP_AUDIT=off``."""
    if not settings.audit_enabled:
        return None
    return audit_log_at(
        settings.state_db_path,
        max_records=settings.audit_max_records,
        max_days=settings.audit_max_days,
        inline=inline,
    )


def audit_trail(log: AuditLog | None, clock: Clock, warn: Callable[[str], None]) -> AuditTrail | None:
    """What the ``before_tool_call`` boundary records calls with (failing open: one line per process to
    ``warn``); ``None`` without a log (audit off)."""
    if log is None:
        return None
    from openclaw_mcp.application.audit import AuditTrail

    return AuditTrail(log, clock=clock, warn=warn)


def tool_pin_store(db_path: str, clock: Clock | None = None) -> SqliteToolPinStore:
    """The tool pins of the state database at ``db_path`` (issue 35): readers never create it, the first pin
    does."""
    from openclaw_mcp.adapters.sqlite.tool_pins import SqliteToolPinStore

    return SqliteToolPinStore(db_path) if clock is None else SqliteToolPinStore(db_path, clock=clock)


def tool_pins(settings: Settings) -> SqliteToolPinStore:
    """The tool pins of ``settings``' state database (``pin``/``review``/``status``)."""
    return tool_pin_store(settings.state_db_path, clock())


def lease_store(db_path: str, clock: Clock | None = None) -> SqliteLeaseStore:
    """The cross-process leases of the state database at ``db_path`` (needs an event loop)."""
    from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore

    return SqliteLeaseStore(db_path) if clock is None else SqliteLeaseStore(db_path, clock=clock)


def lifecycle_leases(settings: Settings) -> SqliteLeaseStore | None:
    """The per-server lifecycle lease store, only when the state database exists (spec D5). Needs an
    event loop (imports anyio)."""
    if not settings.state_db_exists():
        return None
    return lease_store(settings.state_db_path)


def oauth_credentials(db_path: str, leases: LeaseStore, clock: Clock | None = None) -> SqliteOAuthCredentialStore:
    """The OAuth credential store of the state database at ``db_path`` (needs an event loop)."""
    from openclaw_mcp.adapters.sqlite.oauth_store import SqliteOAuthCredentialStore

    if clock is None:
        return SqliteOAuthCredentialStore(db_path, leases)
    return SqliteOAuthCredentialStore(db_path, leases, clock=clock)


def credential_store(settings: Settings) -> SqliteOAuthCredentialStore:
    """The OAuth credential store with its lease (needs an event loop)."""
    return oauth_credentials(settings.state_db_path, lease_store(settings.state_db_path))


def device_identity_store(db_path: str, clock: Clock) -> SqliteDeviceIdentityStore:
    """The Gateway device identity and device tokens of the state database at ``db_path``."""
    from openclaw_mcp.adapters.sqlite.device_identity import SqliteDeviceIdentityStore

    return SqliteDeviceIdentityStore(db_path, clock=clock)


# --- registry use cases ----------------------------------------------------------------------------------


def config_service_of(
    store: ConfigStore,
    environ: Mapping[str, str],
    clock: Clock,
    warn: Callable[[str], None],
    refs: ServerRefs | None = None,
    leases: LeaseStore | None = None,
) -> ConfigService:
    """The config use case over ``store`` (``environ``: what ``${VAR}`` references are substituted from)."""
    from openclaw_mcp.application.config_service import ConfigService

    return ConfigService(store, environ, clock, warn, refs, leases)


def config_service(settings: Settings, warn: Warn, *, inline: bool = False, lifecycle: bool = True) -> ConfigService:
    """The config use case. ``lifecycle``: commits hold the lifecycle lease when the state database exists
    (pass False for commands that never commit; an inline composition must not need the lease)."""
    leases = lifecycle_leases(settings) if lifecycle else None
    if inline and leases is not None:
        raise RuntimeError("internal error: the lifecycle lease needs an event loop; compose with inline=False")
    refs = server_refs_at(settings.state_db_path)
    return config_service_of(config_store(settings, inline=inline), settings.environ, clock(), warn, refs, leases)


def transport_warnings(warn: Callable[[str], None]) -> TransportWarnings:
    from openclaw_mcp.application.registry import TransportWarnings

    return TransportWarnings(warn)


def registry_of(**kwargs: Any) -> Registry:
    """The registry use cases over given parts (the container's wiring)."""
    from openclaw_mcp.application.registry import Registry

    return Registry(**kwargs)


def registry(settings: Settings, warn: Warn, *, inline: bool = False, lifecycle: bool = True) -> Registry:
    """The registry use cases (list, show, status, set, unset, tools, configure, add, logout …)."""
    return registry_of(
        config=config_service(settings, warn, inline=inline, lifecycle=lifecycle),
        oauth=oauth_status(settings),
        collator=collator(),
        warnings=transport_warnings(warn),
        env=settings.environ,
        # inline writes run only while no state database exists: then there are no credentials to clear
        credentials=None if inline else partial(credential_store, settings),
    )


def foreign_files() -> FileForeignFiles:
    """Other MCP clients' config files (``openclaw mcp export`` / ``import``)."""
    from openclaw_mcp.adapters.filesystem.foreign_files import FileForeignFiles

    return FileForeignFiles()


def write_launch_page(state_dir: str, html: str) -> str:
    """The private redirect page ``openclaw mcp ui`` opens (a 0600 file under ``state_dir``); its path."""
    from openclaw_mcp.adapters.filesystem.launch_pages import write_launch_page as write

    return write(state_dir, html)


def remove_launch_page(path: str) -> None:
    from openclaw_mcp.adapters.filesystem.launch_pages import remove_launch_page as remove

    remove(path)


def completion_files() -> FileCompletionFiles:
    """The cached completion scripts and the shell profile ``openclaw completion --install`` edits."""
    from openclaw_mcp.adapters.filesystem.completion_files import FileCompletionFiles

    return FileCompletionFiles()


def host_files() -> OsHostFiles:
    """Files and commands of the host (``openclaw mcp doctor``)."""
    from openclaw_mcp.adapters.filesystem.host_files import OsHostFiles

    return OsHostFiles()


# --- MCP OAuth (spec cli-registry §7.8, §7.9) -------------------------------------------------------------


def mcp_oauth(
    store: OAuthCredentialStore, leases: LeaseStore, clock: Clock, policy: LeasePolicy | None = None
) -> McpOAuth:
    """The OAuth use cases; ``policy``: the MCP OAuth lease unless given."""
    from openclaw_mcp.application.oauth import McpOAuth
    from openclaw_mcp.application.ports.leases import MCP_OAUTH_LEASE

    return McpOAuth(store, leases, clock, policy=MCP_OAUTH_LEASE if policy is None else policy)


def sqlite_mcp_oauth(db_path: str, *, policy: LeasePolicy | None = None) -> McpOAuth:
    """The OAuth use cases over the state database at ``db_path`` (created on the first write)."""
    wall = clock()
    leases = lease_store(db_path, wall)
    return mcp_oauth(oauth_credentials(db_path, leases, wall), leases, wall, policy)


def oauth_protocol(
    config: HttpConfig | None = None, *, url: str | None = None, block_private_origins: bool = True
) -> HttpOAuthProtocol:
    """The OAuth wire protocol with the server's TLS settings, headers (no ``Authorization``) and request
    timeout; or, with only ``url``, plain defaults. Raises ``OSError``/``ssl.SSLError`` for unusable
    certificate files. ``block_private_origins=False`` (the loopback conformance suite only) lets OAuth
    requests reach private origins other than the server's."""
    from openclaw_mcp.adapters.http._client import build_ssl_context
    from openclaw_mcp.adapters.http.oauth import HttpOAuthProtocol

    if config is None:
        if url is None:
            raise ValueError("the OAuth protocol needs a config or a url")
        return HttpOAuthProtocol(url, block_private_origins=block_private_origins)
    return HttpOAuthProtocol(
        config.url,
        headers=config.headers or {},
        ssl_context=build_ssl_context(config.ssl_verify, config.client_cert, config.client_key),
        timeout_s=config.request_timeout_ms / 1000,
        block_private_origins=block_private_origins,
    )


def request_auth(
    oauth: McpOAuth,
    server: OAuthServer,
    config: HttpConfig | None = None,
    *,
    protocol: Callable[..., HttpOAuthProtocol] = oauth_protocol,
    block_private_origins: bool = True,
) -> RequestAuth:
    """The §7.9 request authenticator of one connection to ``server``."""
    from openclaw_mcp.adapters.http.oauth_auth import OAuthRequestAuth

    return OAuthRequestAuth(
        oauth, server, protocol(config, url=server.url, block_private_origins=block_private_origins)
    )


def operator_oauth_hook(request_auth: Callable[..., RequestAuth]) -> Callable[[str, HttpConfig], RequestAuth]:
    """The ``HttpMcpConnector(oauth=…)`` hook for ``auth: "oauth"`` servers: operator identities over the
    state database (spec cli-registry §7.9); the use cases are built on the first OAuth connection."""

    def hook(name: str, config: HttpConfig) -> RequestAuth:
        if (config.oauth or {}).get("identity") == "per-requester":
            # Requester-scoped connections are made by the Gateway's connect flow, never with operator tokens.
            from openclaw_mcp.application.ports.mcp import McpError

            raise McpError(f'MCP server "{name}" uses per-requester OAuth and has no requester scope here.')
        from openclaw_mcp.application.oauth import server_of

        return request_auth(server=server_of(name, config), config=config)

    return hook


def oauth_callback(redirect_url: str, expected_state: str) -> AbstractAsyncContextManager[OAuthCallbackListener]:
    """The loopback listener of the OAuth redirect (``login``)."""
    from openclaw_mcp.adapters.http.oauth_callback import oauth_callback_listener

    return oauth_callback_listener(redirect_url, expected_state)


# --- OpenTelemetry (docs/telemetry.md) -------------------------------------------------------------------------

_TELEMETRY: dict[OtelExport, Telemetry] = {}
"""One exporting adapter per export target and process (one batch thread, one ``atexit`` flush)."""


def telemetry(settings: Settings) -> Telemetry:
    """The spans of this process: the no-op unless ``settings.otel_export`` (standard ``OTEL_*`` variables) asks
    for export; then the OTLP/HTTP exporting adapter when the ``otel`` extra is installed, else the no-op with
    one warning record (logged at ``warn``: hidden unless ``--log-level warn``). Imports nothing when off."""
    from openclaw_mcp.application.ports.telemetry import NO_TELEMETRY

    export = settings.otel_export
    if export is None:
        return NO_TELEMETRY
    built = _TELEMETRY.get(export)
    if built is None:
        try:
            from openclaw_mcp.adapters.otel.export import otlp_tracer_provider

            provider, shutdown = otlp_tracer_provider(
                export.endpoint,
                headers=export.headers,
                service_name=export.service_name,
                resource_attributes=export.resource_attributes,
            )
        except ImportError:
            import logging

            logging.getLogger(__name__).warning(
                "OTEL_* asks for span export but the otel extra is not installed: nothing is exported"
                " (pip install 'openclaw-mcp[otel]')"
            )
            built = NO_TELEMETRY
        else:
            from openclaw_mcp.adapters.otel import OtelTelemetry

            built = OtelTelemetry(provider, shutdown=shutdown)
        _TELEMETRY[export] = built
    return built


# --- MCP connectors (client runtime) -----------------------------------------------------------------------


def stdio_connector(settings: Settings, elicitation: ElicitationHandler | None = None) -> StdioMcpConnector:
    """stdio servers: children inherit ``settings.environ`` (filtered by the env policy)."""
    from openclaw_mcp.adapters.stdio import StdioMcpConnector

    return StdioMcpConnector(inherited=settings.environ, raise_oom_score=settings.oom_adjust, elicitation=elicitation)


def http_connector(
    oauth: Callable[[str, HttpConfig], RequestAuth] | None, elicitation: ElicitationHandler | None = None
) -> HttpMcpConnector:
    """SSE and streamable-HTTP servers; ``oauth``: the hook for ``auth: "oauth"`` servers."""
    from openclaw_mcp.adapters.http import HttpMcpConnector

    return HttpMcpConnector(oauth=oauth, elicitation=elicitation)


# --- the Gateway ---------------------------------------------------------------------------------------------


def gateway(identity_store: DeviceIdentityStore, settings: Settings) -> WebsocketsGateway:
    """The Gateway client of ``serve`` (its handshake timeouts from ``settings``)."""
    from openclaw_mcp.adapters.ws.gateway import WebsocketsGateway

    return WebsocketsGateway(
        identity_store,
        open_timeout_ms=settings.gateway_open_timeout_ms,
        challenge_timeout_ms=settings.gateway_challenge_timeout_ms,
    )


def gateway_caller() -> WebsocketsGatewayCaller:
    """One-shot Gateway calls (``openclaw-tools``)."""
    from openclaw_mcp.adapters.ws.oneshot import WebsocketsGatewayCaller

    return WebsocketsGatewayCaller()


def gateway_health() -> HttpxGatewayHealthProbe:
    """The Gateway's ``/healthz`` probe (``openclaw-tools``)."""
    from openclaw_mcp.adapters.http.gateway_health import HttpxGatewayHealthProbe

    return HttpxGatewayHealthProbe()


def plugin_approvals(connection: GatewayConnection) -> GatewayPluginApprovals:
    """The Gateway approval route over an open connection."""
    from openclaw_mcp.adapters.ws.approvals import GatewayPluginApprovals

    return GatewayPluginApprovals(connection)


def plugin_source() -> EntryPointPlugins:
    """The Python plugins of ``openclaw-plugin-tools`` (entry points)."""
    from openclaw_mcp.adapters.plugins.entry_points import EntryPointPlugins

    return EntryPointPlugins()
