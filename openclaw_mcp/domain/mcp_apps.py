"""MCP Apps (``io.modelcontextprotocol/ui``): the rules of views (spec mcp-apps §2–§7, §13.1).

Pure: which tools are app-only or app-callable, how a ``ui://`` resource becomes view HTML, the CSP
normalisation and the sandbox document's HTTP policy, the bounded transcript descriptor, and the in-memory
view lease store with its per-view rate limits (times are passed in, in milliseconds).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from openclaw_mcp.jscompat.jsjson import js_dumps
from openclaw_mcp.jscompat.jsonparse import parse_json
from openclaw_mcp.jscompat.text import js_trim, utf16_len
from openclaw_mcp.jscompat.urls import parse_url

__all__ = [
    "APP_MIME_TYPE",
    "APP_PROTOCOL_VERSION",
    "CSP_MAX_ENCODED",
    "HOST_INFO",
    "RESOURCE_MAX_BYTES",
    "SANDBOX_PATH",
    "UI_EXTENSION",
    "VIEW_EXPIRED_CODE",
    "VIEW_EXPIRED_MESSAGE",
    "VIEW_MAX_BYTES",
    "VIEW_TTL_MS",
    "AppView",
    "AppViewError",
    "LeaseLimits",
    "ViewLeases",
    "app_resource_html",
    "canvas_preview",
    "check_descriptor",
    "csp_header",
    "decode_csp_param",
    "definition_grant",
    "encode_csp_param",
    "is_app_callable",
    "listing_ui_meta",
    "normalize_csp",
    "normalize_permissions",
    "resource_ui_meta",
    "sandbox_headers",
    "sandbox_path",
    "ui_extension_capability",
    "view_byte_size",
]

UI_EXTENSION = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"
APP_PROTOCOL_VERSION = "2026-01-26"
HOST_INFO = {"name": "OpenClaw", "version": "1.0.0"}
SANDBOX_PATH = "/mcp-app-sandbox"

RESOURCE_MAX_BYTES = 2097152
BLOB_MAX_CHARS = -(-RESOURCE_MAX_BYTES // 3) * 4 + 4  # 2796208
VIEW_MAX_BYTES = 6291456
VIEW_TTL_MS = 600_000
CSP_MAX_JSON_BYTES = 5120
CSP_MAX_HEADER_BYTES = 6144
CSP_MAX_ENCODED = -(-CSP_MAX_JSON_BYTES // 3) * 4 + 4  # 6832

VIEW_EXPIRED_MESSAGE = "MCP App view expired or is not authorized for this session"
VIEW_EXPIRED_CODE = "MCP_APP_VIEW_EXPIRED"

_CSP_KEYS = ("connectDomains", "resourceDomains", "mediaDomains", "frameDomains", "baseUriDomains")
_HOSTNAME = re.compile(r"^(?:\*\.)?[A-Za-z0-9.-]+$")
_IPV6 = re.compile(r"^\[[0-9A-Fa-f:.]+\]$")
_PERMISSIONS = ("camera", "clipboardWrite", "geolocation", "microphone")


class AppViewError(Exception):
    """A view cannot be prepared or used; ``str()`` is the reference's message. ``kind`` sorts the
    failures for the page's HTTP statuses: ``expired`` (409), ``limit`` (429), ``refused`` (403),
    ``invalid`` (422 / preparation failures)."""

    def __init__(self, message: str, kind: Literal["expired", "limit", "refused", "invalid"] = "invalid") -> None:
        super().__init__(message)
        self.kind = kind


def ui_extension_capability() -> dict[str, Any]:
    """The ``initialize.capabilities.extensions`` value a host sends when apps are enabled (§2)."""
    return {UI_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}


def is_app_callable(visibility: Sequence[str] | None) -> bool:
    """Visibility absent or containing ``app`` (§3.3; ``[]`` is neither model- nor app-callable)."""
    return visibility is None or "app" in visibility


# --- CSP (§7.1, §7.2) -------------------------------------------------------------------------------


def _domain(entry: object, *, websocket: bool, media: bool) -> str | None:
    if not isinstance(entry, str) or not entry or utf16_len(entry) > 2048 or entry != js_trim(entry):
        return None
    if any(ord(char) <= 31 or ord(char) == 127 for char in entry):
        return None
    if media and entry in ("https:", "blob:"):
        return entry
    url = parse_url(entry)
    schemes = ("http", "https", "ws", "wss") if websocket else ("http", "https")
    if url is None or url.scheme not in schemes or url.hostname is None:
        return None
    if url.username or url.password or url.pathname != "/" or url.search or url.hash:
        return None
    if not (_IPV6.match(url.hostname) or _HOSTNAME.match(url.hostname)):
        return None
    return f"{url.scheme}://{url.host}"


def _domains(value: object, *, websocket: bool = False, media: bool = False) -> list[str] | None:
    if not isinstance(value, list):
        return None
    kept = [origin for origin in (_domain(entry, websocket=websocket, media=media) for entry in value) if origin]
    return kept or None


def normalize_csp(value: object) -> dict[str, Any] | None:
    """``ui.csp`` normalised: each list keeps the valid entries as origins, empty lists and a false
    ``blockDescendantFrames`` are dropped; ``None`` when nothing remains. Raises ``AppViewError`` when the
    result would not fit the sandbox URL and header."""
    if not isinstance(value, dict):
        return None
    csp: dict[str, Any] = {}
    for key in _CSP_KEYS:
        kept = _domains(value.get(key), websocket=key == "connectDomains", media=key == "mediaDomains")
        if kept:
            csp[key] = kept
    if value.get("blockDescendantFrames") is True:
        csp["blockDescendantFrames"] = True
    if not csp:
        return None
    if len(_json(csp).encode()) > CSP_MAX_JSON_BYTES or len(csp_header(csp).encode()) > CSP_MAX_HEADER_BYTES:
        raise AppViewError("MCP App CSP metadata exceeds safe HTTP limits")
    return csp


def csp_header(csp: Mapping[str, Any] | None) -> str:
    """The sandbox document's ``Content-Security-Policy`` (§7.2). With ``blockDescendantFrames`` (decision,
    issue 32) the policy also refuses every nested frame whatever ``frameDomains`` says (``frame-src 'none'``,
    ``child-src 'none'``) and requires Trusted Types, so that every HTML sink passes the guard's policy."""
    policy = csp or {}
    block = policy.get("blockDescendantFrames") is True
    resources = " ".join(policy.get("resourceDomains") or ())
    media_domains = policy.get("mediaDomains")
    media = " ".join(policy.get("resourceDomains") or () if media_domains is None else media_domains)
    connect = " ".join(policy.get("connectDomains") or ()) or "'none'"
    frames = "'none'" if block else " ".join(policy.get("frameDomains") or ()) or "'none'"
    bases = " ".join(policy.get("baseUriDomains") or ()) or "'self'"
    directives = [
        "default-src 'none'",
        f"script-src 'self' 'unsafe-inline' {resources}".rstrip(),
        f"style-src 'self' 'unsafe-inline' {resources}".rstrip(),
        f"img-src 'self' data: {resources}".rstrip(),
        f"media-src 'self' data: {media}".rstrip(),
        f"connect-src {connect}",
        "webrtc 'block'",
        f"frame-src {frames}",
        f"base-uri {bases}",
        "object-src 'none'",
        "form-action 'none'",
        "frame-ancestors http: https:",
    ]
    if csp is not None:
        directives.insert(5, f"font-src 'self' {resources}".rstrip())
    if block:
        directives.insert(directives.index(f"frame-src {frames}") + 1, "child-src 'none'")
        directives.append("require-trusted-types-for 'script'")
    return "; ".join(directives)


