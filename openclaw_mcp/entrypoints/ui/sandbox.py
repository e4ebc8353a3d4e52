"""The MCP Apps sandbox listener (spec mcp-apps §6, §7.2–§7.5, §13.2.1): a second loopback origin that serves
only the proxy document ``/mcp-app-sandbox``, with the view's CSP as its HTTP policy. Nothing else: every other
path or method is ``404``. Raw ASGI (no routing needed); served by uvicorn from ``entrypoints.ui.cli``."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

from starlette.types import Receive, Scope, Send

from openclaw_mcp.domain.mcp_apps import (
    SANDBOX_PATH,
    AppViewError,
    decode_csp_param,
    document_version,
    sandbox_headers,
    sandbox_path,
)

__all__ = ["SandboxDocument", "create_sandbox_app", "sandbox_document", "sandbox_url_path"]

RequestLog = Callable[[str, str, dict[str, str]], None]
IMMUTABLE = "public, max-age=31536000, immutable"

GUARD_FILE = "mcp-app-frame-guard.js"
"""The blockDescendantFrames guard: injected by the proxy as the first script of the app's document."""


@lru_cache(maxsize=1)
def _guard() -> str:
    script = resources.files("openclaw_mcp.entrypoints.ui").joinpath("static", GUARD_FILE).read_text("utf-8")
    if "</script" in script.lower() or "<!--" in script:
        raise RuntimeError(f"{GUARD_FILE} must not contain </script or <!--")  # it is inlined in the app
    return f"<script>{script}</script>"


@dataclass(frozen=True, slots=True)
class SandboxDocument:
    html: str
    headers: dict[str, str]
    version: str


@lru_cache(maxsize=1)
def _template() -> str:
    return resources.files("openclaw_mcp.entrypoints.ui").joinpath("static", "mcp-app-sandbox.html").read_text("utf-8")


@lru_cache(maxsize=256)
def _document(csp_json: str) -> SandboxDocument:
    csp = json.loads(csp_json)
    block = bool(csp and csp.get("blockDescendantFrames") is True)
    settings = {"blockDescendantFrames": block, "guardScript": _guard() if block else ""}
    # "<" escaped so the guard's own </script> cannot end the proxy's script
    html = _template().replace("/*SETTINGS*/", json.dumps(settings).replace("<", "\\u003c"))
    headers = sandbox_headers(csp)
    return SandboxDocument(html, headers, document_version(headers, html))


def sandbox_document(csp: dict[str, Any] | None) -> SandboxDocument:
    """The proxy document for a view's normalised CSP (``None``: no policy)."""
    return _document(json.dumps(csp, sort_keys=False))


def sandbox_url_path(csp: dict[str, Any] | None) -> str:
    """``/mcp-app-sandbox?csp=…&v=…`` for a view's normalised CSP."""
    return sandbox_path(csp, sandbox_document(csp).version)


async def _reply(send: Send, status: int, headers: dict[str, str], body: bytes, head: bool = False) -> None:
    raw = [(key.lower().encode("latin-1"), value.encode("latin-1")) for key, value in headers.items()]
    raw.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": b"" if head else body})


async def _text(send: Send, status: int, text: str) -> None:
    await _reply(send, status, {"Content-Type": "text/plain; charset=utf-8"}, text.encode())


def create_sandbox_app(request_log: RequestLog | None = None) -> Callable[[Scope, Receive, Send], Any]:
    """The sandbox listener's ASGI application; ``request_log(method, target, headers)`` sees every request."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        method = str(scope["method"]).upper()
        raw_path = (scope.get("raw_path") or str(scope["path"]).encode()).decode("latin-1")
        query = (scope.get("query_string") or b"").decode("latin-1")
        target = f"{raw_path}?{query}" if query else raw_path
        if request_log is not None:
            headers = {key.decode("latin-1"): value.decode("latin-1") for key, value in scope["headers"]}
            request_log(method, target, headers)
        if scope["path"] != SANDBOX_PATH or method not in ("GET", "HEAD"):
            await _text(send, 404, "Not Found")
            return
        params = parse_qs(query, keep_blank_values=True)
        csp = None
        if "csp" in params:
            try:
                csp = decode_csp_param(params["csp"][0])
            except AppViewError:
                await _text(send, 400, "invalid MCP App sandbox policy")
                return
        document = sandbox_document(csp)
        version = params.get("v", [None])[0]
        cache = IMMUTABLE if version == document.version else "no-store"
        headers = {**document.headers, "Cache-Control": cache}
        await _reply(send, 200, headers, document.html.encode(), head=method == "HEAD")

    return app
