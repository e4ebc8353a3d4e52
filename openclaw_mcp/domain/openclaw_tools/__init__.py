"""The built-in OpenClaw tools served by ``openclaw-tools`` (spec openclaw-tools.md)."""
