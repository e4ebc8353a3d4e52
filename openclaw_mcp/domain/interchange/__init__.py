"""Moving ``mcp.servers`` definitions to and from other MCP clients' config files (``openclaw mcp export`` /
``openclaw mcp import``; beyond the reference, which has no such commands).

Pure mapping only: one module per client format (:mod:`.claude`, :mod:`.codex`, :mod:`.cursor`, :mod:`.vscode`,
:mod:`.gemini`, :mod:`.hermes`), shared secret and variable-reference rules in :mod:`.refs` (and
:mod:`.secret_guard`: nothing the project's redactor would hide is written without ``--include-secrets``),
the result types in :mod:`.model`, the format table (file locations, syntax) in :mod:`.formats`. Reading and
writing the files is the ``ForeignFiles`` port's job (``application.ports.foreign_files``).
"""
