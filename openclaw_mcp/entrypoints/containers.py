"""The dependency-injector container: the one composition root of the long-running side (``serve``, the
embedded client runtime, the OAuth login flow, the conformance client).

Every adapter those entrypoints use is built here and nowhere else. Each provider calls a small factory
function of this module that imports its adapter on first use, so importing the container costs only
dependency-injector itself (see :func:`_import_dependency_injector`) and ``serve`` answers ``initialize``
before the Gateway client, the MCP SDK or pyuca are imported.

Entrypoints make one container in their start-up function with :func:`create_container` (configured from
the environment) and take their adapters from it; tests override a provider with an in-memory adapter
(``container.gateway.override(providers.Object(InMemoryGateway()))``).

The registry CLI does not use the container (importing dependency-injector costs more than its start-up
budget): it builds the same adapters with the dependency-free factories of ``entrypoints.composition``. The
container does not import that module (it imports the registry use cases and several adapters at module
level); its factories here import only their own adapter, so ``serve``'s config guard costs the config
store and the config use case alone.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openclaw_mcp.adapters.http import HttpMcpConnector
    from openclaw_mcp.adapters.http._client import RequestAuth
    from openclaw_mcp.adapters.http.gateway_health import HttpxGatewayHealthProbe
    from openclaw_mcp.adapters.http.oauth import HttpOAuthProtocol
    from openclaw_mcp.adapters.http.oauth_callback import OAuthCallbackListener
    from openclaw_mcp.adapters.plugins.entry_points import EntryPointPlugins
    from openclaw_mcp.adapters.sqlite.device_identity import SqliteDeviceIdentityStore
    from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore
    from openclaw_mcp.adapters.sqlite.oauth_store import SqliteOAuthCredentialStore
    from openclaw_mcp.adapters.stdio import StdioMcpConnector
    from openclaw_mcp.adapters.ws.approvals import GatewayPluginApprovals
    from openclaw_mcp.adapters.ws.gateway import WebsocketsGateway
    from openclaw_mcp.adapters.ws.oneshot import WebsocketsGatewayCaller
    from openclaw_mcp.application.config_service import ConfigService
    from openclaw_mcp.application.oauth import McpOAuth
    from openclaw_mcp.application.ports.clock import Clock
    from openclaw_mcp.application.ports.config import ConfigStore, ServerRefs
    from openclaw_mcp.application.ports.gateway import DeviceIdentityStore, GatewayConnection
    from openclaw_mcp.application.ports.leases import LeasePolicy, LeaseStore
    from openclaw_mcp.application.ports.mcp import ElicitationHandler
    from openclaw_mcp.application.ports.oauth import OAuthCredentialStore, OAuthServer
    from openclaw_mcp.application.registry import Registry, TransportWarnings
    from openclaw_mcp.domain.transport import HttpConfig

__all__ = ["Container", "create_container"]

_OPTIONAL_DI_IMPORTS = frozenset(
    {"yaml", "pydantic", "pydantic_settings", "fastapi", "fast_depends", "starlette", "werkzeug", "flask"}
)
"""Packages dependency-injector imports only to support them (``Configuration.from_yaml`` /
``from_pydantic``, wiring into web frameworks); none of them is used here."""


class _SkipOptionalImports:
    """A meta-path finder that makes the optional packages look absent (``ModuleNotFoundError``)."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: ModuleType | None = None) -> ModuleSpec | None:
        if name.partition(".")[0] in _OPTIONAL_DI_IMPORTS:
            raise ModuleNotFoundError(f"No module named {name!r} (not needed by the container)", name=name)
        return None


def _import_dependency_injector() -> None:
    """Import dependency-injector without its optional integrations.

    Its ``providers`` module tries ``pydantic_settings``/``pydantic`` and ``yaml``, its ``wiring`` module
    ``fastapi``, ``fast_depends``, ``starlette`` and ``werkzeug``, all inside ``try``/``except ImportError``.
    Those imports cost ~0.1 CPU-s and ~8 MiB, more than ``serve`` spends before answering ``initialize``.
    They are hidden only while dependency-injector is first imported (a package already imported is not
    affected), so the rest of the process imports them normally.
    """
    if "dependency_injector.providers" not in sys.modules:
        sys.meta_path.insert(0, _SkipOptionalImports)
        try:
            importlib.import_module("dependency_injector.containers")
        finally:
            sys.meta_path.remove(_SkipOptionalImports)


_import_dependency_injector()

from dependency_injector import containers, providers  # noqa: E402 - imported by the function above

