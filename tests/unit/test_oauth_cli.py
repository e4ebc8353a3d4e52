"""``openclaw mcp login`` as a real process (spec cli-registry §3.10, §7.8) against a loopback authorization
server: the callback path, the ``--code`` fallback, a refused authorization, the preconditions, and no
token, code or client secret in any output of the OAuth-related commands.

Expected texts were verified against the reference CLI (OpenClaw 2026.9.6, Node 24) with the same fixture
server: the five login lines, the stored row, ``probe`` diagnostics and ``status``/``doctor`` after a
403 ``insufficient_scope``.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
import pytest
from anyio.streams.text import TextReceiveStream

from tests.fixtures.oauth_server import OAuthAuthority
from tests.fixtures.oauth_server import oauth_server as serve_authority
from tests.fixtures.ports import free_port, occupied_port

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]
OPENCLAW = str(ROOT / ".venv" / "bin" / "openclaw")


def env_for(state: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "LANG": "C.UTF-8",
        "TZ": "UTC",
    }


def write_servers(state: Path, servers: dict[str, Any]) -> None:
    (state / "home").mkdir(exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps({"mcp": {"servers": servers}}, indent=2) + "\n")


async def run(state: Path, *argv: str) -> subprocess.CompletedProcess[bytes]:
    return await anyio.run_process([OPENCLAW, "mcp", *argv], env=env_for(state), cwd=state, check=False)


class Login:
    """A running ``openclaw mcp login`` whose stdout is read line by line."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self.process = process
        assert process.stdout is not None and process.stderr is not None
        self._out = TextReceiveStream(process.stdout)
        self._buffer = ""
        self.lines: list[str] = []

    async def line(self) -> str:
        while "\n" not in self._buffer:
            self._buffer += await self._out.receive()
        line, self._buffer = self._buffer.split("\n", 1)
        self.lines.append(line)
        return line

    async def finish(self) -> tuple[int, list[str], str]:
        assert self.process.stdout is not None and self.process.stderr is not None
        rest = self._buffer
        async for text in self._out:
            rest += text
        self.lines += [line for line in rest.split("\n") if line]
        err = b""
        async for chunk in self.process.stderr:
            err += chunk
        return await self.process.wait(), self.lines, err.decode()


@asynccontextmanager
async def login(state: Path, *argv: str) -> AsyncIterator[Login]:
    process = await anyio.open_process([OPENCLAW, "mcp", "login", *argv], env=env_for(state), cwd=state)
    try:
        yield Login(process)
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                process.kill()
            await process.wait()
            await process.aclose()


async def browse(url: str) -> str:
    """Play the browser up to the redirect: the callback URL the authorization server sends it to."""
    async with httpx2.AsyncClient(follow_redirects=False) as client:
        response = await client.get(url)
    assert response.status_code == 302
    return response.headers["location"]


def oauth_docs(url: str, redirect_port: int) -> dict[str, Any]:
    return {
        "url": url,
        "transport": "streamable-http",
        "auth": "oauth",
        "oauth": {"redirectUrl": f"http://127.0.0.1:{redirect_port}/oauth/callback"},
    }


async def callback_login(state: Path) -> list[str]:
    async with login(state, "docs") as running:
        assert await running.line() == 'Open this URL to authorize "docs":'
        url = await running.line()
        assert await running.line() == "Waiting for the browser to return to OpenClaw..."
        assert await running.line() == (
            "If the callback cannot reach this terminal, run openclaw mcp login docs --code <code>."
        )
        async with httpx2.AsyncClient() as client:
            callback = await client.get(await browse(url))
        assert (callback.status_code, callback.text) == (
            200,
            "Authorization received; return to the terminal while OpenClaw finishes.",
        )
        code, lines, err = await running.finish()
        assert (code, err) == (0, "")
        assert lines[-1] == 'MCP OAuth credentials saved for "docs".'
        return lines


async def test_login_through_the_loopback_callback_saves_the_credentials(tmp_path: Path) -> None:
    authority = OAuthAuthority()
    with anyio.fail_after(60):
        async with serve_authority(authority) as loopback:
            write_servers(tmp_path, {"docs": oauth_docs(loopback.url("/mcp"), free_port())})
            lines = await callback_login(tmp_path)
            assert len(lines) == 5
            status = await run(tmp_path, "status", "--json")
            auth = json.loads(status.stdout)["servers"][0]["authStatus"]
            assert auth["state"] == "authorized" and auth["hasTokens"] is True
            again = await run(tmp_path, "login", "docs")
            assert (again.returncode, again.stdout.decode()) == (0, 'MCP OAuth credentials saved for "docs".\n')
            assert [grant["grant_type"] for grant in authority.grants] == ["authorization_code", "refresh_token"]


