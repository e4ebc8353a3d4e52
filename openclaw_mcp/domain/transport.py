"""Transport resolution of one MCP server definition (spec client-runtime §1.4–§1.9).

The resolver re-checks every field and trusts no type: it accepts shapes the saved-config schema rejects
(``type`` aliases, ``workingDirectory``, unknown keys). It never logs; warnings come back as values, and the
caller decides how to print them (the registry CLI prints ``[bundle-mcp] <text>``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from openclaw_mcp.domain.envpolicy import filter_env
from openclaw_mcp.domain.redaction import redact_argv, redact_sensitive_url, redact_url_text, sanitize_for_log
from openclaw_mcp.jscompat.jsjson import js_number
from openclaw_mcp.jscompat.text import js_trim
from openclaw_mcp.jscompat.urls import parse_url

__all__ = [
    "DEFAULT_CONNECTION_TIMEOUT_MS",
    "DEFAULT_REQUEST_TIMEOUT_MS",
    "MAX_TIMER_TIMEOUT_MS",
    "HttpConfig",
    "Resolution",
    "StdioConfig",
    "TransportWarning",
    "resolve_timeout",
    "resolve_transport",
]

DEFAULT_CONNECTION_TIMEOUT_MS = 30_000
DEFAULT_REQUEST_TIMEOUT_MS = 60_000
MAX_TIMER_TIMEOUT_MS = 2_147_000_000

HttpTransportType = Literal["sse", "streamable-http"]

_ALIASES = {"http": "streamable-http", "streamable-http": "streamable-http", "sse": "sse"}


@dataclass(frozen=True, slots=True)
class TransportWarning:
    """A warning the resolution produced. ``once`` identifies warnings printed at most once per process
    (blocked env keys: ``(server name, key)``); others are printed every time."""

    text: str
    once: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class StdioConfig:
    command: str
    args: tuple[str, ...] | None
    env: dict[str, str] | None
    cwd: str | None
    description: str
    connection_timeout_ms: int
    request_timeout_ms: int
    supports_parallel_tool_calls: bool
    kind: Literal["stdio"] = "stdio"
    plugin_data_dir: str | None = None
    """The agent-format plugin's ``PLUGIN_DATA`` directory, created before the server is spawned (§10.7)."""
    ui_extension: bool = False
    """Send the MCP Apps ``extensions`` client capability on ``initialize`` (mcp-apps §2)."""

    @property
    def transport_type(self) -> Literal["stdio"]:
        return "stdio"


@dataclass(frozen=True, slots=True)
class HttpConfig:
    transport_type: HttpTransportType
    url: str
    headers: dict[str, str] | None
    auth: Literal["oauth"] | None
    oauth: dict[str, Any] | None
    ssl_verify: bool | None
    client_cert: str | None
    client_key: str | None
    description: str
    connection_timeout_ms: int
    request_timeout_ms: int
    supports_parallel_tool_calls: bool
    kind: Literal["http"] = "http"
    ui_extension: bool = False
    """Send the MCP Apps ``extensions`` client capability on ``initialize`` (mcp-apps §2)."""


@dataclass(frozen=True, slots=True)
class Resolution:
    """The outcome: a config, or ``None`` (the server is skipped), plus the warnings to print in order."""

    config: StdioConfig | HttpConfig | None
    warnings: tuple[TransportWarning, ...] = field(default=())


