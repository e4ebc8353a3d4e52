"""The challenge / ``connect`` handshake (spec gateway-protocol §2, §3.2): client identity, auth selection,
the v3 signed device payload, ``hello-ok`` parsing and the reconnect policy for rejections."""

from __future__ import annotations

import base64
import ipaddress
import math
import sys
import urllib.parse
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.adapters import device_keys
from openclaw_mcp.adapters.ws._frames import as_non_negative_integer, read_detail_code
from openclaw_mcp.application.ports.gateway import DeviceIdentity, GatewayRequestError, GatewaySettings, HelloInfo
from openclaw_mcp.jscompat.numbers import MAX_SAFE_INTEGER
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "CONNECT_TIMEOUT_MS",
    "DEFAULT_PREAUTH_TIMEOUT_MS",
    "PROTOCOL_VERSION",
    "Challenge",
    "ConnectAuth",
    "b64url",
    "build_connect_params",
    "device_payload_v3",
    "is_trusted_device_retry_endpoint",
    "normalize_device_metadata",
    "parse_challenge",
    "parse_hello",
    "platform_identity",
    "public_key_raw_b64url",
    "select_auth",
    "should_pause_reconnect",
    "should_retry_with_device_token",
    "sign_payload",
    "startup_retry_after_ms",
]

PROTOCOL_VERSION = 4
CONNECT_TIMEOUT_MS = 15_000
"""How long the client waits for the ``connect`` response before closing with 4000 ``connect timeout``."""

DEFAULT_PREAUTH_TIMEOUT_MS = 15_000
"""The reference's pre-auth handshake timeout (``OPENCLAW_HANDSHAKE_TIMEOUT_MS`` changes it: entrypoints.settings)."""


# --- client identity ---------------------------------------------------------------------------------


def platform_identity(platform: str | None = None) -> tuple[str, str | None]:
    """``(client.platform, client.deviceFamily)`` for a Python ``sys.platform`` value (Node's naming)."""
    name = sys.platform if platform is None else platform
    if name == "darwin":
        return "macos", "Mac"
    if name in ("win32", "cygwin"):
        return "windows", "Windows"
    if name.startswith("linux"):
        return "linux", "Linux"
    for prefix in ("freebsd", "openbsd", "netbsd", "aix", "android"):
        if name.startswith(prefix):
            return prefix, None
    if name.startswith("sunos"):
        return "sunos", None
    return name, None


def normalize_device_metadata(value: str | None) -> str:
    """Trimmed, with only ASCII ``A``–``Z`` lower-cased (the signed payload's platform / device family)."""
    if value is None:
        return ""
    trimmed = js_trim(value)
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in trimmed)


# --- timeouts -----------------------------------------------------------------------------------------


# --- challenge ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Challenge:
    nonce: str
    """Trimmed; empty when the challenge had no usable nonce."""
    ts: int | None
    """The server clock, ``None`` unless a non-negative safe integer."""


def parse_challenge(payload: Any) -> Challenge:
    record = payload if isinstance(payload, dict) else {}
    raw_nonce = record.get("nonce")
    nonce = raw_nonce.strip() if isinstance(raw_nonce, str) else ""
    ts = as_non_negative_integer(record.get("ts"))
    if ts is not None and ts > MAX_SAFE_INTEGER:
        ts = None
    return Challenge(nonce=nonce, ts=ts)


# --- auth ---------------------------------------------------------------------------------------------


def _normalized(value: str | None) -> str | None:
    if value is None:
        return None
    return value.strip() or None


@dataclass(frozen=True, slots=True)
class ConnectAuth:
    auth: dict[str, str] | None
    """The ``auth`` object sent in ``connect`` (``None``: omitted)."""
    signature_token: str | None
    """The token field of the signed payload."""
    device_token: str | None
    """The device token sent (stored or retry), if any."""
    using_stored_device_token: bool


