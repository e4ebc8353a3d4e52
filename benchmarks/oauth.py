"""MCP OAuth (spec cli-registry.md §7.8 login, §7.9 token use), ours against the reference OpenClaw 2026.9.6, in the
same run against one loopback authorization server with an OAuth-protected streamable-HTTP MCP server
(``tests/fixtures/oauth_server.py``, served from a background thread of this process).

    .venv/bin/python benchmarks/oauth.py [--runs 3]

Per implementation and run (runs alternate between the two; every login gets a fresh state dir and a free
loopback redirect port):

* ``mcp login docs`` wall time from spawn to exit 0, the "browser" played by fetching the printed authorization
  URL without following the redirect and then GETting the loopback callback it points to;
* ``mcp probe docs --json`` wall time with the fresh tokens of that login (token-endpoint calls: expect 0);
* ``mcp probe docs --json`` wall time when the stored access token has expired (a second login while the server
  issues ``expires_in: 1``; the refresh then gets a one-hour token), and its token-endpoint calls (expect 1).

Ours only (the reference has no equivalent harness): ten ``tests.fixtures.oauth_worker`` processes resolving an
expired token through one SQLite store at the same moment — wall time from the start signal until all ten hold
the new token, and the token-endpoint calls (expect 1: one refresh under the cross-process lease).

Prints medians over the runs and the ratios reference / ours. No token, code or secret is ever printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
from anyio.streams.text import TextReceiveStream

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from openclaw_mcp.adapters.http.oauth import HttpOAuthProtocol  # noqa: E402 - after the path setup
from openclaw_mcp.application.oauth import LoginRedirect  # noqa: E402
from openclaw_mcp.entrypoints.oauth import oauth_server as operator_identity  # noqa: E402
from openclaw_mcp.entrypoints.oauth import sqlite_mcp_oauth  # noqa: E402
from tests.docker.gateway_harness import find_reference, process_tree  # noqa: E402
from tests.fixtures.oauth_server import OAuthAuthority, oauth_server  # noqa: E402
from tests.fixtures.ports import free_port  # noqa: E402

OURS = [str(ROOT / ".venv" / "bin" / "openclaw")]
WORKERS = 10
COMMAND_TIMEOUT_S = 120.0


def redact(text: str, authority: OAuthAuthority) -> str:
    """``text`` with every token, code and client secret the authority ever issued replaced by ``***``."""
    secrets = {*authority.access_tokens, *authority.refresh_tokens, *authority.codes}
    secrets |= {grant.get(key, "") for grant in authority.grants for key in ("code", "code_verifier", "refresh_token")}
    secrets |= {str(client.get("client_secret", "")) for client in authority.clients.values()}
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and its descendants (the reference re-executes itself as a detached child)."""
    for member in process_tree(pid):
        try:
            os.kill(member, signal.SIGKILL)
        except ProcessLookupError:
            pass


@asynccontextmanager
async def spawned(argv: list[str], env: dict[str, str], cwd: str) -> AsyncIterator[anyio.abc.Process]:
    """A child process that is always gone (with its descendants) when the block is left."""
    process = await anyio.open_process(argv, env=env, cwd=cwd)
    try:
        yield process
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                kill_tree(process.pid)
            await process.wait()
            await process.aclose()


class Lines:
    """A child's stdout read line by line."""

    def __init__(self, process: anyio.abc.Process) -> None:
        assert process.stdout is not None
        self._out = TextReceiveStream(process.stdout)
        self._buffer = ""

    async def line(self) -> str:
        while "\n" not in self._buffer:
            self._buffer += await self._out.receive()
        line, self._buffer = self._buffer.split("\n", 1)
        return line

    async def rest(self) -> list[str]:
        text = self._buffer
        async for chunk in self._out:
            text += chunk
        self._buffer = ""
        return [line for line in text.split("\n") if line]


# --- the CLI scenarios ---------------------------------------------------------------------------------


@dataclass
class Figures:
    login: list[float] = field(default_factory=list)
    probe_fresh: list[float] = field(default_factory=list)
    probe_fresh_calls: list[int] = field(default_factory=list)
    probe_expired: list[float] = field(default_factory=list)
    probe_expired_calls: list[int] = field(default_factory=list)


class State:
    """A fresh isolated state dir (config with the OAuth server ``docs``), removed on exit."""

    def __init__(self, mcp_url: str, path_env: str) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="oc-oauth-bench-"))
        (self.dir / "home").mkdir()
        server = {
            "url": mcp_url,
            "transport": "streamable-http",
            "auth": "oauth",
            "oauth": {"redirectUrl": f"http://127.0.0.1:{free_port()}/oauth/callback"},
        }
        (self.dir / "openclaw.json").write_text(json.dumps({"mcp": {"servers": {"docs": server}}}, indent=2) + "\n")
        self.env = {
            "PATH": path_env,
            "HOME": str(self.dir / "home"),
            "OPENCLAW_STATE_DIR": str(self.dir),
            "OPENCLAW_CONFIG_PATH": str(self.dir / "openclaw.json"),
            "LANG": "C.UTF-8",
            "TZ": "UTC",
        }

    def __enter__(self) -> State:
        return self

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


