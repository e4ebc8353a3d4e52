"""openclaw-mcp: a Python implementation of OpenClaw's MCP subsystem.

The four layers live in this one namespace: :mod:`openclaw_mcp.domain` (pure rules), :mod:`openclaw_mcp.application`
(use cases and ports), :mod:`openclaw_mcp.adapters` (ports implemented over libraries) and
:mod:`openclaw_mcp.entrypoints` (CLI, servers, the composition root); :mod:`openclaw_mcp.jscompat` holds the
JavaScript semantics the reference relies on. Nothing is imported here, so ``import openclaw_mcp`` costs nothing.
"""
