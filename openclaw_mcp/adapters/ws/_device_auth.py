"""The device side of one Gateway connection's authentication: the device identity, the stored device
token (loaded for ``connect``, saved from ``hello-ok``, cleared after a mismatch) and the one-shot retry
with the device token (gateway-protocol §3.2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from openclaw_mcp.adapters.ws._handshake import (
    Challenge,
    ConnectAuth,
    build_connect_params,
    is_trusted_device_retry_endpoint,
    select_auth,
    should_retry_with_device_token,
)
from openclaw_mcp.application.ports.gateway import (
    DeviceIdentity,
    DeviceIdentityStore,
    GatewayError,
    GatewayRequestError,
    GatewaySettings,
    HelloInfo,
)

__all__ = ["DeviceAuth", "TokenClearingStore"]

_ROLE = "operator"


@runtime_checkable
class TokenClearingStore(Protocol):
    """A store that can also delete a device token (used after ``AUTH_DEVICE_TOKEN_MISMATCH``, §3.2)."""

    async def clear_token(self, device_id: str, role: str) -> None: ...


class DeviceAuth:
    """The device identity and device-token state of one connection, across its sockets."""

    def __init__(
        self,
        settings: GatewaySettings,
        store: DeviceIdentityStore,
        *,
        platform: tuple[str, str | None],
        log: Callable[[str], None],
    ) -> None:
        self._settings = settings
        self._store = store
        self._platform, self._device_family = platform
        self._log = log
        self._trusted = is_trusted_device_retry_endpoint(settings.url, settings.tls_fingerprint)
        self._identity: DeviceIdentity | None = None
        self.retry_pending = False
        """A retry with the stored device token is planned for the next ``connect``."""
        self._budget_used = False

    async def load_identity(self) -> None:
        """Load (or create) the device identity; raises ``GatewayError``."""
        self._identity = await self._store.load_or_create_identity()

    async def plan(self, challenge: Challenge) -> tuple[dict[str, Any], ConnectAuth, str | None]:
        """The ``connect`` params, the auth they carry and the stored device token; raises ``GatewayError``."""
        identity = self._identity
        assert identity is not None
        if challenge.ts is None:
            raise GatewayError("gateway connect challenge timestamp invalid")
        stored = await self._store.load_token(identity.device_id, _ROLE)
        auth = select_auth(self._settings, stored, pending_device_token_retry=self.retry_pending, trusted=self._trusted)
        try:
            params = build_connect_params(
                self._settings,
                identity,
                auth,
                challenge,
                platform=self._platform,
                device_family=self._device_family,
                role=_ROLE,
            )
        except ValueError as exc:
            raise GatewayError(str(exc)) from exc
        if self.retry_pending and auth.device_token and auth.auth and "token" in auth.auth:
            self.retry_pending = False
        return params, auth, stored

    async def on_rejected(
        self, error: GatewayRequestError, detail_code: str | None, auth: ConnectAuth | None, stored_token: str | None
    ) -> bool:
        """React to a rejected ``connect``: clear a mismatching stored token; ``True`` when the next attempt
        retries with the device token (once per readiness)."""
        if auth is not None and auth.using_stored_device_token and detail_code == "AUTH_DEVICE_TOKEN_MISMATCH":
            await self.clear_stored_token()
        if should_retry_with_device_token(
            error,
            budget_used=self._budget_used,
            current_device_token=auth.device_token if auth is not None else None,
            explicit_token=self._settings.token,
            stored_token=stored_token,
            trusted=self._trusted,
        ):
            self.retry_pending = True
            self._budget_used = True
            return True
        return False

    async def save_issued_token(self, hello: HelloInfo) -> None:
        """Save the device token ``hello-ok`` issued, if any; raises ``GatewayError``."""
        identity = self._identity
        assert identity is not None
        auth_info = hello.raw.get("auth")
        device_token = auth_info.get("deviceToken") if isinstance(auth_info, dict) else None
        if isinstance(auth_info, dict) and isinstance(device_token, str) and device_token:
            role = auth_info.get("role")
            token_role = role if isinstance(role, str) else _ROLE
            raw_scopes = auth_info.get("scopes")
            scopes = [s for s in raw_scopes if isinstance(s, str)] if isinstance(raw_scopes, list) else []
            await self._store.save_token(identity.device_id, token_role, device_token, scopes)

    def accepted(self) -> None:
        """``hello-ok`` arrived: the retry is used up and the retry budget restored."""
        self.retry_pending = False
        self._budget_used = False

    async def clear_stored_token(self) -> None:
        """Delete the stored device token (when the store can); a failure is logged."""
        identity = self._identity
        if identity is None or not isinstance(self._store, TokenClearingStore):
            return
        try:
            await self._store.clear_token(identity.device_id, _ROLE)
        except GatewayError as error:
            self._log(f"gateway client error: Error: failed clearing stale device-auth token: {error}")