def encode_csp_param(csp: Mapping[str, Any] | None) -> str | None:
    """The ``csp`` query value: base64url (no padding) of the normalised policy's JSON."""
    if not csp:
        return None
    return base64.urlsafe_b64encode(_json(csp).encode()).decode().rstrip("=")


def decode_csp_param(value: str) -> dict[str, Any]:
    """The policy of a ``csp`` query value; ``AppViewError`` for anything that is not a valid policy."""
    if utf16_len(value) > CSP_MAX_ENCODED:
        raise AppViewError("MCP App CSP metadata is too large")
    try:
        raw = _lenient_base64(value)
        document = parse_json(raw.decode("utf-8").removeprefix("\ufeff"))
    except (binascii.Error, ValueError):
        raise AppViewError("MCP App CSP metadata is not a valid policy") from None
    csp = normalize_csp(document)
    if csp is None:
        raise AppViewError("MCP App CSP metadata is not a valid policy")
    return csp


def sandbox_headers(csp: Mapping[str, Any] | None) -> dict[str, str]:
    """The sandbox document's response headers (§6.1), before ``Cache-Control``."""
    return {
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy": csp_header(csp),
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), clipboard-write=()",
        "Cross-Origin-Resource-Policy": "cross-origin",
        "Origin-Agent-Cluster": "?1",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }


