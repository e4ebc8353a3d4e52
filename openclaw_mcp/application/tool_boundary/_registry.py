"""The hook registry: the handlers plugins register, in the order the boundary runs them (plugin-tools.md
§6.5, §10 D-PT7)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.application.tool_boundary._errors import HookRegistrationError
from openclaw_mcp.application.tool_boundary._rules import (
    MatcherError,
    matcher_covers,
    normalize_matcher,
    normalize_registration_timeout_ms,
)

__all__ = ["TOOL_HOOKS", "HookHandler", "HookRegistration", "HookRegistry"]

HookHandler = Callable[[dict[str, Any], dict[str, Any]], object]
"""``(event, ctx) -> dict | None``, or an awaitable of it (sync and async callables both work)."""

TOOL_HOOKS = frozenset({"before_tool_call", "after_tool_call"})
"""The hooks whose registrations take a tool matcher; other hooks ignore it."""


@dataclass(frozen=True, slots=True)
class HookRegistration:
    """One registered handler. ``matcher``: the normalized tool names it covers (``None`` = every tool);
    ``timeout_ms``: the registration's positive timeout, floored (``None`` = the hook's default)."""

    hook_name: str
    handler: HookHandler
    plugin_id: str | None = None
    priority: int | float = 0
    matcher: tuple[str, ...] | None = None
    timeout_ms: int | None = None

    def covers(self, tool_policy_name: str) -> bool:
        return matcher_covers(self.matcher, tool_policy_name)


def _sort_priority(priority: int | float) -> float:
    if isinstance(priority, bool) or not isinstance(priority, int | float) or math.isnan(priority):
        return 0.0
    return float(priority)


class HookRegistry:
    """Handlers by hook name, in registration order. Only ``before_tool_call`` is run by this package;
    registrations of other hooks are kept (and ignored)."""

    def __init__(self) -> None:
        self._registrations: list[HookRegistration] = []

    def on(
        self,
        hook_name: str,
        handler: HookHandler,
        *,
        plugin_id: str | None = None,
        priority: int | float = 0,
        matcher: object = None,
        timeout_ms: object = None,
    ) -> None:
        """Register ``handler`` for ``hook_name``.

        ``priority``: higher runs first, equal priorities keep registration order. ``matcher`` (tool hooks
        only): a non-empty list of canonical tool ids, compared lowercased; ``None`` = every tool. Raises
        :class:`HookRegistrationError` for an invalid matcher. ``timeout_ms``: a positive number of
        milliseconds (floored); anything else means the default (15 000 ms for ``before_tool_call``)."""
        try:
            normalized = normalize_matcher(matcher) if hook_name in TOOL_HOOKS else None
        except MatcherError as exc:
            raise HookRegistrationError(str(exc)) from None
        self._registrations.append(
            HookRegistration(
                hook_name=hook_name,
                handler=handler,
                plugin_id=plugin_id,
                priority=priority,
                matcher=normalized,
                timeout_ms=normalize_registration_timeout_ms(timeout_ms),
            )
        )

    def extend(self, other: HookRegistry) -> None:
        """Append every registration of ``other`` (in its order) after this registry's."""
        self._registrations.extend(other._registrations)

    def handlers(self, hook_name: str, tool_policy_name: str | None = None) -> list[HookRegistration]:
        """The registrations of ``hook_name`` whose matcher covers ``tool_policy_name`` (all of them when it
        is ``None``), by priority descending, equal priorities in registration order."""
        selected = [
            registration
            for registration in self._registrations
            if registration.hook_name == hook_name
            and (tool_policy_name is None or registration.covers(tool_policy_name))
        ]
        return sorted(selected, key=lambda registration: -_sort_priority(registration.priority))

    def has_hooks(self, hook_name: str) -> bool:
        """Whether anything is registered for ``hook_name`` (whatever its matcher)."""
        return any(registration.hook_name == hook_name for registration in self._registrations)
