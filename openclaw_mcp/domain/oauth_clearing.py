"""Which OAuth credentials a config mutation retires (spec tool-policy-and-lifecycle §4.2).

When ``set``, ``configure``, ``tools`` or ``unset`` replaces an OAuth server, the credentials stored for the
server as it was are cleared: all of them when the URL changed, ``auth`` was removed, the server stopped
resolving to HTTP or became per-requester (or is gone), only the requester stores when it went from
per-requester to shared on the same URL, nothing otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openclaw_mcp.domain.names import operator_store_key
from openclaw_mcp.domain.status import ServerAuthView, auth_view
from openclaw_mcp.domain.transport import resolve_transport

__all__ = ["OAuthClearing", "replaced_oauth_clearing"]


@dataclass(frozen=True, slots=True)
class OAuthClearing:
    """Clear the operator store ``operator_key`` (when ``operator``), then every requester store under it."""

    operator_key: str
    operator: bool

    @property
    def requester_prefix(self) -> str:
        return f"{self.operator_key}-r-"


def replaced_oauth_clearing(name: str, before: object, after: object) -> OAuthClearing | None:
    """What to clear when server ``name`` goes from ``before`` to ``after`` (``None``: removed / absent)."""
    if not isinstance(before, dict):
        return None
    prev = _view(name, before)
    if prev.kind == "none" or prev.url is None:
        return None
    nxt = _view(name, after) if isinstance(after, dict) else None
    same_url = nxt is not None and nxt.kind != "none" and nxt.url == prev.url
    was_requester = prev.kind == "per-requester"
    is_requester = nxt is not None and nxt.kind == "per-requester"
    if same_url and was_requester == is_requester:
        return None
    key = operator_store_key(name, prev.url)
    return OAuthClearing(key, operator=not (same_url and was_requester))


def _view(name: str, server: dict[str, Any]) -> ServerAuthView:
    return auth_view(server, resolve_transport(name, server))
