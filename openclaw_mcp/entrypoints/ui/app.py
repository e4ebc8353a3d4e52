"""The settings page's HTTP application (spec mcp-settings-page §11.1–§11.3): the page and its assets, the
JSON API over :class:`application.settings_page.McpSettings`, and the guards every request passes — Host
(DNS rebinding, 421), Origin (403), the bearer token (401, constant-time), body size (413), type (415) and
shape (422: nesting, non-finite numbers) — with the security headers on every response. Starlette; served by
uvicorn (``entrypoints.ui.cli``).

(decision, issue 32) The browser the command opens never sees the token on its command line: it opens a
0600 redirect file holding a :class:`LaunchCode`, which the page exchanges once at ``POST /api/mcp/session``
for the token (the one API path without the bearer)."""

from __future__ import annotations

import hmac
import json
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from openclaw_mcp.application.errors import (
    ApplicationError,
    ChangeInvalidError,
    CommandError,
    ConfigConflictError,
    ConfigReadOnlyError,
    InvalidConfigError,
    ServerNotFoundError,
    WriteRejectedError,
)
from openclaw_mcp.application.ports.tool_pins import ToolPinStoreError
from openclaw_mcp.application.settings_page import ChangeRefused, McpSettings, ReviewOutdated
from openclaw_mcp.jscompat.jsonparse import parse_json

if TYPE_CHECKING:
    from openclaw_mcp.entrypoints.ui.apps import AppsHost
    from openclaw_mcp.entrypoints.ui.pins import PinsPage

__all__ = [
    "LAUNCH_TTL_SECONDS",
    "MAX_BODY_BYTES",
    "MAX_BODY_DEPTH",
    "SESSION_PATH",
    "LaunchCode",
    "UiSettings",
    "create_app",
]

MAX_BODY_BYTES = 1024 * 1024
MAX_BODY_DEPTH = 64
"""Objects and arrays nested deeper than this in a request body are refused (422) before anything walks it:
a valid ``mcp`` block is a handful of levels deep, and the walks after parsing (redaction, restore,
validation, serialisation) stay far from Python's recursion limit."""
LAUNCH_TTL_SECONDS = 120.0
SESSION_PATH = "/api/mcp/session"
POLL_SECONDS = 0.5
HEARTBEAT_SECONDS = 15.0
_ASSETS = {
    "settings.js": "text/javascript; charset=utf-8",
    "apps.js": "text/javascript; charset=utf-8",
    "pins.js": "text/javascript; charset=utf-8",
    "settings.css": "text/css; charset=utf-8",
}


class LaunchCode:
    """The single-use, short-lived code of the page the command opens: redeemed once (constant-time) for the
    token within ``ttl`` seconds, then dead; ``on_done`` runs once when it is used, expires or is closed."""

    def __init__(
        self,
        code: str,
        ttl: float = LAUNCH_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        on_done: Callable[[], None] | None = None,
    ) -> None:
        self._code: bytes | None = code.encode()
        self._clock = clock
        self._deadline = clock() + ttl
        self._on_done = on_done

    def redeem(self, given: str) -> bool:
        if self._code is None:
            return False
        if self._clock() >= self._deadline:
            self.close()
            return False
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self._code):
            return False
        self.close()
        return True

    def close(self) -> None:
        self._code = None
        done, self._on_done = self._on_done, None
        if done is not None:
            done()


class UiSettings:
    """What the application needs to know about its own listener."""

    def __init__(self, port: int, token: str, apps_origin: str | None = None, launch: LaunchCode | None = None) -> None:
        self.port = port
        self.token = token
        self.apps_origin = apps_origin
        self.launch = launch

    @property
    def hosts(self) -> frozenset[str]:
        return frozenset({f"127.0.0.1:{self.port}", f"localhost:{self.port}"})

    @property
    def origins(self) -> frozenset[str]:
        return frozenset(f"http://{host}" for host in self.hosts)

    def headers(self) -> list[tuple[bytes, bytes]]:
        frame = self.apps_origin or "'none'"
        policy = (
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
            f"frame-src {frame}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        )
        return [
            (b"cache-control", b"no-store"),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"content-security-policy", policy.encode()),
        ]