def document_version(headers: Mapping[str, str], html: str) -> str:
    """Hex SHA-256 of ``JSON.stringify([headers, html])``: versions the shell and its policy together."""
    return hashlib.sha256(js_dumps([dict(headers), html], None).encode("utf-8", "surrogatepass")).hexdigest()


def sandbox_path(csp: Mapping[str, Any] | None, version: str) -> str:
    """``/mcp-app-sandbox?csp=<b64url>&v=<version>`` (``csp`` only when the view has a policy)."""
    encoded = encode_csp_param(csp)
    query = f"csp={encoded}&v={version}" if encoded else f"v={version}"
    return f"{SANDBOX_PATH}?{query}"


# --- resources (§4.2) -------------------------------------------------------------------------------


def app_resource_html(result: object) -> tuple[str, dict[str, Any]]:
    """The HTML and the content item of a ``resources/read`` result of a ``ui://`` view (§4.2 2–4)."""
    contents = result.get("contents") if isinstance(result, dict) else None
    items = contents if isinstance(contents, list) else []
    if len(items) != 1:
        raise AppViewError(f"expected one MCP App resource, received {len(items)}")
    content = items[0]
    if not isinstance(content, dict) or content.get("mimeType") != APP_MIME_TYPE:
        raise AppViewError(f"resource must use {APP_MIME_TYPE}")
    too_big = f"MCP App resource exceeds {RESOURCE_MAX_BYTES} bytes"
    text = content.get("text")
    if isinstance(text, str):
        if len(text.encode("utf-8", "surrogatepass")) > RESOURCE_MAX_BYTES:
            raise AppViewError(too_big)
        return text, content
    blob = content.get("blob")
    if not isinstance(blob, str):
        raise AppViewError("MCP App resource must provide text or base64 blob content")
    if utf16_len(blob) > BLOB_MAX_CHARS:
        raise AppViewError(too_big)
    decoded = _lenient_base64(blob)
    if len(decoded) > RESOURCE_MAX_BYTES:
        raise AppViewError(too_big)
    return decoded.decode("utf-8", "replace"), content


def _lenient_base64(text: str) -> bytes:
    """Node's ``Buffer.from(text, "base64")``: both alphabets, other characters skipped, decoding stops at
    the first ``=``, a dangling sextet is ignored."""
    kept = "".join(char for char in text.split("=", 1)[0] if char.isascii() and (char.isalnum() or char in "+/-_"))
    kept = kept.replace("-", "+").replace("_", "/")
    if len(kept) % 4 == 1:
        kept = kept[:-1]
    return base64.b64decode(kept + "=" * (-len(kept) % 4))


