"""The pure core of ``openclaw mcp serve`` — the OpenClaw Gateway ↔ MCP channel bridge (spec serve-bridge).

No I/O, no async, no clock: times are integer epoch milliseconds passed in as ``now_ms``.

* :mod:`domain.bridge.conversations` — the §0.4 normalisation functions, conversation descriptors (§5.0.2),
  tool-argument normalisation and Gateway request shapes (§5.1–§5.9), message lookup and attachment
  extraction (§9);
* :mod:`domain.bridge.arguments` — the tools' declared arguments: draft-07 schema and zod 4 validation (§4.4);
* :mod:`domain.bridge.events` — queue events, cursors, gaps, poll and the waiter bookkeeping (§6);
* :mod:`domain.bridge.approvals` — pending approvals and Claude permissions with their TTLs and sweeper (§7);
* :mod:`domain.bridge.channel` — Claude channel mode: notifications, inbound permission requests, the
  permission-reply grammar and owner gate, and :class:`~domain.bridge.channel.BridgeState`, the aggregate
  that routes Gateway events into the queue (§6.3, §7.2, §8);
* :mod:`domain.bridge.texts` — tool result texts and envelopes (§5.0.1) and the bridge's stderr lines (§11).
"""

from __future__ import annotations

__all__: list[str] = []
