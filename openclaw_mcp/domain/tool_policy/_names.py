"""Policy names and globs (spec plugin-tools.md §0.3, §7.4; upstream ``src/agents/tool-policy-shared.ts``,
``glob-pattern.ts``, ``tool-policy.ts`` ``expandShippedCoreToolPolicyNames``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from openclaw_mcp.domain.tool_policy._catalog import (
    SHIPPED_POLICY_FAMILIES,
    SHIPPED_POLICY_RENAMES,
    TOOL_GROUPS,
    TOOL_NAME_ALIASES,
)
from openclaw_mcp.jscompat.text import JS_LINE_TERMINATORS, js_trim

__all__ = [
    "Glob",
    "compile_globs",
    "expand_shipped_names",
    "expand_tool_groups",
    "matches_any",
    "may_match_glob_with_prefix",
    "normalize_tool_list",
    "normalize_tool_policy_name",
    "unique",
]

_JS_DOT_RUN = f"[^{JS_LINE_TERMINATORS}]*"  # a JavaScript ``.*`` (``.`` excludes line terminators)


def normalize_tool_policy_name(name: object) -> str:
    """The policy name: trimmed and lowercased (non-string or blank → ``""``), then the aliases
    ``bash`` → ``exec``, ``apply-patch`` → ``apply_patch``, ``cron`` → ``automations``."""
    if not isinstance(name, str):
        return ""
    folded = js_trim(name).lower()
    return TOOL_NAME_ALIASES.get(folded, folded)


def unique(values: Iterable[str]) -> list[str]:
    """First-seen order without repeats (``uniqueStrings``)."""
    return list(dict.fromkeys(values))


def normalize_tool_list(entries: Iterable[object] | None) -> list[str]:
    """Policy names of ``entries`` with the blank ones dropped (``normalizeToolList``)."""
    return [name for name in map(normalize_tool_policy_name, entries or ()) if name]


def expand_tool_groups(entries: Iterable[object] | None) -> list[str]:
    """Policy names with the static ``group:*`` entries replaced by their members, de-duplicated."""
    out: list[str] = []
    for name in normalize_tool_list(entries):
        out.extend(TOOL_GROUPS.get(name, (name,)))
    return unique(out)


def expand_shipped_names(entries: Iterable[object]) -> list[str]:
    """Policy names with the shipped renames (``update_plan`` → ``progress_card``) and implied families
    (``canvas`` → also ``show_widget``) applied, de-duplicated; blank entries stay as ``""``."""
    out: list[str] = []
    for entry in entries:
        name = normalize_tool_policy_name(entry)
        out.append(SHIPPED_POLICY_RENAMES.get(name, name))
        out.extend(SHIPPED_POLICY_FAMILIES.get(name, ()))
    return unique(out)


@dataclass(frozen=True, slots=True)
class Glob:
    """One compiled policy glob: ``all`` (``*`` alone), ``exact`` or an anchored ``regex`` (``*`` = any run)."""

    kind: Literal["all", "exact", "regex"]
    value: str = ""
    pattern: re.Pattern[str] | None = None

    def matches(self, name: str) -> bool:
        if self.kind == "all":
            return True
        if self.kind == "exact":
            return name == self.value
        assert self.pattern is not None
        return self.pattern.fullmatch(name) is not None


def _compile(raw: object) -> Glob:
    name = normalize_tool_policy_name(raw)
    if name == "*":
        return Glob("all")
    if "*" not in name:
        return Glob("exact", name)
    return Glob("regex", name, re.compile(_JS_DOT_RUN.join(re.escape(part) for part in name.split("*"))))


def compile_globs(entries: Iterable[object] | None) -> list[Glob]:
    """The globs of ``entries`` (each normalised to a policy name; blank entries dropped)."""
    return [glob for glob in map(_compile, entries or ()) if glob.kind != "exact" or glob.value]


def matches_any(name: str, globs: Iterable[Glob]) -> bool:
    """Whether the (already normalised) ``name`` matches one of ``globs``."""
    return any(glob.matches(name) for glob in globs)


def may_match_glob_with_prefix(pattern: str, prefix: str) -> bool:
    """Whether a glob may match a name starting with ``prefix``: its literal head before the first ``*``
    and ``prefix`` are compatible (``mayMatchGlobWithPrefix``); a pattern without ``*`` never does."""
    star = pattern.find("*")
    if star < 0:
        return False
    head = pattern[:star]
    return prefix.startswith(head) or head.startswith(prefix)
