"""The ``openclaw-plugin-tools`` server's pure rules (spec plugin-tools.md): who it runs for (:mod:`.launch`)
and how plugin tools and their results look over MCP (:mod:`.results`)."""
