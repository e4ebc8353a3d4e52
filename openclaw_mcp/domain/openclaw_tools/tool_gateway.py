"""Where an ``automations`` Gateway call goes, with which secret, and what its failures say
(spec openclaw-tools.md §5, §6.3).

upstream: ``src/agents/tools/gateway.ts`` (``canonicalizeToolGatewayWsUrl``,
``validateGatewayUrlOverrideForAgentTools``, ``resolveGatewayOptions``), ``src/gateway/call.ts``,
``client-bootstrap.ts``, ``connection-details.ts``, ``credentials.ts``, ``paths.ts``.

Two stages, both pure (the config document, the environment and the config path in):

1. :func:`resolve_tool_gateway` — the tool's own options: ``gatewayUrl`` validated and allowed only for the
   loopback port or ``gateway.remote.url`` (§6.3), the explicit token, and whether the target is local.
2. :func:`resolve_call_target` — the one-shot call through the one Gateway target resolver
   (:mod:`openclaw_mcp.domain.gateway_target`, shared with ``openclaw mcp serve``) with the tool call's rules
   (an override needs explicit credentials, remote mode needs ``gateway.remote.url``), and whether a device
   identity signs ``connect``.

Failures are :class:`GatewayTargetError` (message, optional ``code``: the tool error text appends
`` | <code>``, §5). Simplifications: those of the shared resolver (secret references only from ``env``),
``gateway.tailscale`` and ``gateway.controlUi`` are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from openclaw_mcp.domain.gateway_port import (
    DEFAULT_GATEWAY_PORT,
    config_section,
    first_present,
    resolve_gateway_port,
    trim_credential,
)
from openclaw_mcp.domain.gateway_target import (
    ConnectionDetails,
    GatewayTargetError,
    TargetKind,
    config_credentials,
    resolve_gateway_target,
)
from openclaw_mcp.domain.ip_ranges import is_loopback_host
from openclaw_mcp.domain.redaction import redact_sensitive_url
from openclaw_mcp.jscompat.jsjson import js_number
from openclaw_mcp.jscompat.text import js_trim, js_trim_or_none
from openclaw_mcp.jscompat.urls import parse_url

__all__ = [
    "DEFAULT_GATEWAY_PORT",
    "CallTarget",
    "ConnectionDetails",
    "GatewayTargetError",
    "TargetKind",
    "ToolGateway",
    "closed_message",
    "credentials_required_message",
    "is_unreachable_code",
    "resolve_call_target",
    "resolve_gateway_port",
    "resolve_tool_gateway",
    "timeout_message",
    "unreachable_message",
]

UNREACHABLE_CODES: Final = frozenset(
    {"ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "ETIMEDOUT"}
)

# --- gatewayUrl validation (gateway.ts) -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _CanonicalUrl:
    origin: str
    key: str


def _canonicalize(raw: str) -> _CanonicalUrl:
    """``canonicalizeToolGatewayWsUrl``: the §6.3 checks, in the reference's order."""
    text = js_trim(raw)
    url = parse_url(text)
    if url is None:
        raise GatewayTargetError(f"invalid gatewayUrl: {text} (Invalid URL)", code="ERR_INVALID_URL")
    if url.scheme not in ("ws", "wss"):
        raise GatewayTargetError(f"invalid gatewayUrl protocol: {url.protocol} (expected ws:// or wss://)")
    if url.username or url.password:
        raise GatewayTargetError("invalid gatewayUrl: credentials are not allowed")
    if url.search or url.hash:
        raise GatewayTargetError("invalid gatewayUrl: query/hash not allowed")
    if url.pathname not in ("", "/"):
        raise GatewayTargetError("invalid gatewayUrl: path not allowed")
    origin = f"{url.scheme}://{url.host}"
    return _CanonicalUrl(origin=origin, key=f"{url.protocol}//{url.host.lower()}")


def _override_rejected(port: int | float) -> GatewayTargetError:
    return GatewayTargetError(
        "gatewayUrl override rejected. "
        f"Allowed: ws(s) loopback on port {js_number(port)} (127.0.0.1/localhost/[::1]) "
        "Or: configure gateway.remote.url and omit gatewayUrl to use the configured remote gateway."
    )


def _remote_key(config: Mapping[str, Any]) -> str | None:
    remote_url = js_trim_or_none(config_section(config_section(config, "gateway"), "remote").get("url"))
    if remote_url is None:
        return None
    try:
        return _canonicalize(remote_url).key
    except GatewayTargetError:
        return None


def _validate_override(raw: str, config: Mapping[str, Any], env: Mapping[str, str]) -> tuple[str, TargetKind]:
    """``validateGatewayUrlOverrideForAgentTools``: the origin and the target it names, or the rejection."""
    port = resolve_gateway_port(config, env)
    port_text = js_number(port)
    local_keys = {
        f"{scheme}://{host}:{port_text}" for scheme in ("ws", "wss") for host in ("127.0.0.1", "localhost", "[::1]")
    }
    parsed = _canonicalize(raw)
    if parsed.key in local_keys:
        return parsed.origin, "local"
    remote = _remote_key(config)
    if remote is not None and parsed.key == remote:
        return parsed.origin, "remote"
    raise _override_rejected(port)


# --- auth mode (auth.ts) ---------------------------------------------------------------------------------


