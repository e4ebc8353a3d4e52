"""Validation of the tool-policy fields of openclaw.json, with the reference's messages and order.

The reference (2026.9.6) validates the whole config with one zod schema (upstream:
``src/config/zod-schema.agent-runtime.ts`` ``ToolsSchema``, ``AgentToolsSchema``, ``ToolPolicySchema``;
``src/config/zod-schema.agents.ts`` ``AgentsSchema``). The port validates, of the ``tools`` and ``agents``
sections, only what the tool policy reads; everything else in them is opaque, as the other top-level
sections are (cli-registry D8):

* ``tools`` and ``agents.entries.<id>.tools`` (a *tool scope*) must be objects; their ``profile`` is one of
  :data:`TOOL_PROFILES` (a union of literals: ``Invalid input (allowed: "minimal", …)``), their ``allow``,
  ``alsoAllow`` and ``deny`` are arrays of strings (any string, ``""`` included); a scope that sets both a
  non-empty ``allow`` and a non-empty ``alsoAllow`` gets the scope's conflict issue (on the scope's path),
  after its fields, unless one of its validated fields had an aborting issue;
* a scope's ``sandbox`` is a strict object whose only key is ``tools``, a strict object of ``allow``,
  ``alsoAllow`` and ``deny`` with its own conflict rule (``tools policy cannot …``);
* ``agents`` must be an object and ``agents.entries`` a record; an entry key must match
  ``/^[a-z0-9_][a-z0-9_-]{0,63}$/i`` (``Invalid key in record``, the entry is then not validated); an entry
  must be an object without a ``prototype`` or ``constructor`` key (``agent entries must not contain blocked
  object keys`` on the first such key, the entry is then not validated).

Unknown keys of a tool scope and of ``agents`` are not reported (the reference's strict objects would), and
an aborting issue of an opaque field does not suppress the scope's conflict issue here (it does in the
reference): such a config is invalid in both, with different issue lines. ``agents.defaults.tools`` is no
key of the reference's schema and legacy ``agents.list`` is migrated to ``agents.entries`` before the
reference validates it; both stay opaque.

The order of the issues follows zod's (see :mod:`domain.validation`): an object's known fields in schema
order, then one ``Unrecognized key(s)`` issue for a strict object, then its refinement; record entries in
JavaScript property order. Type mismatches, the profile union and the two entry-key rules abort (later
refinements of the enclosing objects are skipped); unknown keys and the conflict issues do not.
"""

from __future__ import annotations

from typing import Any, Final

from openclaw_mcp.domain.config_issues import Collector, Path, expected, unrecognized
from openclaw_mcp.jscompat.jsjson import js_ordered_keys

__all__ = [
    "TOOL_PROFILES",
    "check_agents",
    "check_tools",
]

TOOL_PROFILES: Final = ("minimal", "coding", "messaging", "full")

_PROFILE_MESSAGE: Final = 'Invalid input (allowed: "minimal", "coding", "messaging", "full")'
_CONFLICT_ADVICE: Final = "(merge alsoAllow into allow, or remove allow and use profile + alsoAllow)"
_TOOLS_CONFLICT: Final = f"tools cannot set both allow and alsoAllow in the same scope {_CONFLICT_ADVICE}"
_AGENT_CONFLICT: Final = f"agent tools cannot set both allow and alsoAllow in the same scope {_CONFLICT_ADVICE}"
_POLICY_CONFLICT: Final = f"tools policy cannot set both allow and alsoAllow in the same scope {_CONFLICT_ADVICE}"
_INVALID_KEY_MESSAGE: Final = "Invalid key in record"
_BLOCKED_KEY_MESSAGE: Final = "agent entries must not contain blocked object keys"
_BLOCKED_KEYS: Final = ("prototype", "constructor")  # ``__proto__`` never reaches the schema
_LISTS: Final = ("allow", "alsoAllow", "deny")
_SANDBOX_KEYS: Final = ("tools",)
_ID_FIRST: Final = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
_ID_REST: Final = _ID_FIRST + "-"
_ID_MAX: Final = 64


def _is_agent_id(key: str) -> bool:
    """``/^[a-z0-9_][a-z0-9_-]{0,63}$/i`` (ASCII letters only, as a JavaScript regex without ``u``)."""
    return 0 < len(key) <= _ID_MAX and key[0] in _ID_FIRST and all(char in _ID_REST for char in key[1:])


