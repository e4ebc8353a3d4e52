"""MCP Apps on the settings page (spec mcp-apps §13.2.2–§13.2.5): the servers' app tools, the operator's
``Run``, and the bridge a view's app talks to through the page.

:class:`AppsHost` owns one client runtime per opened server (connected only on an explicit ``Open app`` or
``Run``) and the process's view store. Each runtime is entered and exited by its own task of the owner task
group (:meth:`serve`), so its task groups never straddle request tasks and one runtime can close alone (its
server removed, disabled or changed); leaving ``serve`` drops every view and closes every server."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus

from openclaw_mcp.application.errors import ApplicationError, CommandError, ServerNotFoundError
from openclaw_mcp.application.mcp_apps import AppViews, app_callable_names
from openclaw_mcp.application.ports.mcp import McpError
from openclaw_mcp.application.registry import Registry, not_found_message
from openclaw_mcp.domain.config_load import ConfigAnalysis
from openclaw_mcp.domain.mcp_apps import VIEW_EXPIRED_CODE, AppViewError, LeaseLimits, definition_grant
from openclaw_mcp.domain.status import auth_view
from openclaw_mcp.entrypoints.runtime_api import (
    RuntimeApps,
    RuntimeHost,
    RuntimePolicy,
    SessionMcpRuntime,
    runtime_container,
)
from openclaw_mcp.entrypoints.settings import Settings
from openclaw_mcp.entrypoints.ui.bridge_methods import BRIDGE_METHODS
from openclaw_mcp.entrypoints.ui.sandbox import sandbox_url_path

__all__ = ["AppsHost", "AppsProblem", "apps_limits"]

POLL_SECONDS = 0.5
"""How often the config is re-read while a runtime or a view is live."""

TTL_ENV = "OPENCLAW_MCP_APPS_VIEW_TTL_MS"
"""Test hook: a shorter view lifetime (milliseconds) than the reference's 10 minutes."""


class AppsProblem(Exception):
    """A refused apps request: HTTP ``status`` and the error document's fields."""

    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code

    def as_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"type": "unavailable", "message": str(self)}
        if self.code:
            error["code"] = self.code
        return {"ok": False, "error": error}


_STATUS = {"expired": 409, "limit": 429, "refused": 403, "invalid": 422}


def _problem(exc: AppViewError) -> AppsProblem:
    return AppsProblem(_STATUS[exc.kind], str(exc), VIEW_EXPIRED_CODE if exc.kind == "expired" else None)


def apps_limits(env: Mapping[str, str]) -> LeaseLimits:
    """The lease limits, with the test hook's lifetime when it is a positive number."""
    raw = env.get(TTL_ENV, "")
    try:
        ttl = float(raw)
    except ValueError:
        return LeaseLimits()
    return LeaseLimits(ttl_ms=int(ttl)) if math.isfinite(ttl) and ttl > 0 else LeaseLimits()


@dataclass(slots=True)
class _Held:
    """One runtime held open by its own task of :meth:`AppsHost.serve` until ``close`` is set."""

    runtime: SessionMcpRuntime
    server_name: str
    grant: str
    opened: anyio.Event = field(default_factory=anyio.Event)
    close: anyio.Event = field(default_factory=anyio.Event)
    closed: anyio.Event = field(default_factory=anyio.Event)
    error: BaseException | None = None


