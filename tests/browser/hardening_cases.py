"""Shared by the hardening tests of ``openclaw mcp ui`` (issue 32): an ``mcp`` block hiding secrets where a
shape-driven redactor would not look, and the command started as a person starts it (the browser opened)."""

from __future__ import annotations

import re
import subprocess
import threading
from typing import IO, Any

from tests.browser.conftest import OPENCLAW, URL_TIMEOUT_S, UiProcess

__all__ = ["SECRETS", "URL_LINE", "OpenedUi", "odd_mcp"]

SECRETS = (
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "s3cret-list",
    "s3cret-bare",
    "s3cret-meta",
    "metatoken123",
    "hunter2-env",
    "Bearer zyxwvutsrqponmlk987654",
    "s3cret-nested",
    "sk-abcdefghijklmnopqrstuvwx0123",
    "s3cret-dict",
)


def odd_mcp() -> dict[str, Any]:
    """Secrets in ``env``/``headers`` given as lists or strings, ``url`` as a list or an object, a server given
    as a bare string, ``oauth.clientMetadataUrl`` with userinfo or a token, an unknown nested field, an
    ``--api-key=`` argument (each of ``SECRETS`` once)."""
    return {
        "servers": {
            "env-list": {"command": "node", "env": ["GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789"]},
            "env-string": {"command": "node", "env": "PASSWORD=hunter2-env"},
            "headers-list": {
                "url": "https://h.example/mcp",
                "headers": [["Authorization", "Bearer zyxwvutsrqponmlk987654"]],
            },
            "url-list": {"url": ["https://alice:s3cret-list@h.example/mcp"]},
            "url-dict": {"url": {"href": "https://dave:s3cret-dict@h.example/mcp"}},
            "bare": "https://bob:s3cret-bare@h.example/mcp",
            "meta-userinfo": {
                "url": "https://h.example/mcp",
                "auth": "oauth",
                "oauth": {"clientMetadataUrl": "https://carol:s3cret-meta@h.example/client.json"},
            },
            "meta-token": {
                "url": "https://h.example/mcp",
                "auth": "oauth",
                "oauth": {"clientMetadataUrl": "https://h.example/client.json?token=metatoken123"},
            },
            "nested": {"command": "x", "extra": {"deep": [{"where": "https://eve:s3cret-nested@h.example/"}]}},
            "arg-key": {"command": "x", "args": ["--api-key=sk-abcdefghijklmnopqrstuvwx0123", "--token", "abc123"]},
        }
    }


URL_LINE = re.compile(r"MCP settings: (http://127\.0\.0\.1:(\d+)/settings/mcp#token=(\S+))")


class OpenedUi(UiProcess):
    """``openclaw mcp ui`` as a person starts it: no ``--no-open`` (the page is opened through Python's
    ``webbrowser``, so ``$BROWSER`` chooses the program) and the ``MCP settings: <url>`` line on stdout."""

    def start(self) -> None:
        self._stderr = self._stderr_path.open("wb")
        self._process = subprocess.Popen(
            [str(OPENCLAW), "mcp", "ui", *self.args],
            env=self.env,
            cwd=self.directory,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        stdout: IO[bytes] | None = self._process.stdout
        assert stdout is not None
        self._reader = threading.Thread(target=self._read, args=(stdout,), name="openclaw-mcp-ui-stdout", daemon=True)
        self._reader.start()
        first = self._lines.get(timeout=URL_TIMEOUT_S)
        if first is None:
            self.stop()
            raise AssertionError(f"openclaw mcp ui printed no URL; stderr: {self.stderr()!r}")
        match = URL_LINE.fullmatch(first.decode("utf-8", "replace").strip())
        if match is None:
            self.stop()
            raise AssertionError(f"openclaw mcp ui printed {first!r}, not the MCP settings line")
        self.url, self.port, self.token = match.group(1), int(match.group(2)), match.group(3)
