"""The client runtime as a library an agent embeds (spec client-runtime; README "Client runtime").

    async with SessionMcpRuntime(servers) as runtime:
        for tool in await runtime.tools():
            print(tool.name, tool.description)
        result = await tool.execute({"query": "x"})   # AgentToolResult(content=[...], details={...})

``servers`` is an ``mcp.servers`` map (name → definition, as in ``openclaw.json``); disabled entries are
skipped. ``SessionMcpRuntime.from_openclaw_config()`` reads it from the OpenClaw config file instead.

Beyond ``servers`` and ``session_id`` the constructor takes grouped values: :class:`RuntimeHost` (warning
lines, adapters), :class:`RuntimePolicy` (the tool policy of the session: tool-policy-and-lifecycle.md §2),
:class:`RuntimeBoundary` (the ``before_tool_call`` hooks and approvals, §3), :class:`RuntimeBundle` (plugin
bundle servers) and :class:`RuntimeApps` (MCP Apps). The runtime's adapters (the stdio and HTTP connectors,
the OAuth hook, the clock, the collator) come from a container (``entrypoints.containers``) made for each
runtime unless the host gives one.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from types import TracebackType
from typing import TYPE_CHECKING, Any

from openclaw_mcp.application.mcp_apps import AppViews
from openclaw_mcp.application.ports.mcp import McpConnection, McpConnector, McpEvent
from openclaw_mcp.application.runtime import RuntimeServices, SessionConfig, SessionRuntime
from openclaw_mcp.application.runtime.tool_gate import ToolGate, ToolGateSettings
from openclaw_mcp.application.tool_boundary import AuditTarget
from openclaw_mcp.domain.bundle_mcp import BundleMcpResult, kept_data_dirs, merge_with_config
from openclaw_mcp.domain.catalog import Catalog
from openclaw_mcp.domain.content import AgentToolResult, project_call_result
from openclaw_mcp.domain.mcp_apps import canvas_preview, is_app_callable
from openclaw_mcp.domain.names import assign_safe_server_names
from openclaw_mcp.domain.toolnames import AgentToolSpec, build_app_tool_policy_projections, build_tools_from_catalog
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig
from openclaw_mcp.domain.utility_tools import (
    json_tool_result,
    parse_prompts_get_args,
    parse_resources_read_args,
    prompt_tool_result,
)
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.containers import Container, create_container
from openclaw_mcp.entrypoints.settings import Settings

if TYPE_CHECKING:
    from openclaw_mcp.application.audit import AuditTrail
    from openclaw_mcp.application.ports.approvals import PluginApprovals
    from openclaw_mcp.application.tool_boundary import ApprovalMode, CancelSignal, HookRegistry
    from openclaw_mcp.domain.tool_policy import PolicyTool

__all__ = [
    "McpTool",
    "RuntimeApps",
    "RuntimeBoundary",
    "RuntimeBundle",
    "RuntimeHost",
    "RuntimePolicy",
    "ServerFailure",
    "SessionMcpRuntime",
    "TransportConnector",
    "apps_enabled",
    "enabled_servers",
    "process_app_views",
    "runtime_container",
]


def runtime_container(
    settings: Settings | Mapping[str, str] | None = None, *, oauth: Any = None, elicitation: Any = None
) -> Container:
    """The container of a client runtime: ``settings``, or an environment to resolve them from (default: the
    process environment).

    ``oauth``: the ``HttpMcpConnector(oauth=…)`` hook for ``auth: "oauth"`` servers, instead of the MCP OAuth
    store of the state database. ``elicitation``: the host's answer to servers' ``elicitation/create``
    requests (default: refused)."""
    container = create_container(settings)
    if oauth is not None:
        container.oauth_hook.override(oauth)  # a plain value overrides as providers.Object
    if elicitation is not None:
        container.elicitation.override(elicitation)
    return container


class TransportConnector:
    """Routes each resolved config to the stdio or HTTP connector, each taken from its provider on first use
    (the HTTP stack is imported only for the first HTTP server)."""

    def __init__(self, stdio: Callable[[], McpConnector], http: Callable[[], McpConnector]) -> None:
        self._stdio_provider = stdio
        self._http_provider = http
        self._stdio: McpConnector | None = None
        self._http: McpConnector | None = None

    def connect(
        self,
        server_name: str,
        config: StdioConfig | HttpConfig,
        *,
        on_event: Callable[[McpEvent], None],
        log: Callable[[str], None],
    ) -> AbstractAsyncContextManager[McpConnection]:
        if isinstance(config, StdioConfig):
            if self._stdio is None:
                self._stdio = self._stdio_provider()
            return self._stdio.connect(server_name, config, on_event=on_event, log=log)
        if self._http is None:
            self._http = self._http_provider()
        return self._http.connect(server_name, config, on_event=on_event, log=log)


def enabled_servers(servers: Mapping[str, Any]) -> dict[str, Any]:
    """The servers a session runtime serves: object entries not disabled, in the given order."""
    return {
        name: server
        for name, server in servers.items()
        if isinstance(server, dict) and server.get("enabled") is not False
    }


def _session_servers(
    servers: Mapping[str, Any], bundle: Mapping[str, Any] | None, overrides: Mapping[str, Any] | None
) -> dict[str, Any]:
    if bundle is None and overrides is None:
        return enabled_servers(servers)
    return merge_with_config(bundle or {}, servers, overrides)


def _tool_gate(
    settings: ToolGateSettings,
    hooks: HookRegistry | None,
    approvals: PluginApprovals | None,
    warn: Callable[[str], None],
    audit: AuditTrail | None = None,
) -> ToolGate:
    from openclaw_mcp.application.audit import AuditSubject
    from openclaw_mcp.application.tool_boundary import HookRegistry, ToolBoundary
    from openclaw_mcp.domain.tool_policy import parse_session_key_agent

    if audit is not None:  # whose calls: the session's agent (else the one its key names), key and run
        agent = settings.agent_id or parse_session_key_agent(settings.session_key)
        audit = audit.with_subject(AuditSubject(agent, settings.session_key, settings.run_id))
    registry = hooks if hooks is not None else HookRegistry()
    boundary = ToolBoundary(registry, approvals=approvals, log=warn, audit=audit)
    return ToolGate(replace(settings, boundary=boundary), warn=warn)


@dataclass(frozen=True, slots=True)
class ServerFailure:
    """Why a server is missing from :meth:`SessionMcpRuntime.tools` (issue 36): ``message`` is the diagnostic
    as the reference words it (a stdio server that cannot start or exits early reads ``MCP error -32000:
    Connection closed``); ``kind`` (``executable_not_found``, ``spawn_failed``, ``exited``, ``other``),
    ``reason`` (``executable not found: <command>``, ``process exited with code 1``) and ``stderr_tail`` (the
    server's last ≤ 5 stderr lines, redacted, ≤ 500 characters) say why. ``str()`` is all of it, one line each."""

    server_name: str
    message: str
    kind: str | None = None
    reason: str | None = None
    stderr_tail: tuple[str, ...] = ()

    def __str__(self) -> str:
        head = f"{self.server_name}: {self.message}"
        lines = [f"{head} ({self.reason})" if self.reason else head]
        lines += [f"  stderr: {line}" for line in self.stderr_tail]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class McpTool:
    """One model-facing tool: ``name`` (``<server>__<tool>``), ``description``, ``parameters`` (the
    normalised JSON schema of its input) and ``execute``."""

    spec: AgentToolSpec
    runtime: SessionRuntime
    key: Callable[[str], Any]
    gate: ToolGate
    apps: _Apps | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def description(self) -> str:
        return self.spec.description

    @property
    def parameters(self) -> Any:
        return self.spec.parameters

    async def execute(
        self,
        arguments: Mapping[str, Any] | None = None,
        *,
        tool_call_id: str | None = None,
        cancel: CancelSignal | None = None,
    ) -> AgentToolResult:
        """Run the tool through the ``before_tool_call`` boundary (the hooks see ``tool_call_id``, default: a
        fresh UUID). MCP failures raise (``McpError`` and runtime errors), tool errors come back as a result
        with ``isError`` in its details; a hook's veto comes back as the blocked result (``details.status ==
        "blocked"``) and no MCP request is sent; a hook failure or a denied approval raises
        ``application.tool_boundary.ToolCallBlocked`` with the reason."""
        call_id = tool_call_id or str(uuid.uuid4())

        async def run(params: Any) -> AgentToolResult:
            return await self._run(params, call_id)

        outcome = await self.gate.call(
            tool_name=self.spec.name,
            params=dict(arguments) if isinstance(arguments, Mapping) else ({} if arguments is None else arguments),
            tool_call_id=call_id,
            execute=run,
            cancel=cancel,
            audit_target=AuditTarget(self.spec.server_name, self.spec.tool_name),
        )
        if isinstance(outcome, AgentToolResult):
            return outcome
        content = outcome.get("content") or ()
        return AgentToolResult(content=tuple(content), details=dict(outcome.get("details") or {}))

    async def _run(self, params: Any, tool_call_id: str) -> AgentToolResult:
        spec, args = self.spec, dict(params) if isinstance(params, Mapping) else {}
        self.runtime.mark_used()  # only an execution counts as use (a vetoed call does not, §1.3)
        server = spec.server_name
        if spec.operation == "tool":
            result = await self.runtime.call_tool(server, spec.tool_name, args, tool_call_id=tool_call_id)
            projected = project_call_result(result, {"mcpServer": server, "mcpTool": spec.tool_name})
            uri = spec.catalog_tool.ui_resource_uri if spec.catalog_tool is not None else None
            if self.apps is None or uri is None:
                return projected
            return await self.apps.with_preview(self.runtime, spec, uri, args, result, tool_call_id, projected)
        if spec.operation == "resources_list":
            return json_tool_result(server, "resources_list", await self.runtime.list_resources(server))
        if spec.operation == "resources_read":
            uri = parse_resources_read_args(args)
            return json_tool_result(server, "resources_read", await self.runtime.read_resource(server, uri))
        if spec.operation == "prompts_list":
            return json_tool_result(server, "prompts_list", await self.runtime.list_prompts(server))
        name, prompt_args = parse_prompts_get_args(args, self.key)
        return prompt_tool_result(server, await self.runtime.get_prompt(server, name, prompt_args))


@dataclass(frozen=True, slots=True)
class _Apps:
    """MCP Apps of one runtime (mcp-apps §13.1): the view store and the app-callable tools per server."""

    views: AppViews
    allowed: Mapping[str, frozenset[str]]
    session_key: str | None

    async def with_preview(
        self,
        runtime: SessionRuntime,
        spec: AgentToolSpec,
        uri: str,
        args: Mapping[str, Any],
        raw: Mapping[str, Any],
        tool_call_id: str,
        projected: AgentToolResult,
    ) -> AgentToolResult:
        """The result with ``details.mcpAppPreview`` when the view could be prepared (§4.1, §4.4)."""
        view = await self.views.prepare(
            runtime,
            server_name=spec.server_name,
            tool_name=spec.tool_name,
            uri=uri,
            tool_input=dict(args),
            tool_result=dict(raw),
            allowed_app_tools=self.allowed.get(spec.server_name, frozenset()),
            tool_call_id=tool_call_id,
        )
        if view is None:
            return projected
        preview = canvas_preview(view, result_has_meta="_meta" in raw, session_key=self.session_key)
        return replace(projected, details={**projected.details, "mcpAppPreview": preview})


_PROCESS_APP_VIEWS: list[AppViews] = []


def process_app_views(warn: Callable[[str], None] | None = None) -> AppViews:
    """The process-wide MCP App view store (mcp-apps §4.3: one map per process, in memory only)."""
    if not _PROCESS_APP_VIEWS:
        _PROCESS_APP_VIEWS.append(AppViews(composition.clock(), warn=warn))
    return _PROCESS_APP_VIEWS[0]


def apps_enabled(config: Mapping[str, Any] | None) -> bool:
    """``mcp.apps.enabled`` is exactly ``true`` (anything else is off, mcp-apps §1)."""
    mcp = (config or {}).get("mcp")
    apps = mcp.get("apps") if isinstance(mcp, dict) else None
    return isinstance(apps, dict) and apps.get("enabled") is True


@dataclass(frozen=True, slots=True)
class RuntimeHost:
    """How a runtime reaches the world: where its warning and debug lines go and its adapters — ``container``
    (default: :func:`runtime_container` of ``environ``, the process environment unless given, with ``oauth``:
    the ``HttpMcpConnector(oauth=…)`` hook for ``auth: "oauth"`` servers instead of the stored operator
    credentials)."""

    warn: Callable[[str], None] | None = None
    debug: Callable[[str], None] | None = None
    environ: Mapping[str, str] | None = None
    oauth: Any = None
    container: Container | None = None


@dataclass(frozen=True, slots=True)
class RuntimePolicy:
    """Whose session it is and which tools it may see (tool-policy-and-lifecycle.md §2): ``config`` (the
    OpenClaw config document: ``tools``, ``agents``), the agent, session and run, the run's tool allow-list,
    the sandbox, the agent's other tools, and the names the model's tools must not take."""

    config: Mapping[str, Any] | None = None
    agent_id: str | None = None
    session_key: str | None = None
    run_id: str | None = None
    tools_allow: Sequence[str] | None = None
    sandboxed: bool = False
    other_tools: Sequence[PolicyTool] = ()
    reserved_tool_names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RuntimeBoundary:
    """The ``before_tool_call`` seam (tool-policy-and-lifecycle.md §3): ``hooks`` run before every execution,
    ``approvals`` (a ``PluginApprovals`` route such as ``entrypoints.approvals.gateway_plugin_approvals``)
    answers their ``requireApproval`` — without one, approval requests are denied (decision D-SR2)."""

    hooks: HookRegistry | None = None
    approvals: PluginApprovals | None = None
    approval_mode: ApprovalMode = "gateway"


@dataclass(frozen=True, slots=True)
class RuntimeBundle:
    """Plugin-bundle servers merged with ``mcp.servers`` (spec client-runtime §10.8): ``bundle`` as
    ``adapters.filesystem.bundle_mcp.load_bundle_mcp`` reads it (each diagnostic is warned once, ``<plugin
    id>: <message>``), ``tool_overrides`` the session's ``toolOverrides.mcpServers`` (name → ``True``/``False``).
    The ``PLUGIN_DATA`` directory of a bundle server still in the merged map is created right before that
    server is spawned."""

    bundle: BundleMcpResult | None = None
    tool_overrides: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class RuntimeApps:
    """MCP Apps (mcp-apps §2, §4): ``enabled`` (default: the policy config's ``mcp.apps.enabled``) sends the
    capability and gives the results of tools with a ``ui://`` view a ``details.mcpAppPreview`` descriptor,
    the view held in ``views`` (default: the process's store, :func:`process_app_views`)."""

    enabled: bool | None = None
    views: AppViews | None = None


class SessionMcpRuntime:
    """One agent session's MCP servers: connects on first use, caches the catalog, cleans up on exit.

    ``servers`` is an ``mcp.servers`` map; ``session_id`` names the session; the other arguments group the
    rest: :class:`RuntimeHost`, :class:`RuntimePolicy`, :class:`RuntimeBoundary`, :class:`RuntimeBundle`,
    :class:`RuntimeApps` (each defaults to its defaults)."""

    def __init__(
        self,
        servers: Mapping[str, Any],
        *,
        session_id: str = "default",
        host: RuntimeHost = RuntimeHost(),
        policy: RuntimePolicy = RuntimePolicy(),
        boundary: RuntimeBoundary = RuntimeBoundary(),
        bundle: RuntimeBundle = RuntimeBundle(),
        apps: RuntimeApps = RuntimeApps(),
    ) -> None:
        container = host.container
        if container is None:
            container = runtime_container(host.environ, oauth=host.oauth)
        self._collator = container.collator()
        services = RuntimeServices(
            connector=TransportConnector(container.stdio_connector, container.http_connector),
            clock=container.clock(),
            warn=host.warn or (lambda _text: None),
            debug=host.debug or (lambda _text: None),
            pins=container.tool_pins(),
            telemetry=container.telemetry(),
        )
        self._reserved = policy.reserved_tool_names
        loaded = bundle.bundle
        if loaded is not None:
            for plugin_id, message in loaded.diagnostics:
                services.warn(f"{plugin_id}: {message}")  # printed as "[bundle-mcp] <text>" by the CLI
        self._gate = _tool_gate(
            ToolGateSettings(
                config=policy.config or {},
                agent_id=policy.agent_id,
                session_key=policy.session_key,
                session_id=session_id,
                run_id=policy.run_id,
                tools_allow=policy.tools_allow,
                sandboxed=policy.sandboxed,
                other_tools=policy.other_tools,
                approval_mode=boundary.approval_mode,
            ),
            boundary.hooks,
            boundary.approvals,
            services.warn,
            container.audit_trail(warn=services.warn),
        )
        self._apps_enabled = apps_enabled(policy.config) if apps.enabled is None else apps.enabled
        self._app_views = apps.views
        self._session_key = policy.session_key
        session_servers = _session_servers(servers, None if loaded is None else loaded.servers, bundle.tool_overrides)
        if not self._gate.permits_runtime(list(assign_safe_server_names(session_servers).values())):
            session_servers = {}
        self._runtime = SessionRuntime(
            SessionConfig(
                session_id=session_id,
                servers=session_servers,
                tool_denylist=self._gate.deny_entries(),
                mcp_apps_enabled=self._apps_enabled,
                plugin_data_dirs=None
                if loaded is None or not loaded.data_dirs
                else kept_data_dirs(loaded.data_dirs, loaded.servers, servers, bundle.tool_overrides),
            ),
            services,
            collator=self._collator,
        )

    @classmethod
    def from_openclaw_config(
        cls, env: Mapping[str, str] | None = None, *, profile: str | None = None, **kwargs: Any
    ) -> SessionMcpRuntime:
        """The servers of the OpenClaw config (``OPENCLAW_CONFIG_PATH`` / ``OPENCLAW_STATE_DIR`` / ``~``);
        ``profile`` is the CLI's ``--profile`` (``"dev"`` for ``--dev``): ``~/.openclaw-<profile>/openclaw.json``."""
        from openclaw_mcp.domain.config_load import analyze_config
        from openclaw_mcp.entrypoints.cli.root_options import PROFILE_NAME, profile_env
        from openclaw_mcp.entrypoints.paths import resolve_home

        environ: Mapping[str, str] = os.environ if env is None else env
        if profile is not None:
            if PROFILE_NAME.fullmatch(profile.strip()) is None:
                raise ValueError('Invalid profile (use letters, numbers, "_", "-" only)')
            environ = {**environ, **profile_env(profile, environ, resolve_home(environ), os.getcwd())}
        path = Settings.from_environ(environ).config_path
        text = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        analysis = analyze_config(text, environ)
        if not analysis.valid:
            first = analysis.issues[0]
            raise ValueError(f"OpenClaw config is invalid: {path}: {first.path}: {first.message}")
        policy: RuntimePolicy = kwargs.pop("policy", RuntimePolicy())
        if policy.config is None:
            policy = replace(policy, config=analysis.document)
        return cls(analysis.servers, policy=policy, **kwargs)

    @property
    def session(self) -> SessionRuntime:
        """The underlying application session runtime (catalog, requests, leases)."""
        return self._runtime

    async def __aenter__(self) -> SessionMcpRuntime:
        await self._runtime.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._runtime.__aexit__(exc_type, exc, tb)

    async def tools(self) -> list[McpTool]:
        """The flat, prefixed, filtered tool list (connecting servers on first use). Materialising the tools
        counts as use of the session runtime (``mark_used``, tool-policy-and-lifecycle.md §1.3)."""
        catalog = await self._runtime.get_catalog()
        self._runtime.mark_used()
        built = build_tools_from_catalog(catalog, self._collator.key, reserved_tool_names=self._reserved)
        allowed = self._gate.filter(built.tools, lambda spec: spec.name)
        apps = self._apps(catalog, allowed) if self._apps_enabled else None
        return [
            McpTool(spec, self._runtime, self._collator.key, self._gate, apps) for spec in allowed if spec.executable
        ]

    async def failures(self) -> list[ServerFailure]:
        """The servers that failed (connect or listing), with why: one :class:`ServerFailure` per catalog
        diagnostic, in server order; empty when every server is up. Connects on first use, as :meth:`tools`."""
        catalog = await self._runtime.get_catalog()
        failures = []
        for diagnostic in catalog.diagnostics or ():
            detail = diagnostic.detail
            failures.append(
                ServerFailure(diagnostic.server_name, diagnostic.message)
                if detail is None
                else ServerFailure(
                    diagnostic.server_name, diagnostic.message, detail.kind, detail.reason, detail.stderr_tail
                )
            )
        return failures

    def _apps(self, catalog: Catalog, model_tools: Sequence[AgentToolSpec]) -> _Apps:
        """The app-callable tools that pass this run's tool policy, per server (mcp-apps §3.4)."""
        projections = build_app_tool_policy_projections(
            catalog, model_tools, self._collator.key, reserved_tool_names=self._reserved
        )
        allowed: dict[str, set[str]] = {}
        for spec in self._gate.filter(projections, lambda spec: spec.name):
            tool = spec.catalog_tool
            if tool is not None and is_app_callable(tool.ui_visibility):
                allowed.setdefault(spec.server_name, set()).add(spec.tool_name)
        views = self._app_views or process_app_views()
        return _Apps(views, {name: frozenset(names) for name, names in allowed.items()}, self._session_key)
