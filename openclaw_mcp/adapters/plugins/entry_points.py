"""Plugins advertised by installed Python distributions in the entry-point group ``openclaw_mcp.plugins``
(spec plugin-tools.md §10 D-PT5), read with :mod:`importlib.metadata`.

    [project.entry-points."openclaw_mcp.plugins"]
    hookplug = "hookplug:plugin"

Entry points are loaded sorted by name (the first of several with the same name wins, as ``sys.path``
orders the distributions); one that fails to import is logged once and skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import metadata
from typing import TYPE_CHECKING, Final

from openclaw_mcp.application.ports.plugins import LoadedPlugin, PluginSourceError, plugin_load_failure_text
from openclaw_mcp.domain.catalog_text import format_error_message

__all__ = ["ENTRY_POINT_GROUP", "EntryPointPlugins"]

ENTRY_POINT_GROUP: Final = "openclaw_mcp.plugins"


class EntryPointPlugins:
    """The ``PluginSource`` of the installed distributions' ``group`` entry points."""

    def __init__(self, group: str = ENTRY_POINT_GROUP) -> None:
        self._group = group

    def load(self, *, log: Callable[[str], None]) -> Sequence[LoadedPlugin]:
        try:
            found = metadata.entry_points(group=self._group)
        except Exception as exc:  # broken distribution metadata: the port's one-line error
            raise PluginSourceError(f"cannot read the {self._group} entry points: {format_error_message(exc)}") from exc
        chosen: dict[str, metadata.EntryPoint] = {}
        for entry in found:
            chosen.setdefault(entry.name, entry)
        loaded: list[LoadedPlugin] = []
        for name in sorted(chosen):
            try:
                value = chosen[name].load()
            except Exception as exc:  # a plugin's own import failure never takes the source down
                log(plugin_load_failure_text(name, format_error_message(exc)))
                continue
            loaded.append(LoadedPlugin(name, value))
        return loaded


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.plugins import PluginSource

    _: PluginSource = EntryPointPlugins()
