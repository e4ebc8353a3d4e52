"""MCP App views: preparing a ``ui://`` view after a tool call and the bridge its app talks to (spec
mcp-apps §4, §5, §13.1.4, §13.2.3).

One :class:`AppViews` per process holds the live views in memory (``domain.mcp_apps.ViewLeases``); each
view keeps a lease on the session runtime it came from, released when the view leaves the store. Nothing
is written anywhere.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Literal

from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.runtime.session_runtime import SessionRuntime
from openclaw_mcp.domain.mcp_apps import (
    AppView,
    AppViewError,
    LeaseLimits,
    ViewLeases,
    app_resource_html,
    check_descriptor,
    is_app_callable,
    listing_ui_meta,
    normalize_csp,
    normalize_permissions,
    resource_ui_meta,
    view_byte_size,
)

__all__ = ["AppViews", "app_callable_names"]


def app_callable_names(runtime: SessionRuntime, server_name: str) -> frozenset[str]:
    """The tools of ``server_name`` in the runtime's current catalog that an app may call (§3.3)."""
    catalog = runtime.peek_catalog()
    if catalog is None:
        return frozenset()
    return frozenset(
        tool.tool_name
        for tool in catalog.tools
        if tool.server_name == server_name and is_app_callable(tool.ui_visibility)
    )


