"""Where the bridge connects and with which credentials (spec serve-bridge §3.4, §3.5).

upstream: ``client-bootstrap.ts`` (``resolveGatewayClientBootstrap``), ``connection-details.ts``
(``buildGatewayConnectionDetailsWithResolvers``), ``credentials.ts`` (``resolveGatewayCredentialsFromConfig``),
``credential-planner.ts``, ``paths.ts`` (``resolveGatewayPort``), ``net.ts`` (``isSecureWebSocketUrl``),
``tls-fingerprint.ts``.

Pure: the config document (already env-substituted), the environment and the command-line values in, a
:class:`GatewayTarget` out, or :class:`~domain.gateway_url.GatewayTargetError`.

Simplifications (reported as deviations): secret references in the four credential paths are resolved only
for the ``env`` source (``{"source":"env","id":…}``, ``$NAME``, ``${NAME}``); other sources count as configured
but unavailable, and no ``GatewaySecretRefUnavailableError`` is raised. A local ``wss://`` target does not
read the Gateway's own certificate to pin it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from openclaw_mcp.domain.bridge.conversations import opt_str
from openclaw_mcp.domain.gateway_port import (
    DEFAULT_GATEWAY_PORT,
    config_section,
    first_present,
    resolve_gateway_port,
    trim_credential,
)
from openclaw_mcp.domain.gateway_url import (
    ALLOW_PRIVATE_WS_ENV,
    GatewayTargetError,
    insecure_gateway_url_message,
    is_secure_websocket_url,
)
from openclaw_mcp.jscompat.jsjson import js_number
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "DEFAULT_GATEWAY_PORT",
    "GatewayTarget",
    "resolve_gateway_port",
    "resolve_gateway_target",
]


_ENV_TEMPLATE: Final = re.compile(r"\$\{([A-Z][A-Z0-9_]{0,127})\}|\$([A-Z][A-Z0-9_]{0,127})")
_HEX_FINGERPRINT: Final = re.compile(r"[a-fA-F0-9]{64}")
_COLON_FINGERPRINT: Final = re.compile(r"(?:[a-fA-F0-9]{2}:){31}[a-fA-F0-9]{2}")


@dataclass(frozen=True, slots=True)
class GatewayTarget:
    """The resolved Gateway URL, where it came from, the credentials and the optional TLS pin."""

    url: str
    url_source: str
    token: str | None = None
    password: str | None = None
    tls_fingerprint: str | None = None


# --- port (paths.ts resolveGatewayPort) ----------------------------------------------------------------


# --- credentials (credentials.ts, credential-planner.ts) -----------------------------------------------


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
        return _Input(configured=True, value=opt_str(env.get(ref_id)))
    if _is_secret_ref(value):
        return _Input(configured=True)
    if isinstance(value, str):
        return _Input(configured=opt_str(value) is not None, value=trim_credential(value))
    return _Input()


def _config_credentials(config: Mapping[str, Any], env: Mapping[str, str]) -> tuple[str | None, str | None]:
    gateway = config_section(config, "gateway")
    auth = config_section(gateway, "auth")
    remote = config_section(gateway, "remote")
    env_token = opt_str(env.get("OPENCLAW_GATEWAY_TOKEN"))
    env_password = opt_str(env.get("OPENCLAW_GATEWAY_PASSWORD"))
    local_token = _credential_input(auth.get("token"), env)
    local_password = _credential_input(auth.get("password"), env)
    remote_token = _credential_input(remote.get("token"), env)
    remote_password = _credential_input(remote.get("password"), env)
    if gateway.get("mode") == "remote":
        token = first_present(remote_token.value, env_token, local_token.value)
        password = first_present(env_password, remote_password.value, local_password.value)
        return token, password
    password_fallback = None if auth.get("mode") == "trusted-proxy" else remote_password.value
    token = first_present(local_token.value, env_token, None if local_token.configured else remote_token.value)
    password = first_present(
        local_password.value, env_password, None if local_password.configured else password_fallback
    )
    return token, password


def _tls_fingerprint(value: object) -> str:
    text = js_trim(value) if isinstance(value, str) else ""
    text = re.sub(r"^sha256:", "", text, flags=re.IGNORECASE)
    if _HEX_FINGERPRINT.fullmatch(text):
        return text.lower()
    if _COLON_FINGERPRINT.fullmatch(text):
        return text.replace(":", "").lower()
    raise GatewayTargetError("Invalid TLS fingerprint; expected a SHA-256 certificate fingerprint.")


# --- the bootstrap ---------------------------------------------------------------------------------------


def resolve_gateway_target(
    *,
    config: Mapping[str, Any],
    env: Mapping[str, str],
    config_path: str,
    cli_url: object = None,
    explicit_token: str | None = None,
    explicit_password: str | None = None,
) -> GatewayTarget:
    """The Gateway URL (``--url`` → ``$OPENCLAW_GATEWAY_URL`` → remote config URL → local loopback) and the
    credentials sent in ``connect`` (§3.5). Raises ``GatewayTargetError`` for a plaintext ``ws://`` URL to a
    non-private host (the reference's multi-line ``SECURITY ERROR`` message) or an invalid TLS pin."""
    gateway = config_section(config, "gateway")
    override_source: str | None = None
    override = opt_str(cli_url)
    if override is not None:
        override_source = "cli"
    else:
        override = opt_str(env.get("OPENCLAW_GATEWAY_URL"))
        if override is not None:
            override_source = "env"
    remote_mode = gateway.get("mode") == "remote"
    remote_url = opt_str(config_section(gateway, "remote").get("url")) if remote_mode else None
    tls_enabled = config_section(gateway, "tls").get("enabled") is True
    port = resolve_gateway_port(config, env)
    local_url = f"{'wss' if tls_enabled else 'ws'}://127.0.0.1:{js_number(port)}"
    if override is not None:
        url = override
        source = "env OPENCLAW_GATEWAY_URL" if override_source == "env" else "cli --url"
    elif remote_url is not None:
        url, source = remote_url, "config gateway.remote.url"
    else:
        url = local_url
        source = "missing gateway.remote.url (fallback local)" if remote_mode else "local loopback"
    allow_private_ws = env.get(ALLOW_PRIVATE_WS_ENV) == "1"
    if not is_secure_websocket_url(url, allow_private_ws=allow_private_ws):
        raise GatewayTargetError(
            insecure_gateway_url_message(url, source, config_path, allow_private_ws=allow_private_ws)
        )

    fingerprint: str | None = None
    if remote_mode and source in ("config gateway.remote.url", "env OPENCLAW_GATEWAY_URL"):
        pin = config_section(gateway, "remote").get("tlsFingerprint")
        if pin:
            fingerprint = _tls_fingerprint(pin)

    token, password = opt_str(explicit_token), opt_str(explicit_password)
    if not (token or password):
        if override_source == "cli":
            token = password = None
        elif override_source == "env":
            token = opt_str(env.get("OPENCLAW_GATEWAY_TOKEN"))
            password = opt_str(env.get("OPENCLAW_GATEWAY_PASSWORD"))
        else:
            token, password = _config_credentials(config, env)
    return GatewayTarget(url=url, url_source=source, token=token, password=password, tls_fingerprint=fingerprint)