class HttpProblem(Exception):
    def __init__(self, status: int, kind: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.extra = extra

    def response(self) -> JSONResponse:
        error: dict[str, Any] = {"type": self.kind, "message": _one_line(str(self)), **self.extra}
        return _Json({"ok": False, "error": error}, status_code=self.status)


# every character str.splitlines breaks at, shown escaped: an error message is one line whatever it quotes
_LINE_BREAKS = {
    ord(char): "\\" + ("n" if char == "\n" else "r" if char == "\r" else f"u{ord(char):04x}")
    for char in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
}


def _one_line(text: str) -> str:
    """``text`` with its line breaks escaped (``\\n``, ``\\r``, ``\\u2028`` …): one line."""
    return text.translate(_LINE_BREAKS)


def _problem_response(status: int, kind: str, message: str) -> JSONResponse:
    return HttpProblem(status, kind, message).response()


class _Json(JSONResponse):
    """A JSON answer for any value the config can hold: a lone surrogate (from a ``\\ud800`` escape) is sent
    escaped, a non-finite number (JSON5 ``Infinity``/``NaN`` in the file) as ``null``, as ``JSON.stringify``
    does; too deep to write raises ``RecursionError`` (answered by ``_api``)."""

    def render(self, content: Any) -> bytes:
        try:
            return _dumps(content, ascii_only=False)
        except ValueError:  # also UnicodeEncodeError: a lone surrogate
            return _dumps(_finite(content), ascii_only=True)


def _dumps(content: Any, *, ascii_only: bool) -> bytes:
    text = json.dumps(content, ensure_ascii=ascii_only, allow_nan=False, separators=(",", ":"))
    return text.encode("utf-8")


def _finite(content: Any) -> Any:
    """``content`` with each non-finite float replaced by ``None`` (iterative)."""
    root: list[Any] = [None]
    pending: list[tuple[Any, Any, Any]] = [(content, root, 0)]
    while pending:
        value, parent, slot = pending.pop()
        if isinstance(value, dict):
            parent[slot] = copied = dict.fromkeys(value)
            pending.extend((item, copied, key) for key, item in value.items())
        elif isinstance(value, (list, tuple)):
            parent[slot] = items = [None] * len(value)
            pending.extend((item, items, index) for index, item in enumerate(value))
        else:
            parent[slot] = None if isinstance(value, float) and not math.isfinite(value) else value
    return root[0]


class _Guard:
    """Host and Origin checks, the bearer token on the API, security headers on every response."""

    def __init__(self, app: ASGIApp, settings: UiSettings) -> None:
        self._app = app
        self._settings = settings
        self._token = settings.token.encode()
        self._extra = settings.headers()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self._extra]}
            await send(message)

        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        await self._app(scope, receive, send_with_headers)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> Response | None:
        if headers.get("host", "").lower() not in self._settings.hosts:
            return _problem_response(421, "misdirected", "Misdirected request: unexpected Host header")
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self._settings.origins:
            return _problem_response(403, "forbidden", "Forbidden: foreign Origin")
        if str(scope["path"]).startswith("/api/") and scope["path"] != SESSION_PATH:
            auth = headers.get("authorization", "")
            scheme, _, value = auth.partition(" ")
            given = value.strip().encode("utf-8", "replace")
            if scheme.lower() != "bearer" or not hmac.compare_digest(given, self._token):
                return _problem_response(401, "unauthorized", "Unauthorized")
        return None


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object: ≤ 1 MiB, ``application/json``, no duplicate keys."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise HttpProblem(413, "too_large", f"Request body is larger than {MAX_BODY_BYTES} bytes.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise HttpProblem(413, "too_large", f"Request body is larger than {MAX_BODY_BYTES} bytes.")
        chunks.append(chunk)
    raw = b"".join(chunks)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise HttpProblem(415, "unsupported_media_type", "Request body must be application/json.")
    try:
        document = parse_json(raw.decode("utf-8"), object_pairs_hook=_unique_keys, parse_float=_finite_float)
    except RecursionError as exc:
        raise HttpProblem(422, "invalid", _TOO_DEEP) from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise HttpProblem(422, "invalid", f"Invalid JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise HttpProblem(422, "invalid", "Request body must be a JSON object.")
    if _nested_deeper(document, MAX_BODY_DEPTH):
        raise HttpProblem(422, "invalid", _TOO_DEEP)
    return document


_TOO_DEEP = f"Invalid JSON: nested deeper than {MAX_BODY_DEPTH} levels"


def _nested_deeper(document: object, limit: int) -> bool:
    """Whether objects/arrays nest more than ``limit`` levels (the outermost is level 1); iterative."""
    pending: list[tuple[object, int]] = [(document, 1)]
    while pending:
        value, level = pending.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if level > limit:
            return True
        pending.extend((child, level + 1) for child in children)
    return False


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for key, value in pairs:
        if key in document:
            raise ValueError(f"duplicate key {json.dumps(key)}")
        document[key] = value
    return document


def _field(body: dict[str, Any], name: str, kind: type | tuple[type, ...], what: str) -> Any:
    value = body.get(name)
    if not isinstance(value, kind) or (kind is str and isinstance(value, bool)):
        raise HttpProblem(422, "invalid", f"{name}: expected {what}")
    return value


def _server_name(request: Request, suffix: str = "") -> str:
    """The ``<name>`` of ``/api/mcp/servers/<name><suffix>`` from the raw path, percent-decoded once."""
    raw = (request.scope.get("raw_path") or str(request.scope["path"]).encode()).decode("latin-1")
    name = raw.split("?")[0][len("/api/mcp/servers/") :]
    if suffix:
        name = name[: -len(suffix)]
    try:
        return unquote(name, encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise HttpProblem(404, "not_found", "No MCP server with that name.") from exc


def _translate(exc: ApplicationError) -> HttpProblem:
    if isinstance(exc, (ConfigConflictError, ReviewOutdated)):
        return HttpProblem(409, "conflict", str(exc))
    if isinstance(exc, ToolPinStoreError):
        return HttpProblem(409, "unreadable", f"pin store unreadable: {exc}")
    if isinstance(exc, ServerNotFoundError):
        return HttpProblem(404, "not_found", str(exc))
    if isinstance(exc, ChangeInvalidError):
        issues = [{"path": issue.dotted, "message": issue.message} for issue in exc.issues]
        first = exc.issues[0]
        return HttpProblem(422, "invalid", f"{first.dotted}: {first.message}", issues=issues)
    if isinstance(exc, InvalidConfigError):
        issues = [{"path": issue.path, "message": issue.message} for issue in exc.analysis.issues]
        return HttpProblem(422, "invalid", str(exc), issues=issues)
    if isinstance(exc, ConfigReadOnlyError):
        return HttpProblem(409, "readonly", " ".join(exc.lines))
    if isinstance(exc, WriteRejectedError):
        return HttpProblem(409, "rejected", str(exc))
    if isinstance(exc, (ChangeRefused, CommandError)):
        return HttpProblem(422, "invalid", str(exc))
    return HttpProblem(500, "error", str(exc))


Handler = Callable[[Request], Awaitable[Response]]


def _api(handler: Handler) -> Handler:
    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except HttpProblem as problem:
            return problem.response()
        except ApplicationError as exc:
            return _translate(exc).response()
        except RecursionError:  # a stored config nested too deeply for the walks after parsing
            return _problem_response(422, "invalid", "The config file is nested too deeply to process.")

    return run


def _page() -> bytes:
    return resources.files("openclaw_mcp.entrypoints.ui").joinpath("static", "settings.html").read_bytes()


def create_app(
    settings: McpSettings,
    ui: UiSettings,
    probe: Callable[[str], Awaitable[dict[str, Any]]],
    stopping: Callable[[], bool] = lambda: False,
    apps: AppsHost | None = None,
    pins: PinsPage | None = None,
) -> ASGIApp:
    """The ASGI application of one ``openclaw mcp ui`` process; event streams end once ``stopping()``.
    ``apps``: the MCP Apps host when ``mcp.apps.enabled`` (mcp-apps §13.2; else the apps API answers
    ``MCP App runtime is unavailable``). ``pins``: the tool pin views (issue 35; without it, no pin routes)."""
    page = _page()
    assets = {
        name: resources.files("openclaw_mcp.entrypoints.ui").joinpath("static", name).read_bytes() for name in _ASSETS
    }

    async def show_page(request: Request) -> Response:
        return Response(page, media_type="text/html; charset=utf-8")

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in assets:
            return PlainTextResponse("Not Found", status_code=404)
        return Response(assets[name], media_type=_ASSETS[name])

    async def snapshot(request: Request) -> Response:
        return _Json((await settings.snapshot()).as_json())

    async def add(request: Request) -> Response:
        body = await _body(request)
        outcome = await settings.add(
            _field(body, "baseHash", str, "string"),
            _field(body, "name", str, "string"),
            _field(body, "transport", str, "string"),
            _field(body, "target", str, "string"),
        )
        return _Json(outcome.as_json())

    async def toggle(request: Request) -> Response:
        body = await _body(request)
        base = _field(body, "baseHash", str, "string")
        enabled = _field(body, "enabled", bool, "boolean")
        outcome = await settings.set_enabled(base, _server_name(request, "/enabled"), enabled)
        return _Json(outcome.as_json())

    async def remove(request: Request) -> Response:
        body = await _body(request)
        outcome = await settings.remove(_field(body, "baseHash", str, "string"), _server_name(request))
        return _Json(outcome.as_json())

    async def replace(request: Request) -> Response:
        body = await _body(request)
        base = _field(body, "baseHash", str, "string")
        if not isinstance(body.get("mcp"), dict):
            raise HttpProblem(422, "invalid", "mcp: Invalid input: expected object")
        return _Json((await settings.replace(base, body["mcp"])).as_json())

    async def session(request: Request) -> Response:
        """The opened page's one-time exchange: its launch code for the token (then the code is dead)."""
        body = await _body(request)
        code = body.get("code")
        if ui.launch is None or not isinstance(code, str) or not ui.launch.redeem(code):
            raise HttpProblem(401, "unauthorized", "Unauthorized")
        return _Json({"ok": True, "token": ui.token})

    async def run_probe(request: Request) -> Response:
        await _body(request)
        return _Json(await probe(_server_name(request, "/probe")))

    async def events(request: Request) -> Response:
        async def current() -> str | None:
            try:
                return await settings.current_hash()
            except (ApplicationError, RecursionError):  # unreadable right now: the next poll tells
                return None

        async def stream() -> AsyncIterator[bytes]:
            last = await current()
            yield b": connected\n\n"
            idle = 0.0
            while not stopping():
                await anyio.sleep(POLL_SECONDS)
                digest = await current()
                if digest is not None and digest != last:
                    last = digest
                    idle = 0.0
                    yield f"event: config.changed\ndata: {json.dumps({'hash': digest})}\n\n".encode()
                else:
                    idle += POLL_SECONDS
                    if idle >= HEARTBEAT_SECONDS:
                        idle = 0.0
                        yield b": keep-alive\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream")

    async def pinned(request: Request) -> Response:
        assert pins is not None
        return _Json(await pins.pinned())

    async def review(request: Request) -> Response:
        assert pins is not None
        await _body(request)
        return _Json(await pins.review(_server_name(request, "/review")))

    async def accept(request: Request) -> Response:
        assert pins is not None
        tools = (await _body(request)).get("tools")
        if not isinstance(tools, dict) or not tools or not all(v is None or isinstance(v, str) for v in tools.values()):
            raise HttpProblem(422, "invalid", "tools: expected an object of tool name to fingerprint (or null)")
        return _Json(await pins.accept(_server_name(request, "/accept"), tools))

    pin_routes = [
        Route("/api/mcp/pins", _api(pinned), methods=["GET"]),
        Route("/api/mcp/servers/{name:path}/review", _api(review), methods=["POST"]),
        Route("/api/mcp/servers/{name:path}/accept", _api(accept), methods=["POST"]),
    ]

    def _apps_call(work: Callable[[AppsHost, dict[str, Any]], Awaitable[dict[str, Any]]]) -> Handler:
        async def run(request: Request) -> Response:
            from openclaw_mcp.entrypoints.ui.apps import AppsProblem

            body = await _body(request) if request.method == "POST" else {}
            if apps is None:
                problem = AppsProblem(409, "MCP App runtime is unavailable")
                return _Json(problem.as_json(), status_code=problem.status)
            try:
                return _Json(await work(apps, body))
            except AppsProblem as problem:
                answer = problem.as_json()
                error = answer.get("error")
                if isinstance(error, dict) and isinstance(error.get("message"), str):
                    answer = {**answer, "error": {**error, "message": _one_line(error["message"])}}
                return _Json(answer, status_code=problem.status)

        return _api(run)

    async def apps_status(host: AppsHost, body: dict[str, Any]) -> dict[str, Any]:
        return await host.status()

    async def apps_tools(host: AppsHost, body: dict[str, Any]) -> dict[str, Any]:
        return await host.tools(body.get("server"))

    async def apps_run(host: AppsHost, body: dict[str, Any]) -> dict[str, Any]:
        return await host.run(body.get("server"), body.get("tool"), body.get("arguments"))

    def apps_bridge(method: str) -> Handler:
        async def work(host: AppsHost, body: dict[str, Any]) -> dict[str, Any]:
            return await host.bridge(method, body)

        return _apps_call(work)

    async def apps_disabled_status(request: Request) -> Response:
        return _Json({"ok": True, "enabled": False})

    from openclaw_mcp.entrypoints.ui.bridge_methods import BRIDGE_METHODS

    app_routes = [
        Route("/api/mcp/apps", _apps_call(apps_status) if apps else _api(apps_disabled_status), methods=["GET"]),
        Route("/api/mcp/apps/tools", _apps_call(apps_tools), methods=["POST"]),
        Route("/api/mcp/apps/run", _apps_call(apps_run), methods=["POST"]),
        *(Route(f"/api/mcp/apps/{method}", apps_bridge(method), methods=["POST"]) for method in BRIDGE_METHODS),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        return PlainTextResponse("Not Found", status_code=404)

    async def not_allowed(request: Request, exc: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            return _problem_response(405, "method_not_allowed", "Method Not Allowed")
        return PlainTextResponse("Method Not Allowed", status_code=405)

    async def failed(request: Request, exc: Exception) -> Response:
        return _problem_response(500, "error", "Internal error")

    routes = [
        Route("/settings/mcp", show_page, methods=["GET"]),
        Route("/mcp", show_page, methods=["GET"]),
        Route("/assets/{name}", asset, methods=["GET"]),
        Route("/api/mcp", _api(snapshot), methods=["GET"]),
        Route("/api/mcp", _api(replace), methods=["PUT"]),
        Route("/api/mcp/events", events, methods=["GET"]),
        Route(SESSION_PATH, _api(session), methods=["POST"]),
        Route("/api/mcp/servers", _api(add), methods=["POST"]),
        Route("/api/mcp/servers/{name:path}/enabled", _api(toggle), methods=["POST"]),
        Route("/api/mcp/servers/{name:path}/probe", _api(run_probe), methods=["POST"]),
        *(pin_routes if pins is not None else ()),
        Route("/api/mcp/servers/{name:path}", _api(remove), methods=["DELETE"]),
        *app_routes,
    ]
    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed, 500: failed})
    return _Guard(app, ui)
