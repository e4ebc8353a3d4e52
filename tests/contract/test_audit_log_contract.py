"""Contract of the ``AuditLog`` port (issue 35, docs/audit.md): must pass for every implementation.

Each factory yields a :class:`Harness`: ``make(retention, clock)`` builds logs that share one backing store (the
way several processes share one state database), ``edit``/``delete`` tamper with a stored row behind the log's
back (for SQLite: with ``sqlite3``, as a person would).
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from openclaw_mcp.adapters.memory.audit import InMemoryAuditLog, InMemoryAuditTable
from openclaw_mcp.adapters.sqlite.audit import SqliteAuditLog
from openclaw_mcp.application.ports.audit import AuditLog, AuditLogError, AuditLogUnavailable, AuditRetention
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.domain.audit import (
    GENESIS_HASH,
    AuditDecision,
    AuditQuery,
    AuditRecord,
    AuditRow,
    chain_hash,
    record_json,
)

pytestmark = pytest.mark.asyncio

EPOCH = 1_767_225_600_000  # 2026-01-01T00:00:00Z
DAY = 86_400_000


class FrozenClock:
    def __init__(self, now_ms: int = EPOCH) -> None:
        self.value = now_ms

    def now_ms(self) -> int:
        return self.value


@dataclass
class Harness:
    make: Callable[[AuditRetention | None, Clock | None], AuditLog]
    edit: Callable[[int, str], None]
    delete: Callable[[int], None]
    rows: Callable[[], list[AuditRow]]


@asynccontextmanager
async def memory_logs(tmp_path: Path) -> AsyncIterator[Harness]:
    table = InMemoryAuditTable()

    def edit(seq: int, text: str) -> None:
        index = next(i for i, row in enumerate(table.rows) if row.seq == seq)
        row = table.rows[index]
        table.rows[index] = AuditRow(row.seq, text, row.prev_hash, row.hash)

    def delete(seq: int) -> None:
        table.rows[:] = [row for row in table.rows if row.seq != seq]

    yield Harness(
        lambda retention, clock: InMemoryAuditLog(table, retention=retention, clock=clock),
        edit,
        delete,
        lambda: list(table.rows),
    )


@asynccontextmanager
async def sqlite_logs(tmp_path: Path) -> AsyncIterator[Harness]:
    db_path = tmp_path / "state" / "state" / "openclaw.sqlite"  # directories do not exist yet

    def execute(sql: str, *args: object) -> None:
        with sqlite3.connect(db_path) as conn:
            conn.execute(sql, args)

    def rows() -> list[AuditRow]:
        with sqlite3.connect(db_path) as conn:
            found = conn.execute("SELECT seq, record_json, prev_hash, hash FROM openclaw_mcp_audit ORDER BY seq")
            return [AuditRow(*row) for row in found]

    yield Harness(
        lambda retention, clock: SqliteAuditLog(db_path, retention=retention, clock=clock),
        lambda seq, text: execute("UPDATE openclaw_mcp_audit SET record_json = ? WHERE seq = ?", text, seq),
        lambda seq: execute("DELETE FROM openclaw_mcp_audit WHERE seq = ?", seq),
        rows,
    )


HarnessFactory = Callable[[Path], AbstractAsyncContextManager[Harness]]


@pytest.fixture(params=[pytest.param(memory_logs, id="memory"), pytest.param(sqlite_logs, id="sqlite")])
def audit_factory(request: pytest.FixtureRequest) -> HarnessFactory:
    factory: HarnessFactory = request.param
    return factory


def record(n: int, *, server: str = "docs", tool: str = "search", ts: int | None = None) -> AuditRecord:
    return AuditRecord(
        ts=EPOCH + n if ts is None else ts,
        server=server,
        tool=tool,
        args_digest=f"{n:064x}",
        args_preview=json.dumps({"n": n}),
        outcome="ok",
        duration_ms=n,
        result_bytes=10 * n,
        agent="main",
        session_key="agent:main:s",
        run_id=f"run-{n}",
        decision=AuditDecision(hook="allow", approval="allow-once"),
        approved_by="operator",
    )


async def test_an_empty_log_lists_nothing_and_verifies_intact(audit_factory: HarnessFactory, tmp_path: Path) -> None:
    async with audit_factory(tmp_path) as harness:
        log = harness.make(None, None)
        assert await log.query(AuditQuery()) == []
        verdict = await log.verify()
        assert (verdict.checked, verdict.first_broken) == (0, None)
    assert not (tmp_path / "state").exists()  # reading never creates the database


async def test_appends_number_records_and_read_back_oldest_first(audit_factory: HarnessFactory, tmp_path: Path) -> None:
    async with audit_factory(tmp_path) as harness:
        log = harness.make(None, None)
        seqs = [await log.append(record(n)) for n in range(1, 6)]
        assert seqs == [1, 2, 3, 4, 5]
        entries = await log.query(AuditQuery())
        assert [entry.seq for entry in entries] == seqs
        assert [entry.record for entry in entries] == [record(n) for n in range(1, 6)]


async def test_each_record_chains_from_the_previous_hash(audit_factory: HarnessFactory, tmp_path: Path) -> None:
    async with audit_factory(tmp_path) as harness:
        log = harness.make(None, None)
        for n in range(1, 4):
            await log.append(record(n))
        rows = harness.rows()
        assert rows[0].prev_hash == GENESIS_HASH
        for before, row in itertools.pairwise(rows):
            assert row.prev_hash == before.hash
        for n, row in enumerate(rows, start=1):
            assert row.record_json == record_json(record(n))
            assert row.hash == chain_hash(row.prev_hash, row.record_json)
        verdict = await log.verify()
        assert (verdict.checked, verdict.first_broken) == (3, None)


async def test_query_filters_by_server_tool_and_time_and_keeps_the_newest_limit(
    audit_factory: HarnessFactory, tmp_path: Path
) -> None:
    async with audit_factory(tmp_path) as harness:
        log = harness.make(None, None)
        for n in range(1, 9):
            await log.append(record(n, server="a" if n % 2 else "b", tool="x" if n <= 4 else "y"))
        assert [e.seq for e in await log.query(AuditQuery(server="a"))] == [1, 3, 5, 7]
        assert [e.seq for e in await log.query(AuditQuery(tool="y"))] == [5, 6, 7, 8]
        assert [e.seq for e in await log.query(AuditQuery(server="b", tool="x"))] == [2, 4]
        assert [e.seq for e in await log.query(AuditQuery(since_ms=EPOCH + 6))] == [6, 7, 8]
        assert [e.seq for e in await log.query(AuditQuery(limit=3))] == [6, 7, 8]
        assert [e.seq for e in await log.query(AuditQuery(server="a", limit=2))] == [5, 7]
        assert await log.query(AuditQuery(server="nope")) == []


async def test_an_edited_record_is_named_by_verify(audit_factory: HarnessFactory, tmp_path: Path) -> None:
    async with audit_factory(tmp_path) as harness:
        log = harness.make(None, None)
        for n in range(1, 6):
            await log.append(record(n))
        harness.edit(3, record_json(record(3)).replace('"outcome":"ok"', '"outcome":"error"'))
        verdict = await log.verify()
        assert (verdict.checked, verdict.first_broken) == (5, 3)


async def test_a_removed_record_is_named_by_the_record_after_it(audit_factory: HarnessFactory, tmp_path: Path) -> None:
    async with audit_factory(tmp_path) as harness:
        log = harness.make(None, None)
        for n in range(1, 6):
            await log.append(record(n))
        harness.delete(2)
        assert (await log.verify()).first_broken == 3
        harness.delete(1)
        assert (await log.verify()).first_broken == 3  # the chain no longer starts at the anchor


async def test_retention_by_count_keeps_the_newest_and_anchors_the_chain(
    audit_factory: HarnessFactory, tmp_path: Path
) -> None:
    async with audit_factory(tmp_path) as harness:
        log = harness.make(AuditRetention(max_records=3), None)
        for n in range(1, 8):
            await log.append(record(n))
        assert [e.seq for e in await log.query(AuditQuery())] == [5, 6, 7]
        assert (await log.verify()).first_broken is None
        assert await log.append(record(8)) == 8  # numbering never restarts
        assert [e.seq for e in await log.query(AuditQuery())] == [6, 7, 8]
        verdict = await log.verify()
        assert (verdict.checked, verdict.first_broken) == (3, None)
        harness.delete(6)  # the oldest kept record: the next one no longer chains from the anchor
        assert (await log.verify()).first_broken == 7


async def test_retention_by_age_drops_records_older_than_the_bound(
    audit_factory: HarnessFactory, tmp_path: Path
) -> None:
    clock = FrozenClock(EPOCH + 10 * DAY)
    async with audit_factory(tmp_path) as harness:
        log = harness.make(AuditRetention(max_records=None, max_days=7), clock)
        for n, age_days in enumerate((9, 8, 6, 1), start=1):
            await log.append(record(n, ts=clock.value - age_days * DAY))
        kept = [e.seq for e in await log.query(AuditQuery())]
        assert kept == [3, 4] or kept[-2:] == [3, 4]  # pruning may run only every so many appends
        fresh = harness.make(AuditRetention(max_records=None, max_days=7), clock)
        await fresh.append(record(5, ts=clock.value))
        assert [e.seq for e in await fresh.query(AuditQuery())] == [3, 4, 5]
        assert (await fresh.verify()).first_broken is None


async def test_concurrent_writers_never_fork_the_chain(audit_factory: HarnessFactory, tmp_path: Path) -> None:
    async with audit_factory(tmp_path) as harness:
        logs = [harness.make(None, None) for _ in range(4)]
        seqs: list[int] = []

        async def write(log: AuditLog, base: int) -> None:
            for n in range(25):
                seqs.append(await log.append(record(base + n)))

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for index, log in enumerate(logs):
                    tg.start_soon(write, log, index * 100)
        assert sorted(seqs) == list(range(1, 101))
        verdict = await logs[0].verify()
        assert (verdict.checked, verdict.first_broken) == (100, None)


# --- the SQLite adapter's failures (the error contract) -----------------------------------------------------


async def test_a_file_that_is_not_a_database_is_unavailable(tmp_path: Path) -> None:
    db_path = tmp_path / "openclaw.sqlite"
    db_path.write_bytes(b"this is not a database, " * 100)
    log = SqliteAuditLog(db_path)
    for call in (lambda: log.append(record(1)), lambda: log.query(AuditQuery()), log.verify):
        with pytest.raises(AuditLogUnavailable) as caught:
            await call()
        assert isinstance(caught.value.__cause__, sqlite3.Error)


async def test_a_locked_database_is_unavailable_and_busy(tmp_path: Path) -> None:
    db_path = tmp_path / "openclaw.sqlite"
    log = SqliteAuditLog(db_path, busy_timeout_ms=50)
    await log.append(record(1))
    holder = sqlite3.connect(db_path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(AuditLogUnavailable) as caught:
            await log.append(record(2))
        assert caught.value.busy
    finally:
        holder.close()
    assert await log.append(record(2)) == 2


async def test_a_foreign_table_of_the_same_name_is_an_error_not_a_crash(tmp_path: Path) -> None:
    db_path = tmp_path / "openclaw.sqlite"
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TABLE openclaw_mcp_audit (x INTEGER)")
    log = SqliteAuditLog(db_path)
    with pytest.raises(AuditLogError):
        await log.append(record(1))


async def test_the_database_is_created_private(tmp_path: Path) -> None:
    db_path = tmp_path / "state" / "state" / "openclaw.sqlite"
    await SqliteAuditLog(db_path).append(record(1))
    assert os.stat(db_path).st_mode & 0o777 == 0o600
    assert os.stat(db_path.parent).st_mode & 0o777 == 0o700
