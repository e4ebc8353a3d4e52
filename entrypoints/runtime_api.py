"""The client runtime as a library an agent embeds (spec client-runtime; README "Client runtime").

    async with SessionMcpRuntime(servers) as runtime:
        for tool in await runtime.tools():
            print(tool.name, tool.description)
        result = await tool.execute({"query": "x"})   # AgentToolResult(content=[...], details={...})

``servers`` is an ``mcp.servers`` map (name → definition, as in ``openclaw.json``); disabled entries are
skipped. ``SessionMcpRuntime.from_openclaw_config()`` reads it from the OpenClaw config file instead.
The runtime's adapters (the stdio and HTTP connectors, the OAuth hook, the clock, the collator) come from a
container (``entrypoints.containers``) made for each runtime.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from application.ports.mcp import McpConnection, McpConnector, McpEvent
from application.runtime import RuntimeServices, SessionConfig, SessionRuntime
from domain.bundle_mcp import BundleMcpResult, kept_data_dirs, merge_with_config
from domain.content import AgentToolResult, project_call_result
from domain.toolnames import AgentToolSpec, build_tools_from_catalog
from domain.transport import HttpConfig, StdioConfig
from domain.utility_tools import json_tool_result, parse_prompts_get_args, parse_resources_read_args, prompt_tool_result
from entrypoints.containers import Container, create_container

__all__ = ["McpTool", "SessionMcpRuntime", "TransportConnector", "enabled_servers", "runtime_container"]


def runtime_container(
    environ: Mapping[str, str] | None = None, *, oauth: Any = None, elicitation: Any = None
) -> Container:
    """The container of a client runtime configured from ``environ`` (default: the process environment).

    ``oauth``: the ``HttpMcpConnector(oauth=…)`` hook for ``auth: "oauth"`` servers, instead of the MCP OAuth
    store of the state database. ``elicitation``: the host's answer to servers' ``elicitation/create``
    requests (default: refused)."""
    container = create_container(environ)
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


@dataclass(frozen=True, slots=True)
class McpTool:
    """One model-facing tool: ``name`` (``<server>__<tool>``), ``description``, ``parameters`` (the
    normalised JSON schema of its input) and ``execute``."""

    spec: AgentToolSpec
    runtime: SessionRuntime
    key: Callable[[str], Any]

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def description(self) -> str:
        return self.spec.description

    @property
    def parameters(self) -> Any:
        return self.spec.parameters

    async def execute(self, arguments: Mapping[str, Any] | None = None) -> AgentToolResult:
        """Run the tool; MCP failures raise (``McpError`` and runtime errors), tool errors come back as a
        result with ``isError`` in its details."""
        spec, args = self.spec, dict(arguments or {})
        self.runtime.mark_used()
        server = spec.server_name
        if spec.operation == "tool":
            result = await self.runtime.call_tool(server, spec.tool_name, args)
            return project_call_result(result, {"mcpServer": server, "mcpTool": spec.tool_name})
        if spec.operation == "resources_list":
            return json_tool_result(server, "resources_list", await self.runtime.list_resources(server))
        if spec.operation == "resources_read":
            uri = parse_resources_read_args(args)
            return json_tool_result(server, "resources_read", await self.runtime.read_resource(server, uri))
        if spec.operation == "prompts_list":
            return json_tool_result(server, "prompts_list", await self.runtime.list_prompts(server))
        name, prompt_args = parse_prompts_get_args(args, self.key)
        return prompt_tool_result(server, await self.runtime.get_prompt(server, name, prompt_args))


class SessionMcpRuntime:
    """One agent session's MCP servers: connects on first use, caches the catalog, cleans up on exit."""

    def __init__(
        self,
        servers: Mapping[str, Any],
        *,
        session_id: str = "default",
        warn: Callable[[str], None] | None = None,
        debug: Callable[[str], None] | None = None,
        environ: Mapping[str, str] | None = None,
        reserved_tool_names: tuple[str, ...] = (),
        oauth: Any = None,
        bundle: BundleMcpResult | None = None,
        tool_overrides: Mapping[str, Any] | None = None,
        container: Container | None = None,
    ) -> None:
        """``bundle``: the plugin-bundle servers as ``adapters.filesystem.bundle_mcp.load_bundle_mcp`` read
        them (each diagnostic is warned once, ``<plugin id>: <message>``); ``tool_overrides``: the session's
        ``toolOverrides.mcpServers`` (name → ``True``/``False``). Either one merges per spec client-runtime
        §10.8 (without both, ``servers`` is used as before); the ``PLUGIN_DATA`` directory of a bundle server
        still in the merged map is created right before that server is spawned. ``container``: the adapters
        (default: :func:`runtime_container` of ``environ`` and ``oauth``)."""
        if container is None:
            container = runtime_container(environ, oauth=oauth)
        self._collator = container.collator()
        services = RuntimeServices(
            connector=TransportConnector(container.stdio_connector, container.http_connector),
            clock=container.clock(),
            warn=warn or (lambda _text: None),
            debug=debug or (lambda _text: None),
        )
        self._reserved = reserved_tool_names
        bundle_servers = None if bundle is None else bundle.servers
        if bundle is not None:
            for plugin_id, message in bundle.diagnostics:
                services.warn(f"{plugin_id}: {message}")  # printed as "[bundle-mcp] <text>" by the CLI
        self._runtime = SessionRuntime(
            SessionConfig(
                session_id=session_id,
                servers=_session_servers(servers, bundle_servers, tool_overrides),
                plugin_data_dirs=None
                if bundle is None or not bundle.data_dirs
                else kept_data_dirs(bundle.data_dirs, bundle.servers, servers, tool_overrides),
            ),
            services,
            collator=self._collator,
        )

    @classmethod
    def from_openclaw_config(cls, env: Mapping[str, str] | None = None, **kwargs: Any) -> SessionMcpRuntime:
        """The servers of the OpenClaw config (``OPENCLAW_CONFIG_PATH`` / ``OPENCLAW_STATE_DIR`` / ``~``)."""
        from adapters.filesystem.paths import resolve_config_path
        from domain.config_load import analyze_config

        environ = os.environ if env is None else env
        path = resolve_config_path(environ)
        text = open(path, encoding="utf-8").read() if os.path.exists(path) else None  # noqa: SIM115
        analysis = analyze_config(text, environ)
        if not analysis.valid:
            first = analysis.issues[0]
            raise ValueError(f"OpenClaw config is invalid: {path}: {first.path}: {first.message}")
        return cls(analysis.servers, **kwargs)

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
        """The flat, prefixed, filtered tool list (connecting servers on first use)."""
        catalog = await self._runtime.get_catalog()
        built = build_tools_from_catalog(catalog, self._collator.key, reserved_tool_names=self._reserved)
        return [McpTool(spec, self._runtime, self._collator.key) for spec in built.tools if spec.executable]
