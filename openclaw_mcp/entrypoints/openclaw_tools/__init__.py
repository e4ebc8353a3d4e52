"""``openclaw-tools``: OpenClaw's built-in ``automations`` and ``openclaw`` tools as a stdio MCP server (spec
openclaw-tools.md).

* :mod:`entrypoints.openclaw_tools.cli` — the command, its composition root and lifecycle;
* :mod:`entrypoints.openclaw_tools.cli_reads` — the ``openclaw`` tool's CLI-equivalent read texts (D-OT4);
* :mod:`entrypoints.openclaw_tools.texts` — the loader of the package data ``data/reference_texts.json`` (the
  reference's tool descriptions, schemas and fixed texts).
"""