def _string_list(value: object, path: Path, out: Collector) -> None:
    """``array(string())``."""
    if not isinstance(value, list):
        out.add(path, expected("array", value), aborts=True)
        return
    for index, item in enumerate(value):
        if not isinstance(item, str):
            out.add((*path, index), expected("string", item), aborts=True)


def _lists(value: dict[str, Any], path: Path, out: Collector) -> None:
    for key in _LISTS:
        if key in value:
            _string_list(value[key], (*path, key), out)


def _conflicts(value: dict[str, Any]) -> bool:
    """Both ``allow`` and ``alsoAllow`` set and non-empty (only asked once both passed as arrays)."""
    allow = value.get("allow")
    also_allow = value.get("alsoAllow")
    return isinstance(allow, list) and bool(allow) and isinstance(also_allow, list) and bool(also_allow)


def _unknown_keys(value: dict[str, Any], known: tuple[str, ...], path: Path, out: Collector) -> None:
    unknown = [key for key in js_ordered_keys(value) if key not in known]
    if unknown:
        out.add(path, unrecognized(unknown), aborts=False)


def _sandbox_policy(value: object, path: Path, out: Collector) -> None:
    """``ToolPolicySchema``: strict ``{allow, alsoAllow, deny}`` and its conflict rule."""
    if not isinstance(value, dict):
        out.add(path, expected("object", value), aborts=True)
        return
    mark = out.mark()
    _lists(value, path, out)
    _unknown_keys(value, _LISTS, path, out)
    if not out.aborted_since(mark) and _conflicts(value):
        out.add(path, _POLICY_CONFLICT, aborts=False)


def _sandbox(value: object, path: Path, out: Collector) -> None:
    """A scope's ``sandbox``: strict ``{tools}``."""
    if not isinstance(value, dict):
        out.add(path, expected("object", value), aborts=True)
        return
    if "tools" in value:
        _sandbox_policy(value["tools"], (*path, "tools"), out)
    _unknown_keys(value, _SANDBOX_KEYS, path, out)


def _tool_scope(value: object, path: Path, out: Collector, conflict: str) -> None:
    """``ToolsSchema`` / ``AgentToolsSchema`` as far as the policy reads them: ``profile``, the three lists,
    ``sandbox`` (their schema order), then the scope's conflict rule."""
    if not isinstance(value, dict):
        out.add(path, expected("object", value), aborts=True)
        return
    mark = out.mark()
    if "profile" in value:
        profile = value["profile"]
        if not (isinstance(profile, str) and profile in TOOL_PROFILES):
            out.add((*path, "profile"), _PROFILE_MESSAGE, aborts=True, allowed=TOOL_PROFILES)
    _lists(value, path, out)
    if "sandbox" in value:
        _sandbox(value["sandbox"], (*path, "sandbox"), out)
    if not out.aborted_since(mark) and _conflicts(value):
        out.add(path, conflict, aborts=False)


def _agent_entry(value: object, path: Path, out: Collector) -> None:
    if not isinstance(value, dict):
        out.add(path, expected("object", value), aborts=True)
        return
    blocked = next((key for key in js_ordered_keys(value) if key in _BLOCKED_KEYS), None)
    if blocked is not None:
        out.add((*path, blocked), _BLOCKED_KEY_MESSAGE, aborts=True)
        return
    if "tools" in value:
        _tool_scope(value["tools"], (*path, "tools"), out, _AGENT_CONFLICT)


def check_tools(value: object, path: Path, out: Collector) -> None:
    """Add the issues of the top-level ``tools`` section (at ``path``) to ``out``."""
    _tool_scope(value, path, out, _TOOLS_CONFLICT)


def check_agents(value: object, path: Path, out: Collector) -> None:
    """Add the issues of the ``agents`` section (at ``path``) to ``out``: the tool scopes of its entries."""
    if not isinstance(value, dict):
        out.add(path, expected("object", value), aborts=True)
        return
    if "entries" not in value:
        return
    entries = value["entries"]
    entries_path = (*path, "entries")
    if not isinstance(entries, dict):
        out.add(entries_path, expected("record", entries), aborts=True)
        return
    for key in js_ordered_keys(entries):
        if _is_agent_id(key):
            _agent_entry(entries[key], (*entries_path, key), out)
        else:
            out.add((*entries_path, key), _INVALID_KEY_MESSAGE, aborts=True)
