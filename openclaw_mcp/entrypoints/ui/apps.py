"""MCP Apps on the settings page (spec mcp-apps §13.2.2–§13.2.5): the servers' app tools, the operator's
``Run``, and the bridge a view's app talks to through the page.

:class:`AppsHost` owns one client runtime per opened server (connected only on an explicit ``Open app`` or
``Run``) and the process's view store. Runtimes are entered and exited by one owner task (:meth:`serve`),
so their task groups never straddle request tasks; leaving ``serve`` drops every view and closes every
server."""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.abc import TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from openclaw_mcp.application.errors import ApplicationError, CommandError, ServerNotFoundError
from openclaw_mcp.application.mcp_apps import AppViews, app_callable_names
from openclaw_mcp.application.ports.mcp import McpError
from openclaw_mcp.application.registry import Registry, not_found_message
from openclaw_mcp.domain.config_load import ConfigAnalysis
from openclaw_mcp.domain.mcp_apps import VIEW_EXPIRED_CODE, AppViewError, LeaseLimits
from openclaw_mcp.domain.status import auth_view
from openclaw_mcp.entrypoints.runtime_api import SessionMcpRuntime
from openclaw_mcp.entrypoints.ui.bridge_methods import BRIDGE_METHODS
from openclaw_mcp.entrypoints.ui.sandbox import sandbox_url_path

__all__ = ["AppsHost", "AppsProblem", "apps_limits"]

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
class _Open:
    """A request to the owner task: enter this runtime and hand it back."""

    runtime: SessionMcpRuntime
    done: anyio.Event = field(default_factory=anyio.Event)
    error: BaseException | None = None


class AppsHost:
    """The page's apps: listing, running, and the bridge of the views it created."""

    def __init__(
        self,
        registry: Registry,
        env: Mapping[str, str],
        *,
        sandbox_base: str,
        sandbox_port: int,
        sandbox_origin: str | None,
        views: AppViews,
        warn: Callable[[str], None],
    ) -> None:
        self._registry = registry
        self._env = dict(env)
        self._sandbox_base = sandbox_base
        self._sandbox_port = sandbox_port
        self._sandbox_origin = sandbox_origin
        self.views = views
        self._warn = warn
        self._runtimes: dict[tuple[str, str], SessionMcpRuntime] = {}
        self._opening: dict[tuple[str, str], anyio.Lock] = {}
        self._send: MemoryObjectSendStream[_Open] | None = None

    # --- the owner task --------------------------------------------------------------------------------

    async def serve(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Enter runtimes on request until cancelled; then drop the views and close every runtime."""
        send, receive = anyio.create_memory_object_stream[_Open](16)
        self._send = send
        try:
            async with AsyncExitStack() as stack:
                stack.callback(self.views.close)
                task_status.started()
                await self._enter_all(receive, stack)
        finally:
            self._send = None
            send.close()

    async def _enter_all(self, receive: MemoryObjectReceiveStream[_Open], stack: AsyncExitStack) -> None:
        async with receive:
            async for request in receive:
                try:
                    await stack.enter_async_context(request.runtime)
                except Exception as exc:
                    request.error = exc
                request.done.set()

    async def _runtime(self, name: str, server: dict[str, Any], document: dict[str, Any]) -> SessionMcpRuntime:
        key = (name, json.dumps(server, sort_keys=True, default=repr))
        lock = self._opening.setdefault(key, anyio.Lock())
        async with lock:
            runtime = self._runtimes.get(key)
            if runtime is not None:
                return runtime
            if self._send is None:
                raise AppsProblem(503, "MCP App runtime is unavailable")
            runtime = SessionMcpRuntime(
                {name: server},
                session_id="openclaw-mcp-ui-apps",
                environ=self._env,
                warn=lambda text: self._warn(f"[bundle-mcp] {text}"),
                config=document,
                mcp_apps_enabled=True,
                app_views=self.views,
            )
            request = _Open(runtime)
            await self._send.send(request)
            await request.done.wait()
            if request.error is not None:
                raise AppsProblem(502, str(request.error) or type(request.error).__name__)
            self._runtimes[key] = runtime
            return runtime

    # --- listing and running (§13.2.2) -----------------------------------------------------------------

    async def _load(self) -> ConfigAnalysis:
        try:
            return await self._registry.load()
        except ApplicationError as exc:  # the config became unreadable or invalid since start-up
            raise AppsProblem(409, str(exc).splitlines()[0]) from exc

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
        runtime = await self._runtime(name, definition, document)
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
        runtime = await self._runtime(name, definition, document)
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
            )
        except AppViewError as exc:
            raise AppsProblem(422, str(exc)) from exc
        except McpError as exc:
            raise AppsProblem(502, str(exc)) from exc
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