def resource_ui_meta(content: Mapping[str, Any]) -> dict[str, Any] | None:
    """The content item's ``_meta.ui`` (else the deprecated ``meta.ui``)."""
    meta = content.get("_meta")
    if meta is None:
        meta = content.get("meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return ui if isinstance(ui, dict) else None


def listing_ui_meta(listed: object, uri: str) -> dict[str, Any] | None:
    """``_meta.ui`` of the ``resources/list`` entry whose ``uri`` is the view's (§4.2.6 fallback)."""
    entries = listed.get("resources") if isinstance(listed, dict) else listed
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and entry.get("uri") == uri:
            meta = entry.get("_meta")
            ui = meta.get("ui") if isinstance(meta, dict) else None
            return ui if isinstance(ui, dict) else None
    return None


def normalize_permissions(value: object) -> dict[str, Any] | None:
    """The ``ui.permissions`` keys whose values are objects (recorded, never granted, §7.4)."""
    if not isinstance(value, dict):
        return None
    kept: dict[str, Any] = {key: {} for key in _PERMISSIONS if isinstance(value.get(key), dict)}
    return kept or None


def view_byte_size(html: str, tool_input: object, tool_result: object) -> int:
    """HTML bytes plus the bytes of ``JSON.stringify({toolInput, toolResult})`` (≤ 6 MiB, §4.2.5)."""
    data = js_dumps({"toolInput": tool_input, "toolResult": tool_result}, None)
    size = len(html.encode("utf-8", "surrogatepass")) + len(data.encode("utf-8", "surrogatepass"))
    if size > VIEW_MAX_BYTES:
        raise AppViewError(f"MCP App view data exceeds {VIEW_MAX_BYTES} bytes")
    return size


# --- descriptor (§4.2.8, §4.4) --------------------------------------------------------------------


def check_descriptor(view_id: str, server: str, tool: str, uri: str, tool_call_id: str | None) -> None:
    """The descriptor's bounds; ``MCP App preview descriptor exceeds safe limits`` otherwise."""
    if (
        utf16_len(view_id) > 128
        or not view_id.startswith("mcp-app-")
        or not 1 <= utf16_len(server) <= 256
        or not 1 <= utf16_len(tool) <= 256
        or not uri.startswith("ui://")
        or utf16_len(uri) > 2048
        or (tool_call_id is not None and utf16_len(tool_call_id) > 512)
    ):
        raise AppViewError("MCP App preview descriptor exceeds safe limits")


def canvas_preview(view: AppView, *, result_has_meta: bool, session_key: str | None = None) -> dict[str, Any]:
    """``details.mcpAppPreview``: the bounded descriptor the transcript keeps (no HTML, input or result)."""
    check_descriptor(view.view_id, view.server_name, view.tool_name, view.ui_resource_uri, view.tool_call_id)
    app: dict[str, Any] = {
        "viewId": view.view_id,
        "serverName": view.server_name,
        "toolName": view.tool_name,
        "uiResourceUri": view.ui_resource_uri,
    }
    if view.tool_call_id:
        app["toolCallId"] = view.tool_call_id
    if session_key:
        app["originSessionKey"] = session_key
    if result_has_meta:
        app["resultMetaState"] = "unavailable"
    return {
        "kind": "canvas",
        "view": {"id": view.view_id, "title": view.title},
        "presentation": {
            "target": "assistant_message",
            "title": view.title,
            "preferred_height": 600,
            "sandbox": "scripts",
        },
        "mcpApp": app,
    }


def definition_grant(server_name: str, server: Mapping[str, Any]) -> str:
    """The identity of one server definition: a view is bound to the definition its granting run used, and
    ends when the server is removed, disabled or redefined (any change of its entry)."""
    canonical = json.dumps([server_name, server], sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


# --- leases (§4.3) --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LeaseLimits:
    """The store's sizes and the per-view request limits (the reference's values by default)."""

    ttl_ms: int = VIEW_TTL_MS
    max_views: int = 32
    max_bytes: int = 67_108_864
    window_ms: int = 60_000
    max_requests: int = 120
    max_tool_calls: int = 30
    max_concurrent: int = 4


@dataclass(slots=True)
class AppView:
    """One live view: everything its bridge needs, held in memory only."""

    view_id: str
    server_name: str
    tool_name: str
    ui_resource_uri: str
    html: str
    tool_input: Any
    tool_result: Any
    allowed_app_tools: frozenset[str]
    byte_size: int
    expires_at_ms: int
    csp: dict[str, Any] | None = None
    permissions: dict[str, Any] | None = None
    tool_call_id: str | None = None
    read_only: bool = False
    model_context: Any = None
    window_started_ms: int = 0
    request_count: int = 0
    tool_call_count: int = 0
    active_requests: int = 0
    released: list[Callable[[], None]] = field(default_factory=list)
    grant: str | None = None
    """The server definition the view was granted for (:func:`definition_grant`); ``None``: not bound."""

    @property
    def title(self) -> str:
        return f"{self.tool_name} UI"


class ViewLeases:
    """The process's live views: at most ``max_views`` and ``max_bytes`` in total (oldest evicted first),
    each for ``ttl_ms`` from creation. Expiry is checked on every access; ``on_drop`` runs for every view
    that leaves the store (expired, evicted, replaced or closed)."""

    def __init__(self, limits: LeaseLimits | None = None, on_drop: Callable[[AppView], None] | None = None) -> None:
        self.limits = limits or LeaseLimits()
        self._views: OrderedDict[str, AppView] = OrderedDict()
        self._on_drop = on_drop or (lambda _view: None)

    def __len__(self) -> int:
        return len(self._views)

    @property
    def total_bytes(self) -> int:
        return sum(view.byte_size for view in self._views.values())

    def add(self, view: AppView, now_ms: int) -> None:
        """Store ``view`` (replacing one of the same id), evicting expired and then the oldest views."""
        self._drop(view.view_id)
        self.prune(now_ms, extra_bytes=view.byte_size, reserve=True)
        view.window_started_ms = now_ms
        self._views[view.view_id] = view

    def prune(self, now_ms: int, *, extra_bytes: int = 0, reserve: bool = False) -> None:
        for view_id in [key for key, view in self._views.items() if view.expires_at_ms <= now_ms]:
            self._drop(view_id)
        total = self.total_bytes
        while self._views and (
            len(self._views) + (1 if reserve else 0) > self.limits.max_views
            or total + extra_bytes > self.limits.max_bytes
        ):
            oldest = next(iter(self._views))
            total -= self._views[oldest].byte_size
            self._drop(oldest)

    def get(self, view_id: str, now_ms: int) -> AppView:
        """The live view, or ``AppViewError(VIEW_EXPIRED_MESSAGE, "expired")``."""
        self.prune(now_ms)
        view = self._views.get(view_id)
        if view is None:
            raise AppViewError(VIEW_EXPIRED_MESSAGE, "expired")
        return view

    def close(self) -> None:
        for view_id in list(self._views):
            self._drop(view_id)

    def drop_where(self, doomed: Callable[[AppView], bool]) -> list[AppView]:
        """Drop every view for which ``doomed(view)`` holds; returns them (oldest first)."""
        dropped = [view for view in self._views.values() if doomed(view)]
        for view in dropped:
            self._drop(view.view_id)
        return dropped

    def _drop(self, view_id: str) -> None:
        view = self._views.pop(view_id, None)
        if view is not None:
            self._on_drop(view)

    def acquire(self, view: AppView, kind: Literal["request", "tool"], now_ms: int) -> Callable[[], None]:
        """Count one bridge request against the view's window; the returned function ends it (idempotent).
        Raises ``AppViewError(..., "limit")`` at the concurrency or rate limit."""
        limits = self.limits
        if now_ms - view.window_started_ms >= limits.window_ms:
            view.window_started_ms, view.request_count, view.tool_call_count = now_ms, 0, 0
        if view.active_requests >= limits.max_concurrent:
            raise AppViewError("MCP App request concurrency limit reached", "limit")
        if view.request_count >= limits.max_requests or (
            kind == "tool" and view.tool_call_count >= limits.max_tool_calls
        ):
            raise AppViewError("MCP App request rate limit reached", "limit")
        view.request_count += 1
        if kind == "tool":
            view.tool_call_count += 1
        view.active_requests += 1
        done = False

        def release() -> None:
            nonlocal done
            if not done:
                done = True
                view.active_requests = max(0, view.active_requests - 1)

        return release


def _json(value: object) -> str:
    return js_dumps(value, None)
