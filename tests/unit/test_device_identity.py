"""Device identity stores (spec serve-bridge §3.6, decision S9): the SQLite one over the reference's tables
in ``<state>/state/openclaw.sqlite``, and the in-memory one."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from openclaw_mcp.adapters.memory.device_identity import InMemoryDeviceIdentityStore
from openclaw_mcp.adapters.sqlite.device_identity import SqliteDeviceIdentityStore
from openclaw_mcp.application.ports.gateway import DeviceIdentityStore, GatewayError
from openclaw_mcp.domain.device_scopes import normalize_device_auth_scopes

pytestmark = pytest.mark.asyncio

EPOCH = 1_767_225_600_000

# An identity created by the reference (2026.9.6 ``loadOrCreateDeviceIdentity``, node 24) in a scratch
# state dir: its PEM forms are what the reference stores.
REFERENCE_DEVICE_ID = "b2e925467928f2a67f8f53120762852f32a4836dc8f59c81b8bb111a0fab5291"
REFERENCE_PUBLIC_PEM = (
    "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAQwlW9vbVp/9EKXUCkul7KGHQ+ZtOl3eOwM1w2ozT/0g=\n"
    "-----END PUBLIC KEY-----\n"
)
REFERENCE_PRIVATE_PEM = (
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIF7KoA4urcbVM7zlOXl4rlJOOx+m84oedHcQsDiyNjry\n"
    "-----END PRIVATE KEY-----\n"
)

# ``sqlite_master.sql`` of the two tables and their indices in a database the reference created.
REFERENCE_SCHEMA = {
    "device_identities": (
        "CREATE TABLE device_identities (\n"
        "  identity_key TEXT NOT NULL PRIMARY KEY,\n"
        "  device_id TEXT NOT NULL,\n"
        "  public_key_pem TEXT NOT NULL,\n"
        "  private_key_pem TEXT NOT NULL,\n"
        "  created_at_ms INTEGER NOT NULL,\n"
        "  updated_at_ms INTEGER NOT NULL\n"
        ") STRICT"
    ),
    "idx_device_identities_device": (
        "CREATE INDEX idx_device_identities_device\n  ON device_identities(device_id, updated_at_ms DESC)"
    ),
    "device_auth_tokens": (
        "CREATE TABLE device_auth_tokens (\n"
        "  device_id TEXT NOT NULL,\n"
        "  role TEXT NOT NULL,\n"
        "  token TEXT NOT NULL,\n"
        "  scopes_json TEXT NOT NULL,\n"
        "  updated_at_ms INTEGER NOT NULL,\n"
        "  PRIMARY KEY (device_id, role)\n"
        ") STRICT"
    ),
    "idx_device_auth_tokens_updated": (
        "CREATE INDEX idx_device_auth_tokens_updated\n  ON device_auth_tokens(updated_at_ms DESC, device_id, role)"
    ),
}
DOCTOR = 'Run "openclaw doctor --fix" before starting the gateway or connecting this client.'


class Clock:
    def __init__(self, now_ms: int = EPOCH) -> None:
        self.value = now_ms

    def now_ms(self) -> int:
        return self.value


def db_path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "state" / "openclaw.sqlite"


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


StoreFactory = Callable[[Path], DeviceIdentityStore]


@pytest.fixture(
    params=[
        pytest.param(lambda tmp: InMemoryDeviceIdentityStore(), id="memory"),
        pytest.param(lambda tmp: SqliteDeviceIdentityStore(db_path(tmp)), id="sqlite"),
    ]
)
def make_store(request: pytest.FixtureRequest) -> StoreFactory:
    factory: StoreFactory = request.param
    return factory


# --- both stores ---------------------------------------------------------------------------------------


async def test_the_identity_is_an_ed25519_key_pair_named_by_its_public_key(
    make_store: StoreFactory, tmp_path: Path
) -> None:
    store = make_store(tmp_path)
    with anyio.fail_after(5):
        identity = await store.load_or_create_identity()
        assert await store.load_or_create_identity() == identity
    public_key = serialization.load_pem_public_key(identity.public_key_pem.encode())
    private_key = serialization.load_pem_private_key(identity.private_key_pem.encode(), password=None)
    assert isinstance(public_key, Ed25519PublicKey) and isinstance(private_key, Ed25519PrivateKey)
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    assert identity.device_id == hashlib.sha256(raw).hexdigest()
    assert identity.public_key_pem.startswith("-----BEGIN PUBLIC KEY-----\n")
    assert identity.public_key_pem.endswith("\n-----END PUBLIC KEY-----\n")
    assert identity.private_key_pem.startswith("-----BEGIN PRIVATE KEY-----\n")
    assert identity.private_key_pem.endswith("\n-----END PRIVATE KEY-----\n")


async def test_a_saved_token_replaces_the_previous_one_for_its_device_and_role(
    make_store: StoreFactory, tmp_path: Path
) -> None:
    store = make_store(tmp_path)
    with anyio.fail_after(5):
        assert await store.load_token("device-a", "operator") is None
        await store.save_token("device-a", "operator", "first", ["operator.read"])
        await store.save_token("device-a", "operator", "second", ["operator.read", "operator.write"])
        await store.save_token("device-a", "node", "node-token", [])
        await store.save_token("device-b", "operator", "other", [])
        assert await store.load_token("device-a", "operator") == "second"
        assert await store.load_token("device-a", " operator ") == "second"
        assert await store.load_token("device-a", "node") == "node-token"
        assert await store.load_token("device-b", "operator") == "other"
        assert await store.load_token("device-c", "operator") is None


# --- SQLite --------------------------------------------------------------------------------------------


async def test_the_identity_survives_a_new_store_on_the_same_state_dir(tmp_path: Path) -> None:
    with anyio.fail_after(5):
        first = await SqliteDeviceIdentityStore(db_path(tmp_path), clock=Clock()).load_or_create_identity()
        again = await SqliteDeviceIdentityStore(db_path(tmp_path), clock=Clock(EPOCH + 5)).load_or_create_identity()
    assert again == first
    assert rows(db_path(tmp_path), "SELECT * FROM device_identities") == [
        ("primary", first.device_id, first.public_key_pem, first.private_key_pem, EPOCH, EPOCH)
    ]


async def test_only_the_two_reference_tables_are_created_private_to_the_owner(tmp_path: Path) -> None:
    path = db_path(tmp_path)
    with anyio.fail_after(5):
        await SqliteDeviceIdentityStore(path).load_or_create_identity()
    schema = rows(path, "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
    assert dict(schema) == REFERENCE_SCHEMA
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert rows(path, "PRAGMA journal_mode") == [("wal",)]


async def test_token_rows_keep_normalised_sorted_scopes_and_the_write_time(tmp_path: Path) -> None:
    path = db_path(tmp_path)
    clock = Clock()
    store = SqliteDeviceIdentityStore(path, clock=clock)
    with anyio.fail_after(5):
        await store.save_token("dev", "operator", "t1", ["operator.write", " operator.approvals ", "operator.write"])
        clock.value += 10
        await store.save_token("dev", " node ", "t2", ["operator.admin", ""])
    assert rows(path, "SELECT * FROM device_auth_tokens ORDER BY role") == [
        ("dev", "node", "t2", '["operator.admin","operator.read","operator.write"]', EPOCH + 10),
        ("dev", "operator", "t1", '["operator.approvals","operator.read","operator.write"]', EPOCH),
    ]


async def test_a_token_row_with_unreadable_scopes_reads_as_absent(tmp_path: Path) -> None:
    path = db_path(tmp_path)
    store = SqliteDeviceIdentityStore(path)
    with anyio.fail_after(5):
        await store.save_token("dev", "operator", "t1", [])
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE device_auth_tokens SET scopes_json = '{oops'")
        assert await store.load_token("dev", "operator") is None
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE device_auth_tokens SET scopes_json = '{}'")
        assert await store.load_token("dev", "operator") is None


async def test_clear_token_deletes_only_that_token(tmp_path: Path) -> None:
    store = SqliteDeviceIdentityStore(db_path(tmp_path))
    with anyio.fail_after(5):
        await store.save_token("dev", "operator", "t1", [])
        await store.save_token("dev", "node", "t2", [])
        await store.clear_token("dev", "operator")
        assert await store.load_token("dev", "operator") is None
        assert await store.load_token("dev", "node") == "t2"


async def test_an_identity_written_by_the_reference_is_used_as_is(tmp_path: Path) -> None:
    path = db_path(tmp_path)
    store = SqliteDeviceIdentityStore(path)
    with anyio.fail_after(5):
        await store.load_token("x", "operator")  # creates the tables
        with sqlite3.connect(path) as conn:
            conn.execute(
                "INSERT INTO device_identities VALUES ('primary', ?, ?, ?, ?, ?)",
                (REFERENCE_DEVICE_ID, REFERENCE_PUBLIC_PEM, REFERENCE_PRIVATE_PEM, EPOCH, EPOCH),
            )
        identity = await store.load_or_create_identity()
    assert (identity.device_id, identity.public_key_pem, identity.private_key_pem) == (
        REFERENCE_DEVICE_ID,
        REFERENCE_PUBLIC_PEM,
        REFERENCE_PRIVATE_PEM,
    )


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("device_id", "0" * 64),
        ("device_id", REFERENCE_DEVICE_ID.upper()),
        ("public_key_pem", "not a key"),
        (
            "private_key_pem",
            Ed25519PrivateKey.generate()
            .private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
            .decode(),
        ),
        ("created_at_ms", -1),
    ],
)
async def test_an_invalid_stored_identity_is_refused_with_the_doctor_hint(
    tmp_path: Path, column: str, value: object
) -> None:
    path = db_path(tmp_path)
    store = SqliteDeviceIdentityStore(path)
    with anyio.fail_after(5):
        await store.load_token("x", "operator")
        with sqlite3.connect(path) as conn:
            conn.execute(
                "INSERT INTO device_identities VALUES ('primary', ?, ?, ?, ?, ?)",
                (REFERENCE_DEVICE_ID, REFERENCE_PUBLIC_PEM, REFERENCE_PRIVATE_PEM, EPOCH, EPOCH),
            )
            conn.execute(f"UPDATE device_identities SET {column} = ?", (value,))
        with pytest.raises(GatewayError) as caught:
            await store.load_or_create_identity()
    assert str(caught.value) == f'SQLite contains an invalid persisted device identity "primary". {DOCTOR}'


async def test_a_legacy_identity_file_blocks_creating_a_new_identity(tmp_path: Path) -> None:
    legacy = tmp_path / "state" / "identity" / "device.json"
    legacy.parent.mkdir(parents=True)
    legacy.write_text("{}")
    with anyio.fail_after(5), pytest.raises(GatewayError) as caught:
        await SqliteDeviceIdentityStore(db_path(tmp_path)).load_or_create_identity()
    assert str(caught.value) == f"Legacy device identity exists at {legacy}. {DOCTOR}"
    assert rows(db_path(tmp_path), "SELECT count(*) FROM device_identities") == [(0,)]


async def test_an_unusable_database_is_a_gateway_error(tmp_path: Path) -> None:
    path = db_path(tmp_path)
    path.mkdir(parents=True)
    with anyio.fail_after(5), pytest.raises(GatewayError, match=r"^device identity store unavailable: ") as caught:
        await SqliteDeviceIdentityStore(path).load_or_create_identity()
    assert isinstance(caught.value.__cause__, sqlite3.Error | OSError)


async def test_scopes_are_normalised_like_the_reference() -> None:
    assert normalize_device_auth_scopes([" b ", "a", "b", 1, ""]) == ["a", "b"]
    assert normalize_device_auth_scopes(["operator.admin"]) == ["operator.admin", "operator.read", "operator.write"]
    assert normalize_device_auth_scopes(["operator.write"]) == ["operator.read", "operator.write"]
    assert json.dumps(normalize_device_auth_scopes(["Z", "a", "_"]), separators=(",", ":")) == '["Z","_","a"]'
