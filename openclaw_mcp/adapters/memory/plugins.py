"""An in-memory ``PluginSource``: plugin objects given directly, or factories that may fail like an import."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from openclaw_mcp.application.ports.plugins import LoadedPlugin, plugin_load_failure_text
from openclaw_mcp.domain.catalog_text import format_error_message

__all__ = ["InMemoryPlugins"]


class InMemoryPlugins:
    """``plugins``: name → the plugin object, or a zero-argument callable producing it (its exception is a
    load failure: logged once, the plugin left out)."""

    def __init__(
        self, plugins: Mapping[str, object | Callable[[], object]] | None = None, *, lazy: bool = False
    ) -> None:
        self._plugins = dict(plugins or {})
        self._lazy = lazy

    def load(self, *, log: Callable[[str], None]) -> Sequence[LoadedPlugin]:
        loaded: list[LoadedPlugin] = []
        for name in sorted(self._plugins):
            value = self._plugins[name]
            if self._lazy and callable(value):
                try:
                    value = value()
                except Exception as exc:  # like a failing import
                    log(plugin_load_failure_text(name, format_error_message(exc)))
                    continue
            loaded.append(LoadedPlugin(name, value))
        return loaded


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.plugins import PluginSource

    _: PluginSource = InMemoryPlugins()