async def login(prefix: list[str], state: State, authority: OAuthAuthority, label: str) -> float:
    """``mcp login docs`` through the loopback callback; the wall time from spawn to exit."""
    started = time.perf_counter()
    async with spawned([*prefix, "mcp", "login", "docs"], state.env, str(state.dir)) as process:
        out = Lines(process)
        try:
            while not (await out.line()).startswith("Open this URL to authorize"):
                pass
            url = await out.line()
            while not (await out.line()).startswith("Waiting for the browser"):
                pass
        except anyio.EndOfStream:
            assert process.stderr is not None
            err = b"".join([chunk async for chunk in process.stderr])
            detail = redact(err.decode(errors="replace")[-400:], authority)
            raise SystemExit(
                f"{label}: login printed no authorization URL (exit {await process.wait()}): {detail}"
            ) from None
        async with httpx2.AsyncClient(follow_redirects=False) as client:
            redirect = await client.get(url)
            if redirect.status_code != 302:
                raise SystemExit(f"{label}: the authorization endpoint answered {redirect.status_code}")
            callback = await client.get(redirect.headers["location"])
        lines = await out.rest()
        assert process.stderr is not None
        err = b"".join([chunk async for chunk in process.stderr])
        code = await process.wait()
    elapsed = time.perf_counter() - started
    if code != 0 or callback.status_code != 200 or not lines or lines[-1] != 'MCP OAuth credentials saved for "docs".':
        detail = redact("\n".join(lines[-3:]) + "\n" + err.decode(errors="replace")[-400:], authority)
        raise SystemExit(f"{label}: login failed (exit {code}, callback {callback.status_code}): {detail}")
    return elapsed


async def probe(prefix: list[str], state: State, authority: OAuthAuthority, label: str) -> tuple[float, int]:
    """``mcp probe docs --json``: the wall time and the token-endpoint calls it made; the tools must be listed."""
    calls = authority.token_calls
    started = time.perf_counter()
    with anyio.fail_after(COMMAND_TIMEOUT_S):
        result = await anyio.run_process(
            [*prefix, "mcp", "probe", "docs", "--json"], env=state.env, cwd=str(state.dir), check=False
        )
    elapsed = time.perf_counter() - started
    calls = authority.token_calls - calls
    try:
        payload: dict[str, Any] = json.loads(result.stdout)
    except ValueError:
        payload = {}
    if result.returncode != 0 or not payload.get("tools") or payload.get("diagnostics"):
        detail = redact((result.stdout.decode() + result.stderr.decode())[-600:], authority)
        raise SystemExit(f"{label}: probe failed (exit {result.returncode}): {detail}")
    return elapsed, calls


async def cli_run(
    name: str, prefix: list[str], path_env: str, authority: OAuthAuthority, mcp_url: str, figures: Figures
) -> str:
    # Login, then probe with the fresh tokens.
    authority.expires_in = 3600
    with State(mcp_url, path_env) as state:
        with anyio.fail_after(COMMAND_TIMEOUT_S):
            figures.login.append(await login(prefix, state, authority, f"{name}: login"))
        elapsed, calls = await probe(prefix, state, authority, f"{name}: probe (fresh tokens)")
        figures.probe_fresh.append(elapsed)
        figures.probe_fresh_calls.append(calls)
    # A login whose access token expires after 1 s; the refresh during the probe gets a one-hour token, so
    # the probe's later requests reuse it.
    with State(mcp_url, path_env) as state:
        authority.expires_in = 1
        try:
            with anyio.fail_after(COMMAND_TIMEOUT_S):
                await login(prefix, state, authority, f"{name}: login (expiring tokens)")
        finally:
            authority.expires_in = 3600
        await anyio.sleep(1.1)
        elapsed, calls = await probe(prefix, state, authority, f"{name}: probe (expired token)")
        figures.probe_expired.append(elapsed)
        figures.probe_expired_calls.append(calls)
    return (
        f"login {figures.login[-1]:.3f} s, probe fresh {figures.probe_fresh[-1]:.3f} s "
        f"({figures.probe_fresh_calls[-1]} token calls), probe expired {figures.probe_expired[-1]:.3f} s "
        f"({figures.probe_expired_calls[-1]} token calls)"
    )


# --- the refresh race (ours only) ----------------------------------------------------------------------


@dataclass
class Race:
    wall: list[float] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)


def sha(text: str | None) -> str:
    return hashlib.sha256((text or "").encode()).hexdigest()


