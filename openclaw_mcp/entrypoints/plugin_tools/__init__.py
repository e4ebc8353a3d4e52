"""``openclaw-plugin-tools``: the tools of Python plugins as a stdio MCP server (spec plugin-tools.md).

* :mod:`entrypoints.plugin_tools.cli` — the command: launch context, config, plugins, lifecycle, exit status;
* :mod:`entrypoints.plugin_tools.server` — the MCP methods over :class:`entrypoints.rpc_session.RpcSession`.
"""

from __future__ import annotations

__all__: list[str] = []