class AppViews:
    """The process's live MCP App views and their bridge (every method raises ``AppViewError``)."""

    def __init__(
        self,
        clock: Clock,
        *,
        limits: LeaseLimits | None = None,
        warn: Callable[[str], None] | None = None,
        new_id: Callable[[], str] | None = None,
    ) -> None:
        self._clock = clock
        self._warn = warn or (lambda _text: None)
        self._new_id = new_id or (lambda: f"mcp-app-{uuid.uuid4()}")
        self._runtimes: dict[str, SessionRuntime] = {}
        self._releases: dict[str, Callable[[], None]] = {}
        self.leases = ViewLeases(limits, on_drop=self._dropped)

    def _dropped(self, view: AppView) -> None:
        self._runtimes.pop(view.view_id, None)
        release = self._releases.pop(view.view_id, None)
        if release is not None:
            release()

    def close(self) -> None:
        """Drop every view (and the runtime leases they hold)."""
        self.leases.close()

    def revoke(self, doomed: Callable[[AppView], bool]) -> list[AppView]:
        """End every view for which ``doomed(view)`` holds (its bridge then answers the expired error, and
        its runtime lease is released); returns the ended views."""
        return self.leases.drop_where(doomed)

    # --- preparing (§4.1–§4.3) ------------------------------------------------------------------------

    async def create(
        self,
        runtime: SessionRuntime,
        *,
        server_name: str,
        tool_name: str,
        uri: str,
        tool_input: Any,
        tool_result: Any,
        allowed_app_tools: Iterable[str],
        tool_call_id: str | None = None,
        grant: str | None = None,
    ) -> AppView:
        """Read the view's resource, check it and store the view; raises ``AppViewError`` or the runtime's
        ``McpError`` for the resource read. ``grant``: the server definition the view is bound to
        (``domain.mcp_apps.definition_grant``), for :meth:`revoke`."""
        view_id = self._new_id()
        check_descriptor(view_id, server_name, tool_name, uri, tool_call_id)
        read = await runtime.read_resource(server_name, uri, failure_backoff="ignore")
        html, content = app_resource_html(read)
        size = view_byte_size(html, tool_input, tool_result)
        ui = resource_ui_meta(content)
        if ui is None:
            try:
                ui = listing_ui_meta(await runtime.list_resources(server_name, failure_backoff="ignore"), uri)
            except Exception as exc:  # the listing is optional metadata: a failure only warns
                self._warn(f'mcp-app: failed to read optional listing metadata for {uri} from "{server_name}": {exc}')
        now = self._clock.now_ms()
        view = AppView(
            view_id=view_id,
            server_name=server_name,
            tool_name=tool_name,
            ui_resource_uri=uri,
            html=html,
            tool_input=tool_input,
            tool_result=tool_result,
            allowed_app_tools=frozenset(allowed_app_tools),
            byte_size=size,
            expires_at_ms=now + self.leases.limits.ttl_ms,
            csp=normalize_csp((ui or {}).get("csp")),
            permissions=normalize_permissions((ui or {}).get("permissions")),
            tool_call_id=tool_call_id,
            grant=grant,
        )
        self.leases.add(view, now)
        self._runtimes[view_id] = runtime
        self._releases[view_id] = runtime.acquire_lease()
        return view

    async def prepare(self, runtime: SessionRuntime, **params: Any) -> AppView | None:
        """:meth:`create`, a failure only logged as ``mcp-app: failed to prepare <uri> from "<server>": …``."""
        try:
            return await self.create(runtime, **params)
        except Exception as exc:
            self._warn(f'mcp-app: failed to prepare {params["uri"]} from "{params["server_name"]}": {exc}')
            return None

    # --- the bridge (§5) ------------------------------------------------------------------------------

    def view(self, view_id: str) -> AppView:
        """The live view (``AppViewError(..., "expired")`` when it is gone)."""
        return self.leases.get(view_id, self._clock.now_ms())

    def describe(self, view_id: str) -> dict[str, Any]:
        """``mcp.app.view`` without the sandbox location (the listener adds it)."""
        view = self.view(view_id)
        out: dict[str, Any] = {"html": view.html}
        if view.csp is not None:
            out["csp"] = view.csp
        if view.permissions is not None:
            out["permissions"] = view.permissions
        out.update(
            {
                "title": view.title,
                "toolInput": view.tool_input,
                "toolResult": view.tool_result,
                "messageSupported": False,
                "updateModelContextSupported": False,
            }
        )
        return out

    async def _bridged(
        self,
        view_id: str,
        kind: Literal["request", "tool"],
        work: Callable[[SessionRuntime, AppView], Awaitable[Any]],
    ) -> Any:
        view = self.view(view_id)
        if view.read_only and kind == "tool":
            raise AppViewError("MCP App view is read-only", "refused")
        release = self.leases.acquire(view, kind, self._clock.now_ms())
        try:
            runtime = self._runtimes.get(view_id)
            if runtime is None:
                raise AppViewError("MCP App view expired or is not authorized for this session", "expired")
            result = await work(runtime, view)
        finally:
            release()
        self.view(view_id)  # authority re-checked after the upstream work: an expired view returns nothing
        return result

    async def call_tool(self, view_id: str, name: object, arguments: object) -> Any:
        if not isinstance(name, str) or not name:
            raise AppViewError("toolName is required", "invalid")
        view = self.view(view_id)
        if name not in view.allowed_app_tools:
            raise AppViewError(f'MCP tool "{name}" is not app-callable', "refused")
        args = arguments if isinstance(arguments, dict) else {}
        return await self._bridged(
            view_id, "tool", lambda runtime, view: runtime.call_tool(view.server_name, name, args)
        )

    async def list_tools(self, view_id: str, cursor: object = None) -> Any:
        async def work(runtime: SessionRuntime, view: AppView) -> Any:
            listed = await runtime.list_tools(view.server_name, _cursor(cursor))
            tools = listed.get("tools") if isinstance(listed, dict) else None
            kept = [tool for tool in tools or () if _app_listed(tool, view.allowed_app_tools)]
            return {**listed, "tools": kept}

        return await self._bridged(view_id, "request", work)

    async def list_resources(self, view_id: str, cursor: object = None) -> Any:
        async def work(runtime: SessionRuntime, view: AppView) -> Any:
            return {"resources": await runtime.list_resources(view.server_name)}

        return await self._bridged(view_id, "request", work)

    async def list_resource_templates(self, view_id: str, cursor: object = None) -> Any:
        return await self._bridged(
            view_id,
            "request",
            lambda runtime, view: runtime.list_resource_templates(view.server_name, _cursor(cursor)),
        )

    async def read_resource(self, view_id: str, uri: object) -> Any:
        if not isinstance(uri, str) or not uri.strip():
            raise AppViewError("uri is required", "invalid")
        return await self._bridged(
            view_id, "request", lambda runtime, view: runtime.read_resource(view.server_name, uri.strip())
        )

    def update_model_context(self, view_id: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Kept on the view, last update wins (the port has no model turn to give it to, §13.2.4)."""
        view = self.view(view_id)
        view.model_context = {key: params[key] for key in ("content", "structuredContent") if key in params}
        return {}


def _cursor(cursor: object) -> dict[str, Any] | None:
    return {"cursor": cursor} if isinstance(cursor, str) and cursor else None


def _app_listed(tool: object, allowed: frozenset[str]) -> bool:
    """Allowed for the view and, when the entry states a visibility, visible to apps (§3.5)."""
    if not isinstance(tool, dict) or tool.get("name") not in allowed:
        return False
    meta = tool.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    visibility = ui.get("visibility") if isinstance(ui, dict) else None
    return not isinstance(visibility, list) or "app" in visibility
