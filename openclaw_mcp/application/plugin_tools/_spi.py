"""What a Python plugin sees (spec plugin-tools.md §10 D-PT6, D-PT7): the ``api`` its ``register(api)`` gets and
the context its tool factories get."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openclaw_mcp.application.tool_boundary import HookHandler, HookRegistry, normalize_registration_timeout_ms

__all__ = ["PluginApi", "ToolFactoryContext", "ToolRegistration"]


@dataclass(frozen=True, slots=True)
class ToolFactoryContext:
    """What a tool factory is called with: the OpenClaw ``config`` document, and — with a session context —
    the ``agent_id`` and ``session_key`` the server runs for. ``sender_is_owner`` is not known to a stdio server
    (``None``), as in 2026.9.6."""

    config: Mapping[str, Any]
    agent_id: str | None = None
    session_key: str | None = None
    sender_is_owner: bool | None = None


@dataclass(frozen=True, slots=True)
class ToolRegistration:
    """One ``register_tool`` call: a tool or a factory, the names it declares (``None``: not given), whether
    the registration is optional (its tools then need an explicit allow entry) and how long its factory may
    take (``timeout_ms``: positive, floored; ``None`` = the server's default)."""

    plugin_id: str
    tool_or_factory: object
    names: tuple[str, ...] | None
    optional: bool
    timeout_ms: int | None = None


@dataclass(slots=True)
class PluginApi:
    """The ``api`` of ``register(api)``: :meth:`register_tool` and :meth:`on`. ``id`` is the plugin's id and
    ``config`` the OpenClaw config document (read-only by convention)."""

    id: str
    config: Mapping[str, Any]
    hooks: HookRegistry
    registrations: list[ToolRegistration] = field(default_factory=list)

    def register_tool(
        self,
        tool_or_factory: object,
        *,
        names: Sequence[str] | None = None,
        optional: bool = False,
        timeout_ms: int | float | None = None,
    ) -> None:
        """Register a tool (an object or mapping with ``name``, ``description``, ``parameters`` and
        ``execute(tool_call_id, params, cancel)``) or a factory ``(ToolFactoryContext) -> tool | list | None``
        (sync or async; a sync one runs in a worker thread). ``names``: the tool names this registration
        provides (default: the tool's name, or the plugin's declared tools for a factory). ``timeout_ms``: how
        long the factory may take before it is skipped (a positive number of milliseconds, floored; anything
        else means the server's default, 5 000 ms)."""
        if names is not None and (isinstance(names, str) or not all(isinstance(name, str) for name in names)):
            raise TypeError("register_tool names must be a list of strings")
        self.registrations.append(
            ToolRegistration(
                self.id,
                tool_or_factory,
                None if names is None else tuple(names),
                bool(optional),
                normalize_registration_timeout_ms(timeout_ms),
            )
        )

    def on(
        self,
        hook_name: str,
        handler: HookHandler,
        *,
        priority: int | float = 0,
        matcher: Sequence[str] | None = None,
        timeout_ms: int | float | None = None,
    ) -> None:
        """Register a hook handler; ``before_tool_call`` handlers are ``(event, ctx) -> dict | None`` (sync or
        async; a sync handler runs in a worker thread). Past ``timeout_ms`` (default 15 000) the call fails closed
        and the handler's later answer is ignored. An invalid ``matcher`` raises ``HookRegistrationError`` with the
        reference's text."""
        self.hooks.on(
            hook_name,
            handler,
            plugin_id=self.id,
            priority=priority,
            matcher=list(matcher) if isinstance(matcher, tuple) else matcher,
            timeout_ms=timeout_ms,
        )