async def test_without_a_listener_the_code_is_entered_with_the_code_option(tmp_path: Path) -> None:
    authority = OAuthAuthority()
    with anyio.fail_after(60):
        async with serve_authority(authority) as loopback:
            with occupied_port() as port:
                write_servers(tmp_path, {"docs": oauth_docs(loopback.url("/mcp"), port)})
                first = await run(tmp_path, "login", "docs")
            lines = first.stdout.decode().splitlines()
            assert first.returncode == 0
            busy = f"listen EADDRINUSE: address already in use 127.0.0.1:{port}"
            assert lines[0] == f"Could not start the local OAuth callback ({busy})."
            assert lines[1] == 'Open this URL to authorize "docs":'
            assert lines[3] == "After approval, run openclaw mcp login docs --code <code>."
            assert len(lines) == 4
            code = httpx2.URL(await browse(lines[2])).params["code"]
            second = await run(tmp_path, "login", "docs", "--code", code)
            assert (second.returncode, second.stdout.decode()) == (0, 'MCP OAuth credentials saved for "docs".\n')
            assert authority.grants[-1]["code"] == code


async def test_a_refused_authorization_fails_the_login(tmp_path: Path) -> None:
    authority = OAuthAuthority(deny=True)
    with anyio.fail_after(60):
        async with serve_authority(authority) as loopback:
            write_servers(tmp_path, {"docs": oauth_docs(loopback.url("/mcp"), free_port())})
            async with login(tmp_path, "docs") as running:
                await running.line()
                url = await running.line()
                await running.line()
                await running.line()
                async with httpx2.AsyncClient() as client:
                    callback = await client.get(await browse(url))
                assert (callback.status_code, callback.text) == (400, "Authorization was not completed.")
                code, _lines, err = await running.finish()
            assert code == 1
            assert err == (
                "OAuth authorization did not complete. Retry login or use openclaw mcp login docs --code <code>.\n"
            )


async def test_login_preconditions_fail_with_the_reference_messages(tmp_path: Path) -> None:
    write_servers(
        tmp_path,
        {
            "plain": {"url": "https://x.example.com/mcp"},
            "perreq": {"url": "https://x.example.com/mcp", "auth": "oauth", "oauth": {"identity": "per-requester"}},
            "nourl": {"transport": "streamable-http", "auth": "oauth"},
            "both": {"command": "uvx", "url": "https://x.example.com", "auth": "oauth"},
        },
    )
    expected = {
        "plain": 'MCP server "plain" is not configured with auth: "oauth".',
        "perreq": 'MCP server "perreq" uses per-requester OAuth. Senders connect from the channel via the MCP connect '
        "flow.",
        "nourl": 'MCP server "nourl" needs a URL for OAuth login.',
        "both": 'MCP server "both" needs a valid HTTP transport for OAuth login.',
    }
    with anyio.fail_after(60):
        for name, message in expected.items():
            result = await run(tmp_path, "login", name)
            assert result.returncode == 1
            assert result.stderr.decode().splitlines()[-1] == message
        missing = await run(tmp_path, "login", "nourl", "--code", "abc")
        assert missing.returncode == 1


async def test_tokens_codes_and_client_secrets_never_appear_in_any_output(tmp_path: Path) -> None:
    planted = "PLANTEDxSECRET-"
    authority = OAuthAuthority(prefix=planted)
    outputs: list[str] = []
    with anyio.fail_after(120):
        async with serve_authority(authority) as loopback:
            write_servers(tmp_path, {"docs": oauth_docs(loopback.url("/mcp"), free_port())})
            outputs += await callback_login(tmp_path)
            for argv in (
                ("status",),
                ("status", "--json"),
                ("list", "--json"),
                ("show", "docs", "--json"),
                ("probe", "docs"),
                ("probe", "docs", "--json"),
                ("doctor", "--json"),
                ("doctor", "--probe"),
                ("login", "docs"),
            ):
                result = await run(tmp_path, *argv)
                outputs += [result.stdout.decode(), result.stderr.decode()]
            authority.insufficient_scope = True
            for argv in (("probe", "docs"), ("status", "--json"), ("doctor",)):
                result = await run(tmp_path, *argv)
                outputs += [result.stdout.decode(), result.stderr.decode()]
    secrets = [planted, *sorted(authority.access_tokens), *sorted(authority.refresh_tokens)]
    secrets += [grant["code"] for grant in authority.grants if "code" in grant]
    secrets += [grant["code_verifier"] for grant in authority.grants if "code_verifier" in grant]
    for path in tmp_path.rglob("*"):
        if path.is_file() and not path.name.startswith("openclaw.sqlite"):
            outputs.append(path.read_text(errors="replace"))
    text = "\n".join(outputs)
    assert "authorized" in text  # the commands did run
    assert [secret for secret in secrets if secret in text] == []
