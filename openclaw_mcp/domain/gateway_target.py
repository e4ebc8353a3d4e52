"""The one Gateway target resolver: where a Gateway connection goes and with which credentials, for
``openclaw mcp serve`` (serve-bridge.md §3.4, §3.5), its approval route, and the ``automations`` calls of
``openclaw-tools`` (openclaw-tools.md §6.3).

upstream: ``client-bootstrap.ts`` (``resolveGatewayClientBootstrap``), ``connection-details.ts``
(``buildGatewayConnectionDetailsWithResolvers``), ``credentials.ts`` (``resolveGatewayCredentialsFromConfig``),
``credential-planner.ts``, ``call.ts``, ``tls-fingerprint.ts``; the plaintext rule is
:mod:`~openclaw_mcp.domain.gateway_url`, the port :mod:`~openclaw_mcp.domain.gateway_port`.

Pure: the config document (already env-substituted), the environment, the config path and the caller's
override/explicit secrets in; a :class:`GatewayTarget` out, or :class:`GatewayTargetError`. The callers
differ only where the reference's do: serve sends no secret with a ``--url`` override that has none, a
tool call refuses such an override (``require_explicit_credentials``).

Simplifications (reported as deviations): secret references in the four credential paths are resolved only
for the ``env`` source (``{"source":"env","id":…}``, ``$NAME``, ``${NAME}``); other sources count as configured
but unavailable, and no ``GatewaySecretRefUnavailableError`` is raised. A local ``wss://`` target does not
read the Gateway's own certificate to pin it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from openclaw_mcp.domain.gateway_port import config_section, first_present, resolve_gateway_port, trim_credential
from openclaw_mcp.domain.gateway_url import (
    ALLOW_PRIVATE_WS_ENV,
    GatewayTargetError,
    insecure_gateway_url_message,
    is_secure_websocket_url,
)
from openclaw_mcp.domain.redaction import redact_sensitive_url
from openclaw_mcp.jscompat.jsjson import js_number
from openclaw_mcp.jscompat.text import js_trim, js_trim_or_none

__all__ = [
    "ConnectionDetails",
    "GatewayTarget",
    "GatewayTargetError",
    "OverrideSource",
    "TargetKind",
    "config_credentials",
    "remote_tls_fingerprint",
    "resolve_gateway_target",
]

TargetKind = Literal["local", "remote"]
OverrideSource = Literal["cli", "env"]

_ENV_TEMPLATE: Final = re.compile(r"\$\{([A-Z][A-Z0-9_]{0,127})\}|\$([A-Z][A-Z0-9_]{0,127})")
_HEX_FINGERPRINT: Final = re.compile(r"[a-fA-F0-9]{64}")
_COLON_FINGERPRINT: Final = re.compile(r"(?:[a-fA-F0-9]{2}:){31}[a-fA-F0-9]{2}")
_REMOTE_FALLBACK_NOTE: Final = (
    "Warn: gateway.mode=remote but gateway.remote.url is missing; set gateway.remote.url or switch gateway.mode=local."
)


# --- the URL (connection-details.ts) ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConnectionDetails:
    """``buildGatewayConnectionDetails``: the target URL and where it came from."""

    url: str
    source: str
    config_path: str
    bind: str | None = None
    remote_fallback_note: str | None = None

    @property
    def message(self) -> str:
        """``Gateway target`` / ``Source`` / ``Config`` / ``Bind`` / warning lines."""
        lines = [
            f"Gateway target: {redact_sensitive_url(self.url)}",
            f"Source: {self.source}",
            f"Config: {self.config_path}",
        ]
        if self.bind is not None:
            lines.append(f"Bind: {self.bind}")
        if self.remote_fallback_note is not None:
            lines.append(self.remote_fallback_note)
        return "\n".join(lines)


def _connection_details(
    config: Mapping[str, Any],
    env: Mapping[str, str],
    config_path: str,
    override: str | None,
    override_source: OverrideSource | None,
) -> ConnectionDetails:
    """The override (``cli --url`` / ``env OPENCLAW_GATEWAY_URL``) → ``gateway.remote.url`` in remote mode →
    ``ws(s)://127.0.0.1:<port>``."""
    gateway = config_section(config, "gateway")
    if override is not None:
        source = "env OPENCLAW_GATEWAY_URL" if override_source == "env" else "cli --url"
        return ConnectionDetails(url=override, source=source, config_path=config_path)
    remote_mode = gateway.get("mode") == "remote"
    remote_url = js_trim_or_none(config_section(gateway, "remote").get("url")) if remote_mode else None
    if remote_url is not None:
        return ConnectionDetails(url=remote_url, source="config gateway.remote.url", config_path=config_path)
    scheme = "wss" if config_section(gateway, "tls").get("enabled") is True else "ws"
    bind = gateway.get("bind")
    bind_text = bind if isinstance(bind, str) else "loopback"
    local_url = f"{scheme}://127.0.0.1:{js_number(resolve_gateway_port(config, env))}"
    if remote_mode:
        source, note = "missing gateway.remote.url (fallback local)", _REMOTE_FALLBACK_NOTE
        return ConnectionDetails(local_url, source, config_path, bind=bind_text, remote_fallback_note=note)
    return ConnectionDetails(url=local_url, source="local loopback", config_path=config_path, bind=bind_text)


