"""The ``tools/list`` entries of ``openclaw-tools`` (spec openclaw-tools.md §4, D-OT3): the reference's
descriptions and input schemas, byte for byte, from the packaged :class:`~.reference.ReferenceTexts`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openclaw_mcp.domain.openclaw_tools.reference import ReferenceTexts, thaw

__all__ = ["automations_entry", "system_agent_entry"]


def _triggers_disabled(config: Mapping[str, Any]) -> bool:
    cron = config.get("cron")
    triggers = cron.get("triggers") if isinstance(cron, Mapping) else None
    return isinstance(triggers, Mapping) and triggers.get("enabled") is False


def automations_entry(texts: ReferenceTexts, config: Mapping[str, Any]) -> dict[str, Any]:
    """``automations``: case B (no event watchers, ``stream``/``script`` dropped) when ``cron.triggers.enabled``
    is ``false``, else case A. A fresh copy."""
    entry: dict[str, Any] = thaw(texts.tools["B" if _triggers_disabled(config) else "A"])
    return entry


def system_agent_entry(texts: ReferenceTexts) -> dict[str, Any]:
    """``openclaw`` (case C). A fresh copy."""
    entry: dict[str, Any] = thaw(texts.tools["C"])
    return entry
