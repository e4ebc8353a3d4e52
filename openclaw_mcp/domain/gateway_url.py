"""The reference's plaintext rule for Gateway WebSocket URLs (``isSecureWebSocketUrl``) and its refusal text,
shared by ``openclaw mcp serve`` and ``openclaw-tools``.

``wss:`` (or ``https:``) is always allowed; ``ws:`` (or ``http:``) only to a loopback or private literal,
``localhost``, a ``.local`` or ``.ts.net`` name — or, with the break-glass ``OPENCLAW_ALLOW_INSECURE_PRIVATE_WS=1``,
to any host name that is not an IP literal.
"""

from __future__ import annotations

from typing import Final

from openclaw_mcp.domain.ip_ranges import is_loopback_host, is_private_or_loopback_host, parse_canonical_ip
from openclaw_mcp.domain.redaction import redact_sensitive_url
from openclaw_mcp.jscompat.urls import parse_url

__all__ = ["ALLOW_PRIVATE_WS_ENV", "GatewayTargetError", "insecure_gateway_url_message", "is_secure_websocket_url"]

ALLOW_PRIVATE_WS_ENV: Final = "OPENCLAW_ALLOW_INSECURE_PRIVATE_WS"


class GatewayTargetError(Exception):
    """A Gateway URL, option or target that cannot be used (serve-bridge §3.4, openclaw-tools §6.3); ``str()``
    is the reference's message, ``code`` the underlying error's code, if any."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code

    @property
    def text(self) -> str:
        """The message with `` | <code>`` appended when there is a code (openclaw-tools §5)."""
        return f"{self.message} | {self.code}" if self.code else self.message


def _is_trusted_plaintext_host(hostname: str) -> bool:
    if is_private_or_loopback_host(hostname):
        return True
    return hostname.strip().lower().rstrip(".").endswith((".local", ".ts.net"))


def is_secure_websocket_url(url: str, *, allow_private_ws: bool) -> bool:
    """``isSecureWebSocketUrl(url, {allowPrivateWs})``: may credentials and chat data travel to ``url``?"""
    parsed = parse_url(url)
    if parsed is None:
        return False
    scheme = {"https": "wss", "http": "ws"}.get(parsed.scheme, parsed.scheme)
    if scheme == "wss":
        return True
    if scheme != "ws" or not parsed.hostname:
        return False
    if is_loopback_host(parsed.hostname) or _is_trusted_plaintext_host(parsed.hostname):
        return True
    return allow_private_ws and parse_canonical_ip(parsed.hostname) is None


def insecure_gateway_url_message(url: str, source: str, config_path: str, *, allow_private_ws: bool) -> str:
    """The reference's ``SECURITY ERROR`` text for a refused plaintext URL (the URL redacted)."""
    lines = [
        f'SECURITY ERROR: Gateway URL "{redact_sensitive_url(url)}" uses plaintext ws:// to a non-loopback address.',
        "Both credentials and chat data would be exposed to network interception.",
        f"Source: {source}",
        f"Config: {config_path}",
        "Fix: Use wss:// for remote gateway URLs.",
        "Safe remote access defaults:",
        "- keep gateway.bind=loopback and use an SSH tunnel (ssh -N -L 18789:127.0.0.1:18789 user@gateway-host)",
        "- or use Tailscale Serve/Funnel for HTTPS remote access",
    ]
    if not allow_private_ws:
        lines.append(f"Break-glass (trusted private networks only): set {ALLOW_PRIVATE_WS_ENV}=1")
    lines += ["Doctor: openclaw doctor --fix", "Docs: https://docs.openclaw.ai/gateway/remote"]
    return "\n".join(lines)