async def race_run(authority: OAuthAuthority, mcp_url: str, race: Race) -> str:
    """Ten worker processes resolve the expired token of one store at once (``tests/fixtures/oauth_worker.py``)."""
    work = Path(tempfile.mkdtemp(prefix="oc-oauth-race-"))
    try:
        db, go = str(work / "state" / "openclaw.sqlite"), work / "go"
        server = operator_identity("docs", mcp_url)
        oauth = sqlite_mcp_oauth(db)
        async with HttpOAuthProtocol(server.url) as protocol:
            start = await oauth.login_start(server, protocol)
            assert isinstance(start, LoginRedirect)
            async with httpx2.AsyncClient(follow_redirects=False) as client:
                location = (await client.get(start.authorization_url)).headers["location"]
            await oauth.login_complete(server, protocol, httpx2.URL(location).params["code"])

        def expired(store: dict[str, Any]) -> dict[str, Any]:
            return {**store, "tokenExpiresAt": 0}

        policy = oauth.policy
        async with oauth.leases.hold(
            policy.scope, server.store_key, duration_ms=policy.duration_ms, wait_ms=policy.wait_ms
        ) as lease:
            await oauth.store.update(lease, server.store_key, expired)

        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        argv = [sys.executable, "-m", "tests.fixtures.oauth_worker", "resolve", db, server.url, str(go)]
        results: list[str] = []
        finished: list[float] = []
        calls_before = authority.token_calls
        go_at = 0.0
        with anyio.fail_after(COMMAND_TIMEOUT_S):
            async with anyio.create_task_group() as tg:
                all_ready = anyio.Event()
                ready = 0

                async def one() -> None:
                    nonlocal ready
                    async with spawned(argv, env, str(ROOT)) as process:
                        out = Lines(process)
                        if await out.line() != "ready":
                            raise SystemExit("race: a worker did not start")
                        ready += 1
                        if ready == WORKERS:
                            all_ready.set()
                        results.append(await out.line())
                        finished.append(time.perf_counter())
                        if await process.wait() != 0:
                            raise SystemExit("race: a worker failed")

                for _ in range(WORKERS):
                    tg.start_soon(one)
                await all_ready.wait()
                go_at = time.perf_counter()
                go.write_text("go")
        race.wall.append(max(finished) - go_at)
        race.calls.append(authority.token_calls - calls_before)
        if results != [sha(authority.latest_access_token)] * WORKERS:
            raise SystemExit("race: the workers do not all hold the newest access token")
        return f"race {race.wall[-1]:.3f} s, {race.calls[-1]} token call(s)"
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- report --------------------------------------------------------------------------------------------


def report(results: dict[str, Figures], race: Race, runs: int) -> None:
    ours, ref = results["ours"], results.get("reference")
    timed = [
        ("login (spawn → exit, callback path)", "login"),
        ("probe --json, fresh tokens", "probe_fresh"),
        ("probe --json, expired token (refresh)", "probe_expired"),
    ]
    counted = [
        ("token calls per probe, fresh tokens", "probe_fresh_calls"),
        ("token calls per probe, expired token", "probe_expired_calls"),
    ]
    print()
    print(f"medians over {runs} run(s); ratio = reference / ours")
    print(f"{'':40} {'ours':>12} {'reference':>12} {'ref/ours':>9}")
    for label, name in timed:
        mine = statistics.median(getattr(ours, name))
        theirs = statistics.median(getattr(ref, name)) if ref is not None else None
        ratio = f"{theirs / mine:8.2f}x" if theirs is not None and mine > 0 else "      n/a"
        their_text = f"{theirs:10.3f} s" if theirs is not None else f"{'n/a':>12}"
        print(f"{label:40} {mine:10.3f} s {their_text} {ratio}")
    for label, name in counted:
        mine_counts, their_counts = getattr(ours, name), getattr(ref, name) if ref is not None else None
        their_text = f"{statistics.median(their_counts):12g}" if their_counts is not None else f"{'n/a':>12}"
        print(f"{label:40} {statistics.median(mine_counts):12g} {their_text} {'':>9}")
    print(
        f"{f'{WORKERS}-process refresh race, go → all new':40} {statistics.median(race.wall):10.3f} s "
        f"{'n/a':>12} {'':>9}  (ours only: the reference has no equivalent harness)"
    )
    print(f"{'refresh race, token calls':40} {statistics.median(race.calls):12g} {'n/a':>12}")


async def benchmark(runs: int) -> None:
    reference = find_reference()
    impls: dict[str, tuple[list[str], str]] = {"ours": (OURS, os.environ.get("PATH", "/usr/bin:/bin"))}
    if reference is not None:
        impls["reference"] = (reference.command(), reference.path_env)
    else:
        print("reference not installed (bash scripts/install_reference.sh): ours only")
    print(f"machine: {os.cpu_count()} cores", flush=True)
    results = {name: Figures() for name in impls}
    authority = OAuthAuthority()
    async with oauth_server(authority) as loopback:
        mcp_url = loopback.url("/mcp")
        for run in range(runs):
            for name, (prefix, path_env) in impls.items():
                summary = await cli_run(name, prefix, path_env, authority, mcp_url, results[name])
                print(f"run {run + 1}/{runs} {name:9}: {summary}", flush=True)
    race = Race()
    racing = OAuthAuthority()
    async with oauth_server(racing) as loopback:
        for run in range(runs):
            summary = await race_run(racing, loopback.url("/mcp"), race)
            print(f"run {run + 1}/{runs} ours     : {summary}", flush=True)
    report(results, race, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per implementation (default 3)")
    args = parser.parse_args()
    anyio.run(benchmark, max(1, args.runs))


if __name__ == "__main__":
    main()
