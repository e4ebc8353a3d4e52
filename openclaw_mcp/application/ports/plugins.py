"""The plugin-source port: where the Python plugins of ``openclaw-plugin-tools`` come from (spec
plugin-tools.md §10 D-PT5).

A source yields the plugin objects it can load, each an object (or mapping) with ``id`` (the plugin id),
``tools`` (the declared tool names), optional ``optional_tools`` and ``register(api)``; the application checks
that shape, decides enablement and runs ``register``.

Error contract of :meth:`PluginSource.load`:

- a plugin that cannot be loaded (its module fails to import, its entry point names nothing) is **not** an
  error: the source calls ``log`` once with ``plugin failed to load (<name>): <message>`` and leaves it out;
- :class:`PluginSourceError` — the source itself is unusable (e.g. the distribution metadata cannot be read);
  the message is one line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from openclaw_mcp.application.errors import ApplicationError

__all__ = ["LoadedPlugin", "PluginSource", "PluginSourceError", "plugin_load_failure_text"]


class PluginSourceError(ApplicationError):
    """The plugin source cannot be read at all."""


@dataclass(frozen=True, slots=True)
class LoadedPlugin:
    """One loaded plugin: ``name`` (where it came from, e.g. the entry point's name) and the plugin ``value``."""

    name: str
    value: object


def plugin_load_failure_text(name: str, message: str) -> str:
    """The one log line of a plugin that could not be loaded."""
    return f"plugin failed to load ({name}): {message}"


class PluginSource(Protocol):
    def load(self, *, log: Callable[[str], None]) -> Sequence[LoadedPlugin]:
        """Every loadable plugin, in a stable order (by name); see the module's error contract."""
        ...
