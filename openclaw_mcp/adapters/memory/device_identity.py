"""An in-memory device identity store: one Ed25519 identity and a dict of device tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openclaw_mcp.adapters.device_keys import generate_device_identity
from openclaw_mcp.application.ports.gateway import DeviceIdentity
from openclaw_mcp.domain.device_scopes import normalize_device_auth_scopes

__all__ = ["InMemoryDeviceIdentityStore"]


class InMemoryDeviceIdentityStore:
    """The identity is created on first use (or given); tokens are kept per ``(device id, role)`` with their
    scopes normalised and sorted like the SQLite store. Never fails."""

    def __init__(self, identity: DeviceIdentity | None = None) -> None:
        self._identity = identity
        self._tokens: dict[tuple[str, str], tuple[str, list[str]]] = {}

    async def load_or_create_identity(self) -> DeviceIdentity:
        if self._identity is None:
            self._identity = generate_device_identity()
        return self._identity

    async def load_token(self, device_id: str, role: str) -> str | None:
        entry = self._tokens.get((device_id, role.strip()))
        return entry[0] if entry is not None else None

    async def save_token(self, device_id: str, role: str, token: str, scopes: list[str]) -> None:
        self._tokens[(device_id, role.strip())] = (token, normalize_device_auth_scopes(scopes))

    async def clear_token(self, device_id: str, role: str) -> None:
        self._tokens.pop((device_id, role.strip()), None)

    def stored_scopes(self, device_id: str, role: str) -> list[str] | None:
        """The scopes stored with the token of ``(device_id, role)`` (test inspection)."""
        entry = self._tokens.get((device_id, role.strip()))
        return list(entry[1]) if entry is not None else None


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.gateway import DeviceIdentityStore

    def _conforms(store: InMemoryDeviceIdentityStore) -> DeviceIdentityStore:
        return store
