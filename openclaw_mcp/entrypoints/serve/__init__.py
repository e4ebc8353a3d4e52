"""``openclaw mcp serve``: the stdio MCP server bridging an OpenClaw Gateway (spec serve-bridge).

* :mod:`entrypoints.serve.cli` — the command (options, config, composition, lifecycle, exit status);
* :mod:`entrypoints.serve.transport` — stdin/stdout: reading, back-pressure, line framing, whole-message writes;
* :mod:`entrypoints.serve.dispatcher` — JSON-RPC routing: the MCP methods, tool calls, notifications;
* :mod:`entrypoints.serve.tools` — the ``tools/list`` result and the SDK's ``tools/call`` error texts (the tools
  are the table of :mod:`application.bridge.service`);
* :mod:`entrypoints.serve.jsonrpc` — message parsing and encoding;
* :mod:`entrypoints.serve.secrets` — ``--token-file`` / ``--password-file``;
* :mod:`entrypoints.serve.errors` — the start-up failure line.
"""

from __future__ import annotations

__all__: list[str] = []
