"""The registry's composition without a container: plain factory functions that build the adapters and
use cases from the environment (config path, state database, include roots — ``adapters.filesystem.paths``).

The dependency-injector container (``entrypoints.containers``) builds the same adapters through the
path-level factories here (:func:`file_config_store`, :func:`oauth_status_at`, :func:`server_refs_at`,
:func:`collator`, :func:`clock`), so each adapter is constructed in one place. The registry CLI calls the
factories directly; it does not use the container because importing ``dependency_injector`` also imports
asyncio and pydantic, which the commands that do not connect (``list``, ``show``, ``status``, ``set`` …)
cannot afford at start-up. For the same reason the modules of adapters that need anyio (leases, OAuth
credentials) are imported inside the functions that build them — every adapter module is, so that the container can
delegate to these factories without paying for adapters it never builds.

``inline=True`` composes adapters that never suspend: the caller drives the coroutines with
``entrypoints.cli.inline.run_inline`` (one process, one task, no event loop).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

from openclaw_mcp.adapters.filesystem.paths import resolve_config_path, resolve_home, resolve_state_db_path

if TYPE_CHECKING:
    from openclaw_mcp.adapters.clock import SystemClock
    from openclaw_mcp.adapters.collation import UcaCollator
    from openclaw_mcp.adapters.filesystem.config_store import FileConfigStore
    from openclaw_mcp.adapters.filesystem.foreign_files import FileForeignFiles
    from openclaw_mcp.adapters.filesystem.host_files import OsHostFiles
    from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore
    from openclaw_mcp.adapters.sqlite.oauth_status import SqliteOAuthStatusReader
    from openclaw_mcp.adapters.sqlite.oauth_store import SqliteOAuthCredentialStore
    from openclaw_mcp.adapters.sqlite.server_refs import SqliteServerRefs
    from openclaw_mcp.application.config_service import ConfigService, Warn
    from openclaw_mcp.application.registry import Registry

__all__ = [
    "clock",
    "collator",
    "config_service",
    "config_store",
    "credential_store",
    "file_config_store",
    "foreign_files",
    "home_dir",
    "host_files",
    "lifecycle_leases",
    "oauth_status",
    "oauth_status_at",
    "registry",
    "server_refs_at",
    "state_db_exists",
    "state_db_path",
]


def home_dir(env: Mapping[str, str]) -> str:
    """The OpenClaw home (``OPENCLAW_HOME``, ``HOME`` …), e.g. to shorten printed paths to ``~/…``."""
    return resolve_home(env)


def state_db_path(env: Mapping[str, str]) -> str:
    """The state database (``<state>/state/openclaw.sqlite``)."""
    return resolve_state_db_path(env)


def state_db_exists(env: Mapping[str, str]) -> bool:
    """Whether the state database exists (config writes then hold the per-server lifecycle lease, D5)."""
    return os.path.isfile(state_db_path(env))


def clock() -> SystemClock:
    """The wall clock."""
    from openclaw_mcp.adapters.clock import SystemClock

    return SystemClock()


def collator() -> UcaCollator:
    """Server-name order (the reference's ``localeCompare``)."""
    from openclaw_mcp.adapters.collation import UcaCollator

    return UcaCollator()


def file_config_store(path: str, include_roots: Sequence[str], *, inline: bool = False) -> FileConfigStore:
    """The config file store of ``path`` (``inline``: no task lock, blocking lock waits)."""
    from openclaw_mcp.adapters.filesystem.config_store import FileConfigStore

    return FileConfigStore(path, include_roots=include_roots, inline=inline)


def oauth_status_at(db_path: str) -> SqliteOAuthStatusReader:
    """Read-only OAuth status of the state database at ``db_path`` (never creates it)."""
    from openclaw_mcp.adapters.sqlite.oauth_status import SqliteOAuthStatusReader

    return SqliteOAuthStatusReader(db_path)


def server_refs_at(db_path: str) -> SqliteServerRefs:
    """The server references of the state database at ``db_path``."""
    from openclaw_mcp.adapters.sqlite.server_refs import SqliteServerRefs

    return SqliteServerRefs(db_path)


def config_store(env: Mapping[str, str], *, inline: bool = False) -> FileConfigStore:
    """The config file store (``OPENCLAW_CONFIG_PATH`` …, ``OPENCLAW_INCLUDE_ROOTS``)."""
    from openclaw_mcp.adapters.filesystem.includes import include_roots

    return file_config_store(resolve_config_path(env), include_roots(env), inline=inline)


def lifecycle_leases(env: Mapping[str, str]) -> SqliteLeaseStore | None:
    """The per-server lifecycle lease store, only when the state database exists (spec D5). Needs an
    event loop (imports anyio)."""
    if not state_db_exists(env):
        return None
    from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore

    return SqliteLeaseStore(state_db_path(env))


def config_service(
    env: Mapping[str, str], warn: Warn, *, inline: bool = False, lifecycle: bool = True
) -> ConfigService:
    """The config use case. ``lifecycle``: commits hold the lifecycle lease when the state database exists
    (pass False for commands that never commit; an inline composition must not need the lease)."""
    leases = lifecycle_leases(env) if lifecycle else None
    if inline and leases is not None:
        raise RuntimeError("internal error: the lifecycle lease needs an event loop; compose with inline=False")
    from openclaw_mcp.application.config_service import ConfigService

    refs = server_refs_at(state_db_path(env))
    return ConfigService(config_store(env, inline=inline), env, clock(), warn, refs, leases)


def foreign_files() -> FileForeignFiles:
    """Other MCP clients' config files (``openclaw mcp export`` / ``import``)."""
    from openclaw_mcp.adapters.filesystem.foreign_files import FileForeignFiles

    return FileForeignFiles()


def oauth_status(env: Mapping[str, str]) -> SqliteOAuthStatusReader:
    """Read-only OAuth status (never creates the database)."""
    return oauth_status_at(state_db_path(env))


def credential_store(env: Mapping[str, str]) -> SqliteOAuthCredentialStore:
    """The OAuth credential store with its lease (needs an event loop)."""
    from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore
    from openclaw_mcp.adapters.sqlite.oauth_store import SqliteOAuthCredentialStore

    path = state_db_path(env)
    return SqliteOAuthCredentialStore(path, SqliteLeaseStore(path))


def host_files() -> OsHostFiles:
    from openclaw_mcp.adapters.filesystem.host_files import OsHostFiles

    return OsHostFiles()


def registry(env: Mapping[str, str], warn: Warn, *, inline: bool = False, lifecycle: bool = True) -> Registry:
    """The registry use cases (list, show, status, set, unset, tools, configure, add, logout …)."""
    from openclaw_mcp.application.registry import Registry, TransportWarnings

    return Registry(
        config_service(env, warn, inline=inline, lifecycle=lifecycle),
        oauth_status(env),
        collator(),
        TransportWarnings(warn),
        env,
        # inline writes run only while no state database exists: then there are no credentials to clear
        credentials=None if inline else partial(credential_store, env),
    )