class AppsHost:
    """The page's apps: listing, running, and the bridge of the views it created.

    Every view is bound to the server definition its granting run used (``definition_grant``). A server that
    is removed, disabled, made per-requester or redefined in the config ends its views (their bridge answers
    the expired error) and closes its runtime: the config is checked on every apps request and, while a
    runtime or a view is live, polled by :meth:`serve`. At most one runtime is held per live definition."""

    def __init__(
        self,
        registry: Registry,
        settings: Settings,
        *,
        sandbox_base: str,
        sandbox_port: int,
        sandbox_origin: str | None,
        views: AppViews,
        warn: Callable[[str], None],
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self._registry = registry
        self._settings = settings
        self._sandbox_base = sandbox_base
        self._sandbox_port = sandbox_port
        self._sandbox_origin = sandbox_origin
        self.views = views
        self._warn = warn
        self._poll_seconds = poll_seconds
        self._runtimes: dict[str, _Held] = {}
        self._opening: dict[str, anyio.Lock] = {}
        self._group: TaskGroup | None = None

    # --- the owner task --------------------------------------------------------------------------------

    async def serve(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Hold runtimes on request and retire stale ones until cancelled; then drop the views and close
        every runtime."""
        try:
            async with anyio.create_task_group() as group:
                self._group = group
                group.start_soon(self._watch)
                task_status.started()
                await anyio.sleep_forever()
        finally:
            self._group = None
            self.views.close()
            self._runtimes.clear()
            self._opening.clear()

    async def _hold(self, held: _Held) -> None:
        """Enter the runtime, report it open, keep it until ``close`` (or cancellation), then exit it."""
        try:
            async with held.runtime:
                held.opened.set()
                await held.close.wait()
        except Exception as exc:
            if held.opened.is_set():
                self._warn(f'mcp-app: closing the runtime of "{held.server_name}" failed: {exc}')
            else:
                held.error = exc
        finally:
            if self._runtimes.get(held.grant) is held:  # ended on its own: the next request opens a new one
                del self._runtimes[held.grant]
            held.opened.set()
            held.closed.set()

    async def _watch(self) -> None:
        """While anything is live, re-read the config and retire what no longer matches it."""
        while True:
            await anyio.sleep(self._poll_seconds)
            if not self._runtimes and not len(self.views.leases):
                continue
            try:
                _text, analysis = await self._registry.config.inspect()
            except Exception as exc:  # an unreadable file: the next request reports it; keep polling
                self._warn(f"mcp-app: reading the config failed: {exc}")
                continue
            if analysis.valid:
                self._reconcile(analysis)

    def _live_grants(self, analysis: ConfigAnalysis) -> set[str]:
        """The definitions an app may use now: enabled, not per-requester servers of a valid config."""
        live = set()
        for name, server in analysis.servers.items():
            if not isinstance(server, dict) or server.get("enabled") is False:
                continue
            if auth_view(server, self._registry.warnings.resolve(name, server)).kind == "per-requester":
                continue
            live.add(definition_grant(name, server))
        return live

    def _reconcile(self, analysis: ConfigAnalysis) -> None:
        """End the views and close the runtimes of every definition that is not live any more."""
        live = self._live_grants(analysis)
        ended = self.views.revoke(lambda view: view.grant is not None and view.grant not in live)
        names = sorted({view.server_name for view in ended})
        for name in names:
            count = sum(1 for view in ended if view.server_name == name)
            self._warn(
                f'mcp-app: ended {count} view{"s" if count != 1 else ""} of "{name}": '
                "its server was removed, disabled or changed"
            )
        for grant in [grant for grant in self._runtimes if grant not in live]:
            self._retire(grant)

    def _retire(self, grant: str) -> None:
        self.views.revoke(lambda view: view.grant == grant)
        held = self._runtimes.pop(grant, None)
        self._opening.pop(grant, None)
        if held is not None:
            held.close.set()

    async def _runtime(
        self, name: str, server: dict[str, Any], document: dict[str, Any]
    ) -> tuple[str, SessionMcpRuntime]:
        grant = definition_grant(name, server)
        lock = self._opening.setdefault(grant, anyio.Lock())
        async with lock:
            held = self._runtimes.get(grant)
            if held is not None:
                return grant, held.runtime
            if self._group is None:
                raise AppsProblem(503, "MCP App runtime is unavailable")
            runtime = SessionMcpRuntime(
                {name: server},
                session_id="openclaw-mcp-ui-apps",
                host=RuntimeHost(
                    warn=lambda text: self._warn(f"[bundle-mcp] {text}"), container=runtime_container(self._settings)
                ),
                policy=RuntimePolicy(config=document),
                apps=RuntimeApps(enabled=True, views=self.views),
            )
            held = _Held(runtime, name, grant)
            self._group.start_soon(self._hold, held)
            await held.opened.wait()
            if held.error is not None:
                raise AppsProblem(502, str(held.error) or type(held.error).__name__)
            if held.closed.is_set():
                raise AppsProblem(503, "MCP App runtime is unavailable")
            self._runtimes[grant] = held
            return grant, runtime

    # --- listing and running (§13.2.2) -----------------------------------------------------------------

    async def _load(self) -> ConfigAnalysis:
        """The current config, every stale view and runtime retired first (fail closed: an unreadable or
        invalid config refuses the request and keeps everything as it is until it is valid again)."""
        try:
            analysis = await self._registry.load()
        except ApplicationError as exc:  # the config became unreadable or invalid since start-up
            raise AppsProblem(409, str(exc).splitlines()[0]) from exc
        self._reconcile(analysis)
        return analysis

    async def _check_grants(self) -> None:
        """Retire what the current config no longer grants, quietly (no config warnings per bridge call);
        an unreadable or invalid config refuses the call."""
        _text, analysis = await self._registry.config.inspect()
        if not analysis.valid:
            raise AppsProblem(409, f"OpenClaw config is invalid: {self._registry.path}")
        self._reconcile(analysis)

    async def status(self) -> dict[str, Any]:
        analysis = await self._load()
        servers = [
            name
            for name in self._registry.sorted_names(analysis.servers)
            if analysis.servers[name].get("enabled") is not False
        ]
        out: dict[str, Any] = {"ok": True, "enabled": True, "servers": servers, "sandboxPort": self._sandbox_port}
        out["sandboxOrigin"] = self._sandbox_base
        return out

    async def _server(self, name: object) -> tuple[str, dict[str, Any], dict[str, Any]]:
        if not isinstance(name, str) or not name:
            raise AppsProblem(422, "server is required")
        analysis = await self._load()
        server = analysis.servers.get(name)
        if server is None:
            raise AppsProblem(404, str(ServerNotFoundError(not_found_message(name, self._registry.path))))
        if server.get("enabled") is False:
            raise AppsProblem(
                422, f'MCP server "{name}" is disabled. Run openclaw mcp configure {name} --enable first.'
            )
        view = auth_view(server, self._registry.warnings.resolve(name, server))
        if view.kind == "per-requester":
            raise AppsProblem(422, f'MCP server "{name}" is per-requester: its apps open in chat only.')
        return name, server, analysis.document

    async def _catalog_tools(self, runtime: SessionMcpRuntime, name: str) -> list[Any]:
        try:
            catalog = await runtime.session.get_catalog()
        except McpError as exc:
            raise AppsProblem(502, str(exc)) from exc
        if name not in catalog.servers:
            failure = next((item.message for item in catalog.diagnostics or () if item.server_name == name), None)
            raise AppsProblem(502, failure or f'MCP server "{name}" did not connect')
        return [tool for tool in catalog.tools if tool.server_name == name]

    async def tools(self, server: object) -> dict[str, Any]:
        """``Open app``: connect the server and list its model-visible tools that have a view."""
        name, definition, document = await self._server(server)
        _grant, runtime = await self._runtime(name, definition, document)
        listed = [
            {
                "name": tool.tool_name,
                "title": tool.title or tool.tool_name,
                "description": tool.description or "",
                "uiResourceUri": tool.ui_resource_uri,
            }
            for tool in await self._catalog_tools(runtime, name)
            if tool.ui_resource_uri is not None and (tool.ui_visibility is None or "model" in tool.ui_visibility)
        ]
        return {"ok": True, "server": name, "tools": listed}

    async def run(self, server: object, tool: object, arguments: object) -> dict[str, Any]:
        """``Run``: call the tool as the operator and prepare its view (the granting run, §13.2.2)."""
        name, definition, document = await self._server(server)
        if not isinstance(tool, str) or not tool:
            raise AppsProblem(422, "tool is required")
        if arguments is not None and not isinstance(arguments, dict):
            raise AppsProblem(422, "arguments: expected a JSON object")
        grant, runtime = await self._runtime(name, definition, document)
        entry = next((item for item in await self._catalog_tools(runtime, name) if item.tool_name == tool), None)
        if entry is None or entry.ui_resource_uri is None:
            raise AppsProblem(404, f'MCP tool "{tool}" has no MCP App view')
        if entry.ui_visibility is not None and "model" not in entry.ui_visibility:
            raise AppsProblem(403, f'MCP tool "{tool}" is not app-callable')
        args = dict(arguments or {})
        try:
            result = await runtime.session.call_tool(name, tool, args)
            view = await self.views.create(
                runtime.session,
                server_name=name,
                tool_name=tool,
                uri=entry.ui_resource_uri,
                tool_input=args,
                tool_result=result,
                allowed_app_tools=app_callable_names(runtime.session, name),
                grant=grant,
            )
        except AppViewError as exc:
            raise AppsProblem(422, str(exc)) from exc
        except McpError as exc:
            raise AppsProblem(502, str(exc)) from exc
        held = self._runtimes.get(grant)
        if held is None or held.runtime is not runtime:  # retired while the run was in flight
            self.views.revoke(lambda item: item.view_id == view.view_id)
            raise AppsProblem(409, f'MCP server "{name}" changed while its tool ran; run it again')
        return {"ok": True, "viewId": view.view_id, "title": view.title}

    # --- the bridge (§13.2.3) --------------------------------------------------------------------------

    def view(self, view_id: str) -> dict[str, Any]:
        described = self.views.describe(view_id)
        path = sandbox_url_path(described.get("csp"))
        out: dict[str, Any] = {
            "ok": True,
            "sandboxUrl": f"{self._sandbox_base}{path}",
            "sandboxPort": self._sandbox_port,
        }
        if self._sandbox_origin is not None:
            out["sandboxOrigin"] = self._sandbox_origin
        out.update(described)
        return out

    async def bridge(self, method: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """One bridge call (``view``, ``callTool``, …) for the view ``body["viewId"]``."""
        view_id = body.get("viewId")
        if not isinstance(view_id, str) or not view_id.strip():
            raise AppsProblem(422, "viewId is required")
        view_id = view_id.strip()
        try:
            self.views.view(view_id)
        except AppViewError as exc:
            raise _problem(exc) from exc
        await self._check_grants()  # ends the view when its server was removed, disabled or changed
        calls: dict[str, Callable[[], Awaitable[Any]]] = {
            "callTool": lambda: self.views.call_tool(view_id, body.get("toolName"), body.get("arguments", {})),
            "listTools": lambda: self.views.list_tools(view_id, body.get("cursor")),
            "listResources": lambda: self.views.list_resources(view_id, body.get("cursor")),
            "listResourceTemplates": lambda: self.views.list_resource_templates(view_id, body.get("cursor")),
            "readResource": lambda: self.views.read_resource(view_id, body.get("uri")),
        }
        try:
            if method == "view":
                return self.view(view_id)
            if method == "updateModelContext":
                return {"ok": True, "result": self.views.update_model_context(view_id, body)}
            call = calls.get(method)
            if call is None or method not in BRIDGE_METHODS:
                raise AppsProblem(404, "Not Found")
            return {"ok": True, "result": await call()}
        except AppViewError as exc:
            raise _problem(exc) from exc
        except (McpError, CommandError) as exc:
            raise AppsProblem(502, str(exc)) from exc