def _auth_mode(config: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """``resolveGatewayAuth(...).mode``: the configured mode, else ``password`` when a password resolves
    (config first, then env), else ``token``."""
    auth = config_section(config_section(config, "gateway"), "auth")
    mode = auth.get("mode")
    if isinstance(mode, str) and mode:
        return mode
    password = first_present(
        trim_credential(auth.get("password")), js_trim_or_none(env.get("OPENCLAW_GATEWAY_PASSWORD"))
    )
    return "password" if password else "token"


def _allows_tailscale(config: Mapping[str, Any], mode: str) -> bool:
    """``allowTailscale``: configured, else Tailscale ``serve`` with a token-style mode."""
    gateway = config_section(config, "gateway")
    configured = config_section(gateway, "auth").get("allowTailscale")
    if configured is not None:
        return bool(configured)
    return config_section(gateway, "tailscale").get("mode") == "serve" and mode not in ("password", "trusted-proxy")


# --- stage 1: the tool's options --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolGateway:
    """``resolveGatewayOptions``: the validated ``gatewayUrl`` origin, the token to send and the target."""

    url: str | None
    token: str | None
    target: TargetKind
    explicit: bool
    """``gatewayUrl`` or ``gatewayToken`` was given (identity-gated calls then need the trusted context)."""


def _default_target(config: Mapping[str, Any], env: Mapping[str, str]) -> TargetKind:
    if js_trim_or_none(env.get("OPENCLAW_GATEWAY_URL")) is not None:
        return "remote"
    gateway = config_section(config, "gateway")
    if gateway.get("mode") == "remote" and js_trim_or_none(config_section(gateway, "remote").get("url")) is not None:
        return "remote"
    return "local"


def resolve_tool_gateway(
    config: Mapping[str, Any], env: Mapping[str, str], gateway_url: str | None, gateway_token: str | None
) -> ToolGateway:
    """Stage 1 (§6.3): a non-blank ``gatewayUrl`` is validated (raises :class:`GatewayTargetError`); with an
    allowed override the token is ``gatewayToken``, else the config's secret for that target."""
    explicit_token = js_trim_or_none(gateway_token)
    explicit = explicit_token is not None
    if js_trim_or_none(gateway_url) is None:
        return ToolGateway(url=None, token=explicit_token, target=_default_target(config, env), explicit=explicit)
    assert gateway_url is not None
    origin, target = _validate_override(gateway_url, config, env)
    token = explicit_token or config_credentials(config, env, target, remote_only=target == "remote")[0]
    return ToolGateway(url=origin, token=token, target=target, explicit=True)


# --- stage 2: the call (call.ts, client-bootstrap.ts, connection-details.ts) -------------------------------


@dataclass(frozen=True, slots=True)
class CallTarget:
    """Where the call goes: URL, secrets, connection details; ``needs_device`` when ``connect`` must carry the
    device identity (not a loopback target with the secret its auth mode needs); ``missing_credentials`` when
    the auth mode needs a secret none resolved (a stored device token may still do)."""

    url: str
    token: str | None
    password: str | None
    details: ConnectionDetails
    needs_device: bool
    missing_credentials: bool


def _is_loopback_url(url: str) -> bool:
    parsed = parse_url(url)
    return parsed is not None and parsed.hostname is not None and is_loopback_host(parsed.hostname)


def resolve_call_target(
    config: Mapping[str, Any], env: Mapping[str, str], config_path: str, tool: ToolGateway
) -> CallTarget:
    """Stage 2 (§6.3): raises :class:`GatewayTargetError` for a plaintext non-loopback ``ws://`` URL, an
    override without explicit credentials, or remote mode without ``gateway.remote.url``."""
    target = resolve_gateway_target(
        config, env, config_path, override_url=tool.url, explicit_token=tool.token, require_explicit_credentials=True
    )
    gateway = config_section(config, "gateway")
    if (
        gateway.get("mode") == "remote"
        and target.override_source is None
        and js_trim_or_none(config_section(gateway, "remote").get("url")) is None
    ):
        raise GatewayTargetError(
            "\n".join(
                [
                    "gateway remote mode misconfigured: gateway.remote.url missing",
                    f"Config: {config_path}",
                    "Fix: set gateway.remote.url, or set gateway.mode=local.",
                ]
            )
        )
    mode = _auth_mode(config, env)
    shared = (mode == "token" and bool(target.token)) or (mode == "password" and bool(target.password))
    return CallTarget(
        url=target.url,
        token=target.token,
        password=target.password,
        details=target.details,
        needs_device=not (shared and _is_loopback_url(target.url)),
        missing_credentials=mode in ("token", "password")
        and not (target.token or target.password)
        and not _allows_tailscale(config, mode),
    )


# --- failure texts (§6.3 table) ---------------------------------------------------------------------------


def credentials_required_message(method: str, config_path: str) -> str:
    """No secret for a token/password Gateway."""
    return "\n".join(
        [
            f"gateway {method} requires credentials before opening a websocket",
            "Fix: configure gateway.auth token/password, pair this device, or pass --token/--password.",
            f"Config: {config_path}",
        ]
    )


def unreachable_message(details: ConnectionDetails, code: str) -> str:
    """The socket could not be opened (``ECONNREFUSED`` and the other unreachable codes)."""
    return "\n".join(
        [
            f"Gateway not reachable at {redact_sensitive_url(details.url)} ({code}).",
            "Start it with `openclaw gateway run` or check `openclaw gateway status`.",
            details.message,
        ]
    )


def is_unreachable_code(code: str) -> bool:
    """Codes the reference rewrites into :func:`unreachable_message`."""
    return code in UNREACHABLE_CODES


def timeout_message(timeout_ms: int, details: ConnectionDetails) -> str:
    """No answer within ``timeoutMs``."""
    return f"gateway timeout after {timeout_ms}ms\n{details.message}"


def closed_message(reason: str, details: ConnectionDetails) -> str:
    """The socket closed before the answer: the port's ``gateway closed (…): …`` line and the details."""
    return f"{reason}\n{details.message}"
