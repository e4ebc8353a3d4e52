"""Tool policies from config sections (spec plugin-tools.md §7.2, §7.3; upstream
``src/agents/sandbox-tool-policy.ts`` ``pickSandboxToolPolicy``, ``tool-policy.ts`` ``mergeAlsoAllowPolicy``,
``collectExplicitAllowlist`` / ``collectExplicitDenylist``, ``tool-catalog.ts`` ``resolveCoreToolProfilePolicy``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.domain.tool_policy._catalog import DEFAULT_PLUGIN_TOOLS_ENTRY, TOOL_PROFILES
from openclaw_mcp.domain.tool_policy._names import unique
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "ToolPolicy",
    "collect_explicit_allow",
    "collect_explicit_deny",
    "get",
    "merge_also_allow",
    "pick_policy",
    "profile_policy",
    "string_list",
]


@dataclass(frozen=True, slots=True)
class ToolPolicy:
    """An allow/deny policy; ``None`` = the list is absent (an absent or empty ``allow`` allows everything that
    is not denied). ``implicit_allow_all`` marks an ``allow`` made of ``*`` plus ``alsoAllow`` entries when the
    section had no ``allow`` (§7.3): plugin selection then keeps the default plugin tools."""

    allow: tuple[str, ...] | None = None
    deny: tuple[str, ...] | None = None
    implicit_allow_all: bool = False


def string_list(value: object) -> list[str] | None:
    """A config list (JSON array) as its string entries; ``None`` when ``value`` is not a list."""
    if not isinstance(value, list | tuple):
        return None
    return [entry for entry in value if isinstance(entry, str)]


def _union_allow(base: list[str] | None, extra: list[str] | None) -> list[str] | None:
    if not extra:
        return base
    if not base:
        return unique(["*", *extra])
    return unique([*base, *extra])


def pick_policy(section: object) -> ToolPolicy | None:
    """The policy of a tools section (§7.3): ``allow`` ∪ ``alsoAllow`` when ``allow`` is a list (an empty
    ``allow`` plus ``alsoAllow`` becomes ``["*", …alsoAllow]``); ``["*", …alsoAllow]`` marked implicit when only
    a non-empty ``alsoAllow`` exists (unless it names ``*`` itself); ``deny`` when a list; neither → ``None``.
    Non-string list entries are ignored."""
    if not isinstance(section, Mapping):
        return None
    allow_list = string_list(section.get("allow"))
    also_allow = string_list(section.get("alsoAllow"))
    deny = string_list(section.get("deny"))
    implicit = allow_list is None and bool(also_allow) and not any(js_trim(entry) == "*" for entry in also_allow or ())
    if allow_list is not None:
        allow = _union_allow(allow_list, also_allow)
    elif also_allow:
        allow = _union_allow(None, also_allow)
    else:
        allow = None
    if allow is None and deny is None:
        return None
    return ToolPolicy(
        allow=None if allow is None else tuple(allow),
        deny=None if deny is None else tuple(deny),
        implicit_allow_all=implicit,
    )


def merge_also_allow(policy: ToolPolicy | None, also_allow: object) -> ToolPolicy | None:
    """``alsoAllow`` entries appended to a policy's ``allow`` (only when it has one and they are a non-empty
    list; the implicit mark is not carried over, as in the reference)."""
    extra = string_list(also_allow)
    if policy is None or policy.allow is None or not extra:
        return policy
    return ToolPolicy(allow=tuple(unique([*policy.allow, *extra])), deny=policy.deny)


def profile_policy(profile: object, also_allow: object = None) -> ToolPolicy | None:
    """The built-in profile's policy (§7.2; the name must match exactly; unknown or unset → ``None``) with
    ``alsoAllow`` merged into its ``allow`` (§3.1)."""
    allow = TOOL_PROFILES.get(profile) if isinstance(profile, str) else None
    base = None if allow is None else ToolPolicy(allow=allow)
    return merge_also_allow(base, also_allow)


def collect_explicit_allow(policies: Iterable[ToolPolicy | None]) -> tuple[str, ...]:
    """Every ``allow`` entry of the policies, trimmed, non-blank, de-duplicated; an implicit allow-all gives
    ``__openclaw_default_plugin_tools__`` instead of its ``*``."""
    entries: list[str] = []
    for policy in policies:
        if policy is None or policy.allow is None:
            continue
        for value in policy.allow:
            trimmed = js_trim(value)
            if trimmed == "*" and policy.implicit_allow_all:
                continue
            if trimmed:
                entries.append(trimmed)
        if policy.implicit_allow_all:
            entries.append(DEFAULT_PLUGIN_TOOLS_ENTRY)
    return tuple(unique(entries))


def collect_explicit_deny(policies: Iterable[ToolPolicy | None]) -> tuple[str, ...]:
    """Every ``deny`` entry of the policies, trimmed and non-blank, in order (repeats kept, as the reference)."""
    entries: list[str] = []
    for policy in policies:
        if policy is None or policy.deny is None:
            continue
        entries.extend(trimmed for trimmed in map(js_trim, policy.deny) if trimmed)
    return tuple(entries)


def get(section: object, key: str) -> Any:
    """``section?.[key]`` for a config section that may be absent or not an object."""
    return section.get(key) if isinstance(section, Mapping) else None
