"""The ``openclaw mcp serve`` bridge use cases (spec serve-bridge): readiness, the nine tools, the event
queue's waiters, approvals, the Claude channel notifications, and the Gateway target resolution.

* :mod:`application.bridge.service` — :class:`~application.bridge.service.ChannelBridge`;
* :mod:`application.bridge.target` — Gateway URL and credential resolution (§3.4, §3.5);
* :mod:`application.ports.bridge` — :class:`~application.ports.bridge.McpNotifier`;
* :mod:`application.bridge.errors` — the bridge's error types.
"""

from __future__ import annotations

__all__: list[str] = []