# --- credentials (credentials.ts, credential-planner.ts) --------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Input:
    configured: bool = False
    value: str | None = None


def _env_ref_id(value: object) -> str | None:
    """The env variable an env secret reference names (``{"source":"env","id":…}``, ``$NAME``, ``${NAME}``)."""
    if isinstance(value, Mapping):
        ref_id = value.get("id")
        if value.get("source") == "env" and isinstance(ref_id, str) and js_trim(ref_id):
            return ref_id
        return None
    if isinstance(value, str):
        match = _ENV_TEMPLATE.fullmatch(js_trim(value))
        if match:
            return match.group(1) or match.group(2)
    return None


def _is_secret_ref(value: object) -> bool:
    if not isinstance(value, Mapping):
        return False
    ref_id = value.get("id")
    return value.get("source") in ("env", "file", "exec", "store") and isinstance(ref_id, str) and bool(js_trim(ref_id))


def _credential_input(value: object, env: Mapping[str, str]) -> _Input:
    ref_id = _env_ref_id(value)
    if ref_id is not None:
        return _Input(configured=True, value=js_trim_or_none(env.get(ref_id)))
    if _is_secret_ref(value):
        return _Input(configured=True)
    if isinstance(value, str):
        return _Input(configured=js_trim_or_none(value) is not None, value=trim_credential(value))
    return _Input()


def _env_credentials(env: Mapping[str, str]) -> tuple[str | None, str | None]:
    return js_trim_or_none(env.get("OPENCLAW_GATEWAY_TOKEN")), js_trim_or_none(env.get("OPENCLAW_GATEWAY_PASSWORD"))


def config_credentials(
    config: Mapping[str, Any], env: Mapping[str, str], kind: TargetKind | None = None, *, remote_only: bool = False
) -> tuple[str | None, str | None]:
    """``resolveGatewayCredentialsFromConfig`` → ``(token, password)`` for ``kind`` (default: the configured
    ``gateway.mode``): local → config beats env (the remote secrets as a fallback when the local one is not
    configured); remote → remote token > env > local, env password > remote > local, or only the remote
    secrets (``remote_only``, a tool's validated remote ``gatewayUrl``)."""
    gateway = config_section(config, "gateway")
    auth, remote = config_section(gateway, "auth"), config_section(gateway, "remote")
    env_token, env_password = _env_credentials(env)
    local_token = _credential_input(auth.get("token"), env)
    local_password = _credential_input(auth.get("password"), env)
    remote_token = _credential_input(remote.get("token"), env)
    remote_password = _credential_input(remote.get("password"), env)
    if (kind or ("remote" if gateway.get("mode") == "remote" else "local")) == "remote":
        if remote_only:
            return remote_token.value, remote_password.value
        token = first_present(remote_token.value, env_token, local_token.value)
        password = first_present(env_password, remote_password.value, local_password.value)
        return token, password
    password_fallback = None if auth.get("mode") == "trusted-proxy" else remote_password.value
    token = first_present(local_token.value, env_token, None if local_token.configured else remote_token.value)
    password = first_present(
        local_password.value, env_password, None if local_password.configured else password_fallback
    )
    return token, password


