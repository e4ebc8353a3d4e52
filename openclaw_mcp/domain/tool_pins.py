"""Tool pins (issue 35): the fingerprint of what the model sees of a tool, the classification of a listing
against a server's pins, the reviewed diff, and the warning lines of held tools.

A tool's **model view** is the subset of the tool *as the server listed it* (raw MCP name, before the
``<server>__`` prefix) that reaches the model or its host: ``name``, ``title``, ``description``,
``inputSchema``, ``outputSchema``, ``annotations`` and the MCP Apps ``_meta.ui`` entry (plus the legacy
``_meta["ui/resourceUri"]`` key, which links a view the same way). Keys absent from the listing are absent
from the view. Its **fingerprint** is the SHA-256 hex digest of the view's canonical JSON (sorted keys,
separators ``,``/``:``, non-ASCII kept, UTF-8).

Everything here is pure: the pin store, the clock and the listing are the application's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from openclaw_mcp.domain.redaction import redact_sensitive_text, sanitize_for_log

__all__ = [
    "MODEL_VIEW_KEYS",
    "HeldReason",
    "PinReport",
    "PinVerdict",
    "canonical_json",
    "classify",
    "held_line",
    "model_view",
    "removed_line",
    "tool_diff",
    "tool_fingerprint",
    "tool_name",
    "unreadable_line",
]

MODEL_VIEW_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
"""The top-level keys of a listed tool that belong to its model view (``_meta.ui`` comes on top)."""

HeldReason = Literal["changed", "new", "unreadable"]
"""Why a tool is held: its fingerprint differs from the pinned one, it was not pinned, or the pin store could
not be read (fail closed)."""


def model_view(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The model-visible subset of a listed tool (see the module docstring)."""
    view = {key: tool[key] for key in MODEL_VIEW_KEYS if key in tool}
    meta = tool.get("_meta")
    if isinstance(meta, Mapping):
        ui = {key: meta[key] for key in ("ui", "ui/resourceUri") if key in meta}
        if ui:
            view["_meta"] = ui
    return view


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, non-ASCII kept (``ValueError`` for NaN/Infinity, which no JSON listing holds)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def tool_fingerprint(tool: Mapping[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of the tool's model view."""
    return hashlib.sha256(canonical_json(model_view(tool)).encode("utf-8")).hexdigest()


def tool_name(tool: Mapping[str, Any]) -> str:
    """The tool's name as listed (``""`` when it is not a string)."""
    name = tool.get("name")
    return name if isinstance(name, str) else ""


@dataclass(frozen=True, slots=True)
class PinVerdict:
    """A listing against a server's pins. Each tuple is in listing order (``removed``: pin order), names as
    listed; a name listed twice is ``changed`` unless every occurrence matches its pin. ``held`` (changed and
    new, in listing order) must not reach the catalog."""

    kept: tuple[str, ...]
    changed: tuple[str, ...]
    new: tuple[str, ...]
    removed: tuple[str, ...]
    held: tuple[str, ...]

    def reason(self, name: str) -> HeldReason | None:
        """``changed``/``new`` for a held tool, else ``None``."""
        if name in self.changed:
            return "changed"
        if name in self.new:
            return "new"
        return None


def classify(pinned: Mapping[str, str], listed: Sequence[Mapping[str, Any]]) -> PinVerdict:
    """Classify ``listed`` (tools as the server listed them) against ``pinned`` (tool name → fingerprint)."""
    order: list[str] = []
    prints: dict[str, set[str]] = {}
    for tool in listed:
        name = tool_name(tool)
        if name not in prints:
            order.append(name)
            prints[name] = set()
        prints[name].add(tool_fingerprint(tool))
    kept: list[str] = []
    changed: list[str] = []
    new: list[str] = []
    held: list[str] = []
    for name in order:
        if name not in pinned:
            new.append(name)
            held.append(name)
        elif prints[name] == {pinned[name]}:
            kept.append(name)
        else:
            changed.append(name)
            held.append(name)
    removed = tuple(name for name in pinned if name not in prints)
    return PinVerdict(tuple(kept), tuple(changed), tuple(new), removed, tuple(held))


def _schema_text(view: Mapping[str, Any]) -> list[str]:
    rest = {key: value for key, value in view.items() if key != "description"}
    return json.dumps(rest, sort_keys=True, indent=2, ensure_ascii=False).splitlines()


def _description_text(view: Mapping[str, Any]) -> list[str]:
    description = view.get("description")
    if description is None:
        return []
    text = description if isinstance(description, str) else json.dumps(description, ensure_ascii=False)
    return text.splitlines() or [""]


def _unified(before: list[str], after: list[str], label: str) -> list[str]:
    import difflib  # deferred: only reviews diff

    return list(difflib.unified_diff(before, after, f"pinned/{label}", f"listed/{label}", lineterm=""))


def tool_diff(server: str, name: str, pinned: Mapping[str, Any] | None, listed: Mapping[str, Any] | None) -> str:
    """A unified diff per part of the tool's model view — its description text, then the rest (the schemas,
    title, annotations, ``_meta.ui``) pretty-printed with sorted keys — pinned → listed. ``None`` on one side:
    a new or removed tool. Every line is redacted (secrets in descriptions or schema defaults are masked) and
    stripped of control characters. Empty when nothing differs."""
    before = model_view(pinned) if pinned is not None else {}
    after = model_view(listed) if listed is not None else {}
    label = f"{server}/{name}"
    lines = _unified(_description_text(before), _description_text(after), f"{label}/description")
    schema_before = _schema_text(before) if pinned is not None else []
    schema_after = _schema_text(after) if listed is not None else []
    lines += _unified(schema_before, schema_after, f"{label}/schema")
    return "\n".join(_safe(line) for line in lines)


def _safe(line: str) -> str:
    return sanitize_for_log(redact_sensitive_text(line))


def _quoted(text: str) -> str:
    return sanitize_for_log(text)


def held_line(server: str, tool: str, reason: HeldReason) -> str:
    """The warning of one held tool: ``server "<s>" tool "<t>" held: <changed|new> since pinned (openclaw mcp
    review <s>)``."""
    return (
        f'server "{_quoted(server)}" tool "{_quoted(tool)}" held: {reason} since pinned '
        f"(openclaw mcp review {_quoted(server)})"
    )


def removed_line(server: str, tool: str) -> str:
    """``server "<s>" tool "<t>" removed since pinned``."""
    return f'server "{_quoted(server)}" tool "{_quoted(tool)}" removed since pinned'


def unreadable_line(reason: str) -> str:
    """The one fail-closed line: ``pin store unreadable: <reason>; tools of pinned servers are held``."""
    return f"pin store unreadable: {_safe(reason)}; tools of pinned servers are held"


@dataclass(frozen=True, slots=True)
class PinReport:
    """What the pins of one pinned server did to a listing: the held tools with their reason (listing order)
    and the pinned tools the server no longer lists."""

    held: tuple[tuple[str, HeldReason], ...] = ()
    removed: tuple[str, ...] = ()

    @classmethod
    def of(cls, verdict: PinVerdict) -> PinReport:
        held = tuple((name, reason) for name in verdict.held if (reason := verdict.reason(name)) is not None)
        return cls(held, verdict.removed)

    def document(self) -> dict[str, Any]:
        """The ``pins`` entry of ``probe --json``: ``{"held": [{"tool", "reason"}…], "removed": [names…]}``."""
        return {"held": [{"tool": name, "reason": reason} for name, reason in self.held], "removed": list(self.removed)}
