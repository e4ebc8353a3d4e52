"""``openclaw mcp status`` entries (spec cli-registry §3.3, §7.11); their text lines are the CLI's
(``entrypoints.cli.render.status_lines``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openclaw_mcp.domain.transport import HttpConfig, Resolution

__all__ = [
    "ServerAuthView",
    "auth_status",
    "auth_view",
    "status_entry",
]


@dataclass(frozen=True, slots=True)
class ServerAuthView:
    """How a server's OAuth credentials are looked up: ``operator`` (one store), ``per-requester``
    (principals counted under a prefix) or ``none``."""

    kind: str  # "operator" | "per-requester" | "none"
    url: str | None = None


def auth_view(server: dict[str, Any], resolution: Resolution) -> ServerAuthView:
    config = resolution.config
    if server.get("auth") != "oauth" or not isinstance(config, HttpConfig):
        return ServerAuthView("none")
    oauth = server.get("oauth")
    if isinstance(oauth, dict) and oauth.get("identity") == "per-requester":
        return ServerAuthView("per-requester", config.url)
    return ServerAuthView("operator", config.url)


def auth_status(store: dict[str, Any] | None) -> dict[str, Any]:
    """The ``authStatus`` object of one operator store (§7.11)."""
    store = store or {}
    challenge = store.get("pendingAuthorizationChallenge")
    requires = isinstance(challenge, dict) and challenge.get("requiresAuthorization") is True
    if requires:
        state = "requires-authorization"
    elif "tokens" in store:
        state = "authorized"
    elif any(
        k in store
        for k in (
            "clientInformation",
            "codeVerifier",
            "discoveryState",
            "lastAuthorizationUrl",
            "redirectUrl",
            "pendingAuthorizationChallenge",
        )
    ):
        state = "pending-authorization"
    else:
        state = "unauthenticated"
    result: dict[str, Any] = {
        "hasTokens": "tokens" in store,
        "requiresAuthorization": requires,
        "hasClientInformation": "clientInformation" in store,
        "hasCodeVerifier": "codeVerifier" in store,
        "hasDiscoveryState": "discoveryState" in store,
        "hasLastAuthorizationUrl": "lastAuthorizationUrl" in store,
        "state": state,
    }
    if state == "authorized" and "tokenExpiresAt" in store:
        result["expiresAt"] = store["tokenExpiresAt"]
    return result


def status_entry(
    name: str,
    server: dict[str, Any],
    resolution: Resolution,
    auth: dict[str, Any] | None = None,
    principals: int | None = None,
) -> dict[str, Any]:
    """One entry of ``status --json`` (fields in the reference's order, absent ones omitted)."""
    config = resolution.config
    enabled = server.get("enabled") is not False
    entry: dict[str, Any] = {
        "name": name,
        "configured": True,
        "enabled": enabled,
        "ok": enabled and config is not None,
    }
    if config is not None:
        entry["transport"] = config.transport_type
        entry["launch"] = config.description
        entry["requestTimeoutMs"] = config.request_timeout_ms
        entry["connectionTimeoutMs"] = config.connection_timeout_ms
        entry["supportsParallelToolCalls"] = config.supports_parallel_tool_calls
    if "toolFilter" in server:
        entry["toolFilter"] = server["toolFilter"]
    if "codex" in server:
        entry["codex"] = server["codex"]
    if server.get("auth"):
        entry["auth"] = server["auth"]
    if auth is not None:
        entry["authStatus"] = auth
    elif principals is not None:
        entry["connectedPrincipals"] = principals
    return entry
