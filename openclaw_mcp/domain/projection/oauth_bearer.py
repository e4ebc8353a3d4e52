"""OAuth bearer tokens in projected configs (spec runtime-projection §1.4)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

__all__ = ["needs_bearer", "oauth_token_env_var", "with_bearer_header"]


def oauth_token_env_var(server_name: str) -> str:
    """``OPENCLAW_MCP_AUTH_<first 12 hex of SHA-256(name), uppercased>_TOKEN``."""
    digest = hashlib.sha256(server_name.encode("utf-8")).hexdigest()[:12].upper()
    return f"OPENCLAW_MCP_AUTH_{digest}_TOKEN"


def needs_bearer(server: Mapping[str, Any]) -> bool:
    """A server whose projection carries a resolved OAuth access token: ``auth: "oauth"`` with an HTTP(S) URL
    or an auth profile."""
    if server.get("auth") != "oauth":
        return False
    oauth = server.get("oauth")
    if isinstance(oauth, dict) and isinstance(oauth.get("authProfileId"), str) and oauth["authProfileId"].strip():
        return True
    url = server.get("url")
    return isinstance(url, str) and url.strip().lower().startswith(("http://", "https://"))


def with_bearer_header(server: Mapping[str, Any], value: str) -> dict[str, Any]:
    """The server with ``Authorization: <value>`` replacing any authorization header (any case), its other string
    headers kept, and without ``auth`` / ``oauth``."""
    raw = server.get("headers")
    headers = {
        key: item
        for key, item in (raw.items() if isinstance(raw, dict) else ())
        if isinstance(item, str) and key.lower() != "authorization"
    }
    headers["Authorization"] = value
    out = {**server, "headers": headers}
    out.pop("auth", None)
    out.pop("oauth", None)
    return out