from openclaw_mcp.entrypoints import composition  # noqa: E402 - imports no adapter at module level

# --- adapter factories (each imports its adapter on first use; the registry side's come from
# entrypoints.composition, which the registry CLI calls directly) ------------------------------------------


def _config_service(
    store: ConfigStore,
    env: Mapping[str, str],
    clock: Clock,
    warn: Callable[[str], None],
    refs: ServerRefs | None = None,
) -> ConfigService:
    from openclaw_mcp.application.config_service import ConfigService

    return ConfigService(store, env, clock, warn, refs)


def _lease_store(db_path: str, clock: Clock) -> SqliteLeaseStore:
    from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore

    return SqliteLeaseStore(db_path, clock=clock)


def _oauth_credentials(db_path: str, leases: LeaseStore, clock: Clock) -> SqliteOAuthCredentialStore:
    from openclaw_mcp.adapters.sqlite.oauth_store import SqliteOAuthCredentialStore

    return SqliteOAuthCredentialStore(db_path, leases, clock=clock)


def _mcp_oauth(
    store: OAuthCredentialStore, leases: LeaseStore, clock: Clock, policy: LeasePolicy | None = None
) -> McpOAuth:
    """``policy``: the MCP OAuth lease unless given."""
    from openclaw_mcp.application.oauth import McpOAuth
    from openclaw_mcp.application.ports.leases import MCP_OAUTH_LEASE

    return McpOAuth(store, leases, clock, policy=MCP_OAUTH_LEASE if policy is None else policy)


