"""The bridge's Ed25519 device identity and its Gateway device tokens in the state database (spec
serve-bridge §3.6, decision S9).

Same tables as the reference (``device_identities`` row ``primary``; ``device_auth_tokens`` keyed by device id
and role), created on demand with the reference's exact statements, so the reference and this port share one
identity on one state dir without re-pairing. Every operation is one short transaction on a fresh connection
(busy timeout 5 000 ms) in a worker thread. The private key and tokens are never logged or put in messages.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import anyio

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.adapters.device_keys import generate_device_identity, key_pair_public_bytes
from openclaw_mcp.adapters.sqlite._db import BUSY_TIMEOUT_MS, ensure_state_db
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.gateway import DeviceIdentity, GatewayError
from openclaw_mcp.domain.device_scopes import normalize_device_auth_scopes

__all__ = [
    "DEVICE_AUTH_TOKENS_SCHEMA",
    "DEVICE_IDENTITIES_SCHEMA",
    "PRIMARY_IDENTITY_KEY",
    "SqliteDeviceIdentityStore",
    "generate_device_identity",
]

PRIMARY_IDENTITY_KEY = "primary"

# The reference's statements (2026.9.6 ``OPENCLAW_STATE_SCHEMA_SQL``) byte for byte.
DEVICE_IDENTITIES_SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS device_identities (\n"
    "  identity_key TEXT NOT NULL PRIMARY KEY,\n"
    "  device_id TEXT NOT NULL,\n"
    "  public_key_pem TEXT NOT NULL,\n"
    "  private_key_pem TEXT NOT NULL,\n"
    "  created_at_ms INTEGER NOT NULL,\n"
    "  updated_at_ms INTEGER NOT NULL\n"
    ") STRICT",
    "CREATE INDEX IF NOT EXISTS idx_device_identities_device\n  ON device_identities(device_id, updated_at_ms DESC)",
)
"""``device_identities`` and its index."""

DEVICE_AUTH_TOKENS_SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS device_auth_tokens (\n"
    "  device_id TEXT NOT NULL,\n"
    "  role TEXT NOT NULL,\n"
    "  token TEXT NOT NULL,\n"
    "  scopes_json TEXT NOT NULL,\n"
    "  updated_at_ms INTEGER NOT NULL,\n"
    "  PRIMARY KEY (device_id, role)\n"
    ") STRICT",
    "CREATE INDEX IF NOT EXISTS idx_device_auth_tokens_updated\n"
    "  ON device_auth_tokens(updated_at_ms DESC, device_id, role)",
)
"""``device_auth_tokens`` and its index."""

_SCHEMA = DEVICE_IDENTITIES_SCHEMA + DEVICE_AUTH_TOKENS_SCHEMA
_DEVICE_ID = re.compile(r"[a-f0-9]{64}")
_DOCTOR = 'Run "openclaw doctor --fix" before starting the gateway or connecting this client.'
_T = TypeVar("_T")


def _identity_is_valid(identity: DeviceIdentity) -> bool:
    if not _DEVICE_ID.fullmatch(identity.device_id):
        return False
    try:
        keys = key_pair_public_bytes(identity.public_key_pem, identity.private_key_pem)
    except (ValueError, TypeError, UnicodeError):
        return False
    if keys is None:
        return False
    raw, derived = keys
    return raw == derived and hashlib.sha256(raw).hexdigest() == identity.device_id


def _state_dir_for(db_path: Path) -> Path:
    directory = db_path.absolute().parent
    return directory.parent if directory.name == "state" else directory


class SqliteDeviceIdentityStore:
    """The port's ``DeviceIdentityStore`` over ``<state>/state/openclaw.sqlite`` (``db_path``).

    Errors are ``GatewayError``: an unusable database (``device identity store unavailable: …``), an invalid
    stored identity, or a legacy ``identity/device.json`` still waiting for ``openclaw doctor --fix`` (the
    reference's messages). ``clear_token`` deletes a stored device token (the client calls it after
    ``AUTH_DEVICE_TOKEN_MISMATCH``).
    """

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        *,
        clock: Clock | None = None,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        generate: Callable[[], DeviceIdentity] = generate_device_identity,
    ) -> None:
        self._db_path = Path(os.fspath(db_path))
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._busy_timeout_ms = busy_timeout_ms
        self._generate = generate

    async def load_or_create_identity(self) -> DeviceIdentity:
        return await self._run(self._load_or_create)

    async def load_token(self, device_id: str, role: str) -> str | None:
        return await self._run(lambda conn: self._load_token(conn, device_id, role.strip()))

    async def save_token(self, device_id: str, role: str, token: str, scopes: list[str]) -> None:
        scopes_json = json.dumps(normalize_device_auth_scopes(scopes), ensure_ascii=False, separators=(",", ":"))
        await self._run(lambda conn: self._save_token(conn, device_id, role.strip(), token, scopes_json))

    async def clear_token(self, device_id: str, role: str) -> None:
        await self._run(lambda conn: self._clear_token(conn, device_id, role.strip()))

    # --- worker-thread side ---------------------------------------------------------------------------

    async def _run(self, operation: Callable[[sqlite3.Connection], _T]) -> _T:
        return await anyio.to_thread.run_sync(self._transaction, operation)

    def _transaction(self, operation: Callable[[sqlite3.Connection], _T]) -> _T:
        try:
            conn = ensure_state_db(self._db_path, _SCHEMA, busy_timeout_ms=self._busy_timeout_ms)
        except (OSError, sqlite3.Error) as exc:
            raise GatewayError(f"device identity store unavailable: {exc}") from exc
        try:
            conn.execute("BEGIN IMMEDIATE")
            result = operation(conn)
            conn.execute("COMMIT")
            return result
        except sqlite3.Error as exc:
            raise GatewayError(f"device identity store unavailable: {exc}") from exc
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.close()

    def _read_identity(self, conn: sqlite3.Connection) -> DeviceIdentity | None:
        row = conn.execute(
            "SELECT device_id, public_key_pem, private_key_pem, created_at_ms, updated_at_ms "
            "FROM device_identities WHERE identity_key = ?",
            (PRIMARY_IDENTITY_KEY,),
        ).fetchone()
        if row is None:
            return None
        device_id, public_key_pem, private_key_pem, created_at, updated_at = row
        invalid = GatewayError(
            f'SQLite contains an invalid persisted device identity "{PRIMARY_IDENTITY_KEY}". {_DOCTOR}'
        )
        if not all(isinstance(value, str) for value in (device_id, public_key_pem, private_key_pem)):
            raise invalid
        if not all(isinstance(value, int) and value >= 0 for value in (created_at, updated_at)):
            raise invalid
        identity = DeviceIdentity(device_id=device_id, public_key_pem=public_key_pem, private_key_pem=private_key_pem)
        if not _identity_is_valid(identity):
            raise invalid
        return identity

    def _check_no_legacy_identity(self) -> None:
        legacy = _state_dir_for(self._db_path) / "identity" / "device.json"
        for candidate in (legacy, Path(f"{legacy}.doctor-importing"), Path(f"{legacy}.native-importing")):
            if os.path.lexists(candidate):
                raise GatewayError(f"Legacy device identity exists at {legacy}. {_DOCTOR}")

    def _load_or_create(self, conn: sqlite3.Connection) -> DeviceIdentity:
        existing = self._read_identity(conn)
        if existing is not None:
            return existing
        self._check_no_legacy_identity()
        candidate = self._generate()
        now = self._clock.now_ms()
        conn.execute(
            "INSERT INTO device_identities "
            "(identity_key, device_id, public_key_pem, private_key_pem, created_at_ms, updated_at_ms) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (identity_key) DO NOTHING",
            (PRIMARY_IDENTITY_KEY, candidate.device_id, candidate.public_key_pem, candidate.private_key_pem, now, now),
        )
        stored = self._read_identity(conn)
        if stored is None:
            raise GatewayError(f'SQLite device identity "{PRIMARY_IDENTITY_KEY}" was not durable after insert.')
        return stored

    def _load_token(self, conn: sqlite3.Connection, device_id: str, role: str) -> str | None:
        row = conn.execute(
            "SELECT token, scopes_json FROM device_auth_tokens WHERE device_id = ? AND role = ?",
            (device_id, role),
        ).fetchone()
        if row is None:
            return None
        token, scopes_json = row
        try:
            scopes = json.loads(scopes_json)
        except (TypeError, ValueError):
            return None
        if not isinstance(scopes, list) or not isinstance(token, str):
            return None
        return token

    def _save_token(self, conn: sqlite3.Connection, device_id: str, role: str, token: str, scopes_json: str) -> None:
        conn.execute(
            "INSERT INTO device_auth_tokens (device_id, role, token, scopes_json, updated_at_ms) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (device_id, role) DO UPDATE SET "
            "token = excluded.token, scopes_json = excluded.scopes_json, updated_at_ms = excluded.updated_at_ms",
            (device_id, role, token, scopes_json, self._clock.now_ms()),
        )

    def _clear_token(self, conn: sqlite3.Connection, device_id: str, role: str) -> None:
        conn.execute("DELETE FROM device_auth_tokens WHERE device_id = ? AND role = ?", (device_id, role))


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.gateway import DeviceIdentityStore

    def _conforms(store: SqliteDeviceIdentityStore) -> DeviceIdentityStore:
        return store
