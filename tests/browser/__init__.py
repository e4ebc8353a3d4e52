"""The real-browser tier of `openclaw mcp ui` (spec mcp-settings-page §12): headless Debian Chromium."""