def _oauth_protocol(
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


def _request_auth(
    oauth: McpOAuth,
    server: OAuthServer,
    config: HttpConfig | None = None,
    *,
    protocol: Callable[..., HttpOAuthProtocol],
    block_private_origins: bool = True,
) -> RequestAuth:
    from openclaw_mcp.adapters.http.oauth_auth import OAuthRequestAuth

    return OAuthRequestAuth(
        oauth, server, protocol(config, url=server.url, block_private_origins=block_private_origins)
    )


def _operator_oauth_hook(request_auth: Callable[..., RequestAuth]) -> Callable[[str, HttpConfig], RequestAuth]:
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


def _oauth_callback(redirect_url: str, expected_state: str) -> AbstractAsyncContextManager[OAuthCallbackListener]:
    from openclaw_mcp.adapters.http.oauth_callback import oauth_callback_listener

    return oauth_callback_listener(redirect_url, expected_state)


def _stdio_connector(environ: Mapping[str, str], elicitation: ElicitationHandler | None) -> StdioMcpConnector:
    from openclaw_mcp.adapters.stdio import StdioMcpConnector

    return StdioMcpConnector(environ=environ, elicitation=elicitation)


def _http_connector(
    oauth: Callable[[str, HttpConfig], RequestAuth] | None, elicitation: ElicitationHandler | None
) -> HttpMcpConnector:
    from openclaw_mcp.adapters.http import HttpMcpConnector

    return HttpMcpConnector(oauth=oauth, elicitation=elicitation)


def _device_identity_store(db_path: str, clock: Clock) -> SqliteDeviceIdentityStore:
    from openclaw_mcp.adapters.sqlite.device_identity import SqliteDeviceIdentityStore

    return SqliteDeviceIdentityStore(db_path, clock=clock)


def _gateway(identity_store: DeviceIdentityStore, env: Mapping[str, str]) -> WebsocketsGateway:
    from openclaw_mcp.adapters.ws.gateway import WebsocketsGateway

    return WebsocketsGateway(identity_store, env=env)


def _gateway_caller() -> WebsocketsGatewayCaller:
    from openclaw_mcp.adapters.ws.oneshot import WebsocketsGatewayCaller

    return WebsocketsGatewayCaller()


def _gateway_health() -> HttpxGatewayHealthProbe:
    from openclaw_mcp.adapters.http.gateway_health import HttpxGatewayHealthProbe

    return HttpxGatewayHealthProbe()


def _plugin_approvals(connection: GatewayConnection) -> GatewayPluginApprovals:
    from openclaw_mcp.adapters.ws.approvals import GatewayPluginApprovals

    return GatewayPluginApprovals(connection)


def _plugin_source() -> EntryPointPlugins:
    from openclaw_mcp.adapters.plugins.entry_points import EntryPointPlugins

    return EntryPointPlugins()


def _transport_warnings(warn: Callable[[str], None]) -> TransportWarnings:
    from openclaw_mcp.application.registry import TransportWarnings

    return TransportWarnings(warn)


def _registry(**kwargs: Any) -> Registry:
    from openclaw_mcp.application.registry import Registry

    return Registry(**kwargs)


# --- the container -----------------------------------------------------------------------------------------


class Container(containers.DeclarativeContainer):
    """Give ``env`` (default: the process environment, read when an adapter uses it), fill
    ``config`` with ``config_path``, ``state_db_path`` and ``include_roots`` (:func:`create_container`
    derives them from the environment), and override ``warn`` with the sink for warning lines.

    Call-time arguments: ``oauth_protocol(config)`` or ``oauth_protocol(url=…)``,
    ``request_auth(server=…, config=…)`` (``oauth=`` for other use cases), ``oauth_callback(redirect_url,
    state)``, ``mcp_oauth(policy=…)``, ``config_loader(warn=…)``, ``plugin_approvals(connection)``."""

    config = providers.Configuration()
    env: providers.Provider[Mapping[str, str]] = providers.Object(os.environ)
    warn = providers.Object(print)
    clock = providers.Singleton(composition.clock)

    # the OpenClaw config file and the state database
    config_store = providers.Singleton(
        composition.file_config_store, config.config_path, include_roots=config.include_roots
    )
    oauth_status = providers.Singleton(composition.oauth_status_at, config.state_db_path)
    server_refs = providers.Singleton(composition.server_refs_at, config.state_db_path)
    lease_store = providers.Singleton(_lease_store, config.state_db_path, clock=clock)
    oauth_credentials = providers.Singleton(_oauth_credentials, config.state_db_path, leases=lease_store, clock=clock)
    device_identity_store = providers.Singleton(_device_identity_store, config.state_db_path, clock=clock)

    # MCP OAuth (spec cli-registry §7.8, §7.9)
    mcp_oauth = providers.Singleton(_mcp_oauth, store=oauth_credentials, leases=lease_store, clock=clock)
    oauth_protocol = providers.Factory(_oauth_protocol)
    request_auth = providers.Factory(_request_auth, oauth=mcp_oauth, protocol=oauth_protocol.provider)
    oauth_hook = providers.Singleton(_operator_oauth_hook, request_auth=request_auth.provider)
    oauth_callback = providers.Factory(_oauth_callback)

    # MCP connectors (client runtime)
    elicitation: providers.Provider[ElicitationHandler | None] = providers.Object(None)
    stdio_connector = providers.Singleton(_stdio_connector, environ=env, elicitation=elicitation)
    http_connector = providers.Singleton(_http_connector, oauth=oauth_hook, elicitation=elicitation)
    collator = providers.Singleton(composition.collator)

    # the Gateway client (serve)
    gateway = providers.Singleton(_gateway, identity_store=device_identity_store, env=env)
    # one-shot Gateway calls and the Gateway health probe (openclaw-tools)
    gateway_caller = providers.Singleton(_gateway_caller)
    gateway_health = providers.Singleton(_gateway_health)
    # the Gateway approval route over an open connection: plugin_approvals(connection)
    plugin_approvals = providers.Factory(_plugin_approvals)
    # the Python plugins of openclaw-plugin-tools (entry points)
    plugin_source = providers.Singleton(_plugin_source)

    # config service (config_loader: read-only use, e.g. serve's config guard, without server refs) and registry
    config_loader = providers.Factory(_config_service, store=config_store, env=env, clock=clock, warn=warn)
    config_service = providers.Factory(
        _config_service, store=config_store, env=env, clock=clock, warn=warn, refs=server_refs
    )
    transport_warnings = providers.Singleton(_transport_warnings, warn)
    registry = providers.Factory(
        _registry,
        config=config_service,
        oauth=oauth_status,
        collator=collator,
        warnings=transport_warnings,
        env=env,
        credentials=oauth_credentials.provider,
    )


def create_container(env: Mapping[str, str] | None = None, *, state_db_path: str | None = None) -> Container:
    """A container configured from ``env`` (``None``: the process environment, read when an adapter is
    built): the OpenClaw config path, its ``$include`` roots and the state database path
    (``state_db_path`` when given)."""
    from openclaw_mcp.adapters.filesystem.includes import include_roots
    from openclaw_mcp.adapters.filesystem.paths import resolve_config_path, resolve_state_db_path

    environ = os.environ if env is None else env
    container = Container(env=providers.Object(environ))
    container.config.from_dict(
        {
            "config_path": resolve_config_path(environ),
            "include_roots": list(include_roots(environ)),
            "state_db_path": state_db_path if state_db_path is not None else resolve_state_db_path(environ),
        }
    )
    return container
