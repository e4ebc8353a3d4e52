"""The dependency-injector container: the composition root of the long-running side (``serve`` and the
embedded client runtime).

The short-lived registry CLI composes the same adapters with plain constructor calls
(``entrypoints.cli.commands.build_registry``) because importing dependency-injector costs ~70 ms of
start-up (it pulls in pydantic), which the ≥ 10× start-up target of the registry commands cannot afford.
"""

from __future__ import annotations

import time

from dependency_injector import containers, providers

from adapters.collation import UcaCollator
from adapters.filesystem.config_store import FileConfigStore
from adapters.sqlite import SqliteOAuthStatusReader
from adapters.sqlite.server_refs import SqliteServerRefs
from application.config_service import ConfigService
from application.registry import Registry, TransportWarnings

__all__ = ["Container", "WallClock"]


class WallClock:
    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


class Container(containers.DeclarativeContainer):
    """Fill ``config`` with ``config_path``, ``state_db_path``, ``include_roots`` and ``env`` (a mapping), and override
    ``warn`` with the sink for warning lines."""

    config = providers.Configuration()
    warn = providers.Object(print)
    clock = providers.Singleton(WallClock)
    collator = providers.Singleton(UcaCollator)
    config_store = providers.Singleton(FileConfigStore, config.config_path, include_roots=config.include_roots)
    oauth_status = providers.Singleton(SqliteOAuthStatusReader, config.state_db_path)
    server_refs = providers.Singleton(SqliteServerRefs, config.state_db_path)
    config_service = providers.Factory(
        ConfigService, store=config_store, env=config.env, clock=clock, warn=warn, refs=server_refs
    )
    transport_warnings = providers.Singleton(TransportWarnings, warn)
    registry = providers.Factory(
        Registry, config=config_service, oauth=oauth_status, collator=collator, warnings=transport_warnings
    )