def _explicit_auth_error(source: OverrideSource, config_path: str) -> GatewayTargetError:
    hint = (
        "Set OPENCLAW_GATEWAY_TOKEN or OPENCLAW_GATEWAY_PASSWORD alongside OPENCLAW_GATEWAY_URL; "
        "config credentials are intentionally not reused."
        if source == "env"
        else "For the default local or SSH-tunneled Gateway, remove --url to use the configured target."
    )
    lines = [
        "gateway url override requires explicit credentials",
        "Fix: pass --token or --password with --url (or gatewayToken in tools).",
        hint,
        f"Config: {config_path}",
    ]
    return GatewayTargetError("\n".join(lines))


# --- the target -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GatewayTarget:
    """The resolved Gateway URL with its connection details, the credentials, and the override's source."""

    details: ConnectionDetails
    token: str | None = None
    password: str | None = None
    override_source: OverrideSource | None = None

    @property
    def url(self) -> str:
        return self.details.url

    @property
    def url_source(self) -> str:
        return self.details.source


def resolve_gateway_target(
    config: Mapping[str, Any],
    env: Mapping[str, str],
    config_path: str,
    *,
    override_url: object = None,
    explicit_token: str | None = None,
    explicit_password: str | None = None,
    require_explicit_credentials: bool = False,
) -> GatewayTarget:
    """The Gateway URL (``override_url`` → ``$OPENCLAW_GATEWAY_URL`` → remote config URL → local loopback) and
    the credentials for ``connect``: the explicit ones, else none for an override from the command line and
    the environment's for one from ``$OPENCLAW_GATEWAY_URL`` (``require_explicit_credentials``: both refused
    without), else the config's. Raises :class:`GatewayTargetError` for a plaintext ``ws://`` URL to a
    non-private host (the reference's multi-line ``SECURITY ERROR`` text) or a refused override."""
    override_source: OverrideSource | None = None
    override = js_trim_or_none(override_url)
    if override is not None:
        override_source = "cli"
    else:
        override = js_trim_or_none(env.get("OPENCLAW_GATEWAY_URL"))
        override_source = "env" if override is not None else None
    details = _connection_details(config, env, config_path, override, override_source)
    allow_private_ws = env.get(ALLOW_PRIVATE_WS_ENV) == "1"
    if not is_secure_websocket_url(details.url, allow_private_ws=allow_private_ws):
        raise GatewayTargetError(
            insecure_gateway_url_message(details.url, details.source, config_path, allow_private_ws=allow_private_ws)
        )
    token, password = js_trim_or_none(explicit_token), js_trim_or_none(explicit_password)
    if not (token or password):
        if override_source == "cli":
            if require_explicit_credentials:
                raise _explicit_auth_error("cli", config_path)
        elif override_source == "env":
            token, password = _env_credentials(env)
            if require_explicit_credentials and not (token or password):
                raise _explicit_auth_error("env", config_path)
        else:
            token, password = config_credentials(config, env)
    return GatewayTarget(details=details, token=token, password=password, override_source=override_source)


def _tls_fingerprint(value: object) -> str:
    text = js_trim(value) if isinstance(value, str) else ""
    text = re.sub(r"^sha256:", "", text, flags=re.IGNORECASE)
    if _HEX_FINGERPRINT.fullmatch(text):
        return text.lower()
    if _COLON_FINGERPRINT.fullmatch(text):
        return text.replace(":", "").lower()
    raise GatewayTargetError("Invalid TLS fingerprint; expected a SHA-256 certificate fingerprint.")


def remote_tls_fingerprint(config: Mapping[str, Any], target: GatewayTarget) -> str | None:
    """``gateway.remote.tlsFingerprint`` (normalised to lower-case hex) for a remote-mode target that came from
    the config or ``$OPENCLAW_GATEWAY_URL``; raises :class:`GatewayTargetError` for a malformed pin."""
    gateway = config_section(config, "gateway")
    if gateway.get("mode") != "remote" or target.url_source not in (
        "config gateway.remote.url",
        "env OPENCLAW_GATEWAY_URL",
    ):
        return None
    pin = config_section(gateway, "remote").get("tlsFingerprint")
    return _tls_fingerprint(pin) if pin else None