def select_auth(
    settings: GatewaySettings, stored_token: str | None, *, pending_device_token_retry: bool, trusted: bool
) -> ConnectAuth:
    """The ``auth`` of one ``connect`` (gateway-protocol §2.4)."""
    token = _normalized(settings.token)
    password = _normalized(settings.password)
    stored = _normalized(stored_token)
    use_retry = pending_device_token_retry and bool(token and stored and trusted)
    device_token = stored if use_retry or not (token or password) else None
    auth: dict[str, str] = {}
    if token:
        auth["token"] = token
    if device_token:
        auth["deviceToken"] = device_token
    if password:
        auth["password"] = password
    return ConnectAuth(
        auth=auth or None,
        signature_token=token or device_token,
        device_token=device_token,
        using_stored_device_token=device_token is not None,
    )


def _is_loopback_host(host: str) -> bool:
    normalized = host.lower().strip()
    if normalized.rstrip(".") == "localhost":
        return True
    if normalized.startswith("[") and normalized.endswith("]"):
        normalized = normalized[1:-1]
    try:
        address = ipaddress.ip_address(normalized)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def is_trusted_device_retry_endpoint(url: str, tls_fingerprint: str | None) -> bool:
    """Loopback host, or ``wss://`` with a pinned TLS fingerprint."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return False
    scheme = {"https": "wss", "http": "ws"}.get(parts.scheme, parts.scheme)
    if parts.hostname is not None and _is_loopback_host(parts.hostname):
        return True
    return scheme == "wss" and bool(tls_fingerprint and tls_fingerprint.strip())


def should_retry_with_device_token(
    error: GatewayRequestError,
    *,
    budget_used: bool,
    current_device_token: str | None,
    explicit_token: str | None,
    stored_token: str | None,
    trusted: bool,
) -> bool:
    """Whether an ``AUTH_TOKEN_MISMATCH``-like rejection earns one retry with the stored device token."""
    if budget_used or current_device_token or not _normalized(explicit_token) or not stored_token or not trusted:
        return False
    details = error.details if isinstance(error.details, dict) else {}
    next_step = details.get("recommendedNextStep")
    return (
        details.get("canRetryWithDeviceToken") is True
        or (isinstance(next_step, str) and next_step.strip() == "retry_with_device_token")
        or read_detail_code(details) == "AUTH_TOKEN_MISMATCH"
    )


_NON_RECOVERABLE = frozenset(
    {
        "AUTH_TOKEN_MISSING",
        "AUTH_BOOTSTRAP_TOKEN_INVALID",
        "AUTH_PASSWORD_MISSING",
        "AUTH_PASSWORD_MISMATCH",
        "AUTH_RATE_LIMITED",
        "AUTH_DEVICE_TOKEN_MISMATCH",
        "AUTH_SCOPE_MISMATCH",
        "AUTH_IDENTITY_HEADER_REQUIRED",
        "AUTH_VERIFIED_USER_REQUIRED",
        "CONTROL_UI_BUILD_MISMATCH",
        "PAIRING_REQUIRED",
        "CONTROL_UI_DEVICE_IDENTITY_REQUIRED",
        "DEVICE_IDENTITY_REQUIRED",
        "PROTOCOL_MISMATCH",
        "CLIENT_VERSION_MISMATCH",
    }
)


def should_pause_reconnect(details: Any, *, device_token_retry_pending: bool) -> bool:
    """Whether a rejection stops reconnecting for good (gateway-protocol §3.2)."""
    code = read_detail_code(details)
    if code is None:
        return False
    assert isinstance(details, dict)
    if code == "PAIRING_REQUIRED":
        next_step = details.get("recommendedNextStep")
        if details.get("pauseReconnect") is False or (
            isinstance(next_step, str) and next_step.strip() == "wait_then_retry"
        ):
            return False
    if code in ("AUTH_TOKEN_MISMATCH", "AUTH_IDENTITY_HEADER_REQUIRED"):
        return not device_token_retry_pending
    return code in _NON_RECOVERABLE


def startup_retry_after_ms(error: GatewayRequestError) -> int | None:
    """The reconnect delay for a Gateway that is still starting (``UNAVAILABLE``, retryable,
    ``details.reason == "startup-sidecars"``): ``retryAfterMs`` (default 500) clamped to 100 … 2 000."""
    details = error.details
    if error.code != "UNAVAILABLE" or error.retryable is not True or not isinstance(details, dict):
        return None
    if details.get("reason") != "startup-sidecars":
        return None
    raw = error.retry_after_ms
    base = math.floor(raw) if raw is not None else 500
    return min(max(base, 100), 2_000)


# --- device signature ---------------------------------------------------------------------------------


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def public_key_raw_b64url(public_key_pem: str) -> str:
    return b64url(device_keys.public_key_raw(public_key_pem))


def sign_payload(private_key_pem: str, payload: str) -> str:
    return b64url(device_keys.sign(private_key_pem, payload.encode("utf-8")))


def device_payload_v3(
    *,
    device_id: str,
    client_id: str,
    client_mode: str,
    role: str,
    scopes: list[str],
    signed_at_ms: int,
    token: str | None,
    nonce: str,
    platform: str | None,
    device_family: str | None,
) -> str:
    """The eleven ``|``-joined fields the device signs (gateway-protocol §2.6)."""
    return "|".join(
        [
            "v3",
            device_id,
            client_id,
            client_mode,
            role,
            ",".join(scopes),
            str(signed_at_ms),
            token or "",
            nonce,
            normalize_device_metadata(platform),
            normalize_device_metadata(device_family),
        ]
    )


def build_connect_params(
    settings: GatewaySettings,
    identity: DeviceIdentity | None,
    auth: ConnectAuth,
    challenge: Challenge,
    *,
    platform: str,
    device_family: str | None,
    role: str = "operator",
    instance_id: str | None = None,
) -> dict[str, Any]:
    """The ``connect`` params, keys in the reference's order (gateway-protocol §2.2); ``client.instanceId``
    only with ``instance_id``, and no ``device`` block without ``identity`` (then ``challenge.ts`` is unused)."""
    scopes = list(settings.scopes)
    client: dict[str, Any] = {
        "id": settings.client_id,
        "displayName": settings.client_display_name,
        "version": settings.client_version,
        "platform": platform,
    }
    if device_family is not None:
        client["deviceFamily"] = device_family
    client["mode"] = settings.client_mode
    if instance_id is not None:
        client["instanceId"] = instance_id
    params: dict[str, Any] = {
        "minProtocol": PROTOCOL_VERSION,
        "maxProtocol": PROTOCOL_VERSION,
        "client": client,
        "caps": [cap for cap in settings.caps if cap != "model-catalog-snapshot"],
    }
    if auth.auth is not None:
        params["auth"] = dict(auth.auth)
    params["role"] = role
    params["scopes"] = scopes
    if identity is None:
        return params
    assert challenge.ts is not None
    payload = device_payload_v3(
        device_id=identity.device_id,
        client_id=settings.client_id,
        client_mode=settings.client_mode,
        role=role,
        scopes=scopes,
        signed_at_ms=challenge.ts,
        token=auth.signature_token,
        nonce=challenge.nonce,
        platform=platform,
        device_family=device_family,
    )
    params["device"] = {
        "id": identity.device_id,
        "publicKey": public_key_raw_b64url(identity.public_key_pem),
        "signature": sign_payload(identity.private_key_pem, payload),
        "signedAt": challenge.ts,
        "nonce": challenge.nonce,
    }
    return params


# --- hello-ok -----------------------------------------------------------------------------------------


def _string_set(value: Any) -> frozenset[str]:
    if not isinstance(value, list):
        return frozenset()
    return frozenset(item for item in value if isinstance(item, str))


def parse_hello(payload: Any) -> HelloInfo:
    """What the bridge keeps from ``hello-ok``; ``policy.tickIntervalMs`` defaults to 30 000."""
    record: dict[str, Any] = payload if isinstance(payload, dict) else {}
    features = record.get("features")
    features = features if isinstance(features, dict) else {}
    policy = record.get("policy")
    tick = policy.get("tickIntervalMs") if isinstance(policy, dict) else None
    tick_ms = 30_000
    if isinstance(tick, int | float) and not isinstance(tick, bool) and math.isfinite(tick) and tick > 0:
        tick_ms = max(1, math.floor(tick))
    return HelloInfo(
        methods=_string_set(features.get("methods")),
        events=_string_set(features.get("events")),
        tick_interval_ms=tick_ms,
        raw=record,
    )
