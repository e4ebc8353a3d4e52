"""The dependency-injector container of the long-running side (``serve``, the embedded client runtime, the
tools servers, the OAuth login flow): the providers wire the factories of the composition root
(``entrypoints.composition``), which constructs every adapter; the container constructs nothing of its own.

Each provider calls a factory that imports its adapter on first use, so importing the container costs only
dependency-injector itself (see :func:`_import_dependency_injector`) and ``serve`` answers ``initialize``
before the Gateway client, the MCP SDK or pyuca are imported.

Entrypoints make one container in their start-up function with :func:`create_container` (from the process's
:class:`~entrypoints.settings.Settings`) and take their adapters from it; tests override a provider with an
in-memory adapter (``container.gateway.override(providers.Object(InMemoryGateway()))``).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openclaw_mcp.application.ports.mcp import ElicitationHandler

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
from openclaw_mcp.entrypoints.settings import Settings  # noqa: E402

# --- the container -----------------------------------------------------------------------------------------


def _environ_of(settings: Settings) -> Mapping[str, str]:
    return settings.environ


def _state_db_path_of(settings: Settings) -> str:
    return settings.state_db_path


class Container(containers.DeclarativeContainer):
    """Give ``settings`` (:func:`create_container` does) and override ``warn`` with the sink for warning lines.

    Call-time arguments: ``oauth_protocol(config)`` or ``oauth_protocol(url=…)``,
    ``request_auth(server=…, config=…)`` (``oauth=`` for other use cases), ``mcp_oauth(policy=…)``,
    ``config_loader(warn=…)``, ``plugin_approvals(connection)``."""

    settings = providers.Dependency(instance_of=Settings)
    warn = providers.Object(print)
    clock = providers.Singleton(composition.clock)
    environ: providers.Provider[Mapping[str, str]] = providers.Callable(_environ_of, settings)
    state_db_path: providers.Provider[str] = providers.Callable(_state_db_path_of, settings)

    # the OpenClaw config file and the state database
    config_store = providers.Singleton(composition.config_store, settings)
    lease_store = providers.Singleton(composition.lease_store, state_db_path, clock=clock)
    oauth_credentials = providers.Singleton(
        composition.oauth_credentials, state_db_path, leases=lease_store, clock=clock
    )
    device_identity_store = providers.Singleton(composition.device_identity_store, state_db_path, clock=clock)
    # tool pins (issue 35): the client runtime holds unreviewed tools of pinned servers
    tool_pins = providers.Singleton(composition.tool_pin_store, state_db_path, clock=clock)
    # the audit trail (issue 35): None when OPENCLAW_MCP_AUDIT=off; fails open, one line to warn (or warn=…)
    audit_log = providers.Singleton(composition.audit_log, settings)
    audit_trail = providers.Factory(composition.audit_trail, log=audit_log, clock=clock, warn=warn)

    # MCP OAuth (spec cli-registry §7.8, §7.9)
    mcp_oauth = providers.Singleton(composition.mcp_oauth, store=oauth_credentials, leases=lease_store, clock=clock)
    oauth_protocol = providers.Factory(composition.oauth_protocol)
    request_auth = providers.Factory(composition.request_auth, oauth=mcp_oauth, protocol=oauth_protocol.provider)
    oauth_hook = providers.Singleton(composition.operator_oauth_hook, request_auth=request_auth.provider)

    # MCP connectors (client runtime)
    elicitation: providers.Provider[ElicitationHandler | None] = providers.Object(None)
    stdio_connector = providers.Singleton(composition.stdio_connector, settings, elicitation=elicitation)
    http_connector = providers.Singleton(composition.http_connector, oauth=oauth_hook, elicitation=elicitation)
    collator = providers.Singleton(composition.collator)
    # OpenTelemetry spans (the no-op unless OTEL_* export is configured; docs/telemetry.md)
    telemetry = providers.Singleton(composition.telemetry, settings)

    # the Gateway client (serve)
    gateway = providers.Singleton(composition.gateway, identity_store=device_identity_store, settings=settings)
    # one-shot Gateway calls and the Gateway health probe (openclaw-tools)
    gateway_caller = providers.Singleton(composition.gateway_caller)
    gateway_health = providers.Singleton(composition.gateway_health)
    # the Gateway approval route over an open connection: plugin_approvals(connection)
    plugin_approvals = providers.Factory(composition.plugin_approvals)
    # the Python plugins of openclaw-plugin-tools (entry points)
    plugin_source = providers.Singleton(composition.plugin_source)

    # the config use case for read-only use (serve's and the tools servers' config guard); the registry commands
    # compose theirs with entrypoints.composition
    config_loader = providers.Factory(
        composition.config_service_of, store=config_store, environ=environ, clock=clock, warn=warn
    )


def create_container(settings: Settings | Mapping[str, str] | None = None) -> Container:
    """The container of ``settings``: a :class:`Settings`, or an environment to resolve them from (default: the
    process environment) — what an entry function was handed."""
    if not isinstance(settings, Settings):
        settings = Settings.from_environ(settings)
    return Container(settings=settings)
