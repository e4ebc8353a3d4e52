"""The settings page's HTTP application (spec mcp-settings-page §11.1–§11.3): the page and its assets, the
JSON API over :class:`application.settings_page.McpSettings`, and the guards every request passes — Host
(DNS rebinding, 421), Origin (403), the bearer token (401, constant-time), body size (413) and type (415) —
with the security headers on every response. Starlette; served by uvicorn (``entrypoints.ui.cli``)."""

from __future__ import annotations

import hmac
import json
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
from openclaw_mcp.application.settings_page import ChangeRefused, McpSettings

if TYPE_CHECKING:
    from openclaw_mcp.entrypoints.ui.apps import AppsHost

__all__ = ["MAX_BODY_BYTES", "UiSettings", "create_app"]

MAX_BODY_BYTES = 1024 * 1024
POLL_SECONDS = 0.5
HEARTBEAT_SECONDS = 15.0
_ASSETS = {
    "settings.js": "text/javascript; charset=utf-8",
    "apps.js": "text/javascript; charset=utf-8",
    "settings.css": "text/css; charset=utf-8",
}


class UiSettings:
    """What the application needs to know about its own listener."""

    def __init__(self, port: int, token: str, apps_origin: str | None = None) -> None:
        self.port = port
        self.token = token
        self.apps_origin = apps_origin

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
        error: dict[str, Any] = {"type": self.kind, "message": str(self), **self.extra}
        return JSONResponse({"ok": False, "error": error}, status_code=self.status)


def _problem_response(status: int, kind: str, message: str) -> JSONResponse:
    return HttpProblem(status, kind, message).response()


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
        if str(scope["path"]).startswith("/api/"):
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
        document = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        raise HttpProblem(422, "invalid", f"Invalid JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise HttpProblem(422, "invalid", "Request body must be a JSON object.")
    return document


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for key, value in pairs:
        if key in document:
            raise ValueError(f"duplicate key {json.dumps(key)}")
        document[key] = value
    return document


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


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
    if isinstance(exc, ConfigConflictError):
        return HttpProblem(409, "conflict", str(exc))
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

    return run


def _page() -> bytes:
    return resources.files("openclaw_mcp.entrypoints.ui").joinpath("static", "settings.html").read_bytes()


def create_app(
    settings: McpSettings,
    ui: UiSettings,
    probe: Callable[[str], Awaitable[dict[str, Any]]],
    stopping: Callable[[], bool] = lambda: False,
    apps: AppsHost | None = None,
) -> ASGIApp:
    """The ASGI application of one ``openclaw mcp ui`` process; event streams end once ``stopping()``.
    ``apps``: the MCP Apps host when ``mcp.apps.enabled`` (mcp-apps §13.2; else the apps API answers
    ``MCP App runtime is unavailable``)."""
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
        return JSONResponse((await settings.snapshot()).as_json())

    async def add(request: Request) -> Response:
        body = await _body(request)
        outcome = await settings.add(
            _field(body, "baseHash", str, "string"),
            _field(body, "name", str, "string"),
            _field(body, "transport", str, "string"),
            _field(body, "target", str, "string"),
        )
        return JSONResponse(outcome.as_json())

    async def toggle(request: Request) -> Response:
        body = await _body(request)
        base = _field(body, "baseHash", str, "string")
        enabled = _field(body, "enabled", bool, "boolean")
        outcome = await settings.set_enabled(base, _server_name(request, "/enabled"), enabled)
        return JSONResponse(outcome.as_json())

    async def remove(request: Request) -> Response:
        body = await _body(request)
        outcome = await settings.remove(_field(body, "baseHash", str, "string"), _server_name(request))
        return JSONResponse(outcome.as_json())

    async def replace(request: Request) -> Response:
        body = await _body(request)
        base = _field(body, "baseHash", str, "string")
        if not isinstance(body.get("mcp"), dict):
            raise HttpProblem(422, "invalid", "mcp: Invalid input: expected object")
        return JSONResponse((await settings.replace(base, body["mcp"])).as_json())

    async def run_probe(request: Request) -> Response:
        await _body(request)
        return JSONResponse(await probe(_server_name(request, "/probe")))

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[bytes]:
            last = await settings.current_hash()
            yield b": connected\n\n"
            idle = 0.0
            while not stopping():
                await anyio.sleep(POLL_SECONDS)
                digest = await settings.current_hash()
                if digest != last:
                    last = digest
                    idle = 0.0
                    yield f"event: config.changed\ndata: {json.dumps({'hash': digest})}\n\n".encode()
                else:
                    idle += POLL_SECONDS
                    if idle >= HEARTBEAT_SECONDS:
                        idle = 0.0
                        yield b": keep-alive\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream")

    def _apps_call(work: Callable[[AppsHost, dict[str, Any]], Awaitable[dict[str, Any]]]) -> Handler:
        async def run(request: Request) -> Response:
            from openclaw_mcp.entrypoints.ui.apps import AppsProblem

            body = await _body(request) if request.method == "POST" else {}
            if apps is None:
                problem = AppsProblem(409, "MCP App runtime is unavailable")
                return JSONResponse(problem.as_json(), status_code=problem.status)
            try:
                return JSONResponse(await work(apps, body))
            except AppsProblem as problem:
                return JSONResponse(problem.as_json(), status_code=problem.status)

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
        return JSONResponse({"ok": True, "enabled": False})

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
        Route("/api/mcp/servers", _api(add), methods=["POST"]),
        Route("/api/mcp/servers/{name:path}/enabled", _api(toggle), methods=["POST"]),
        Route("/api/mcp/servers/{name:path}/probe", _api(run_probe), methods=["POST"]),
        Route("/api/mcp/servers/{name:path}", _api(remove), methods=["DELETE"]),
        *app_routes,
    ]
    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed, 500: failed})
    return _Guard(app, ui)