def resolve_timeout(value: object, default: int) -> int:
    """A positive finite number floored to ≥ 1 and capped at ``MAX_TIMER_TIMEOUT_MS``; else ``default``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    if not math.isfinite(value) or value <= 0:
        return default
    return int(min(max(math.floor(value), 1), MAX_TIMER_TIMEOUT_MS))


def _trimmed_string(value: object) -> str:
    return js_trim(value) if isinstance(value, str) else ""


def _common(raw: Mapping[str, Any]) -> tuple[int, int, bool]:
    parallel = raw.get("supportsParallelToolCalls")
    return (
        resolve_timeout(raw.get("connectionTimeoutMs"), DEFAULT_CONNECTION_TIMEOUT_MS),
        resolve_timeout(raw.get("requestTimeoutMs"), DEFAULT_REQUEST_TIMEOUT_MS),
        parallel is True,
    )


def _stdio(name: str, raw: object, warnings: list[TransportWarning]) -> StdioConfig | str:
    if not isinstance(raw, Mapping):
        return "server config must be an object"
    command = raw.get("command")
    if not isinstance(command, str) or not js_trim(command):
        return "not a stdio server (has url)" if _trimmed_string(raw.get("url")) else "its command is missing"
    raw_args = raw.get("args")
    args = tuple(a for a in raw_args if isinstance(a, str)) if isinstance(raw_args, list) else None

    def report(key: str) -> None:
        warnings.append(
            TransportWarning(
                f'server "{sanitize_for_log(name)}": env "{sanitize_for_log(key)}" is blocked for stdio '
                "startup safety and was ignored.",
                once=(name, key),
            )
        )

    env = filter_env(raw.get("env"), report)
    cwd: str | None = None
    for key in ("cwd", "workingDirectory"):
        value = raw.get(key)
        if isinstance(value, str) and js_trim(value):
            cwd = value
            break
    description = command
    if args:
        description += " " + " ".join(redact_argv(args))
    if cwd is not None:
        description += f" (cwd={cwd})"
    connect, request, parallel = _common(raw)
    return StdioConfig(command, args, env, cwd, description, connect, request, parallel)


def _headers(name: str, raw: object, warnings: list[TransportWarning]) -> dict[str, str] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        warnings.append(TransportWarning(f'server "{name}": "headers" must be a JSON object; the value was ignored.'))
        return None
    headers: dict[str, str] = {}
    for key, value in raw.items():
        if isinstance(value, str):
            headers[key] = value
        elif isinstance(value, bool | int | float):
            headers[key] = js_number(value)
        else:
            warnings.append(
                TransportWarning(f'server "{name}": header "{key}" has an unsupported value type and was ignored.')
            )
    return headers or None


def _http(
    name: str, raw: object, transport_type: HttpTransportType, warnings: list[TransportWarning]
) -> HttpConfig | str:
    if not isinstance(raw, Mapping):
        return "server config must be an object"
    url = _trimmed_string(raw.get("url"))
    if not url:
        return "its url is missing"
    parsed = parse_url(url)
    if parsed is None:
        return f"its url is not a valid URL: {redact_url_text(url)}"
    if parsed.protocol not in ("http:", "https:"):
        return f"only http and https URLs are supported, got {parsed.protocol}"
    local: list[TransportWarning] = []
    headers = _headers(name, raw.get("headers"), local)
    warnings.extend(local)
    oauth = raw.get("oauth")
    ssl_verify = raw.get("sslVerify")
    connect, request, parallel = _common(raw)
    return HttpConfig(
        transport_type=transport_type,
        url=url,
        headers=headers,
        auth="oauth" if raw.get("auth") == "oauth" else None,
        oauth=dict(oauth) if isinstance(oauth, Mapping) else None,
        ssl_verify=ssl_verify if isinstance(ssl_verify, bool) else None,
        client_cert=_trimmed_string(raw.get("clientCert")) or None,
        client_key=_trimmed_string(raw.get("clientKey")) or None,
        description=redact_sensitive_url(url),
        connection_timeout_ms=connect,
        request_timeout_ms=request,
        supports_parallel_tool_calls=parallel,
    )


def resolve_transport(name: str, raw: object) -> Resolution:
    """Resolve server ``name``'s raw definition to a stdio or HTTP config (``None`` when unusable)."""
    warnings: list[TransportWarning] = []
    requested = ""
    alias = ""
    if isinstance(raw, Mapping):
        requested = _trimmed_string(raw.get("transport")).lower()
        if not requested:
            alias = _ALIASES.get(_trimmed_string(raw.get("type")).lower(), "")
    effective = requested or alias
    stdio = _stdio(name, raw, warnings)
    if isinstance(stdio, StdioConfig):
        return Resolution(stdio, tuple(warnings))
    if effective and effective not in ("sse", "streamable-http"):
        text = (
            f'skipped server "{sanitize_for_log(name)}" because transport '
            f'"{sanitize_for_log(effective)}" is not supported.'
        )
        return Resolution(None, (*warnings, TransportWarning(text)))
    http = _http(name, raw, "streamable-http" if effective == "streamable-http" else "sse", warnings)
    if isinstance(http, HttpConfig):
        return Resolution(http, tuple(warnings))
    text = f'skipped server "{sanitize_for_log(name)}" because {stdio} and {http}.'
    return Resolution(None, (*warnings, TransportWarning(text)))
