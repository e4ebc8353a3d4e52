"""Importing ``websockets`` for the Gateway client (adapters.ws._websockets_import): ``urllib.request`` (and
with it ``http.client``, ``email``…) is imported only when something uses it, then as the real module."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from openclaw_mcp.adapters.ws import _websockets_import


def run_python(code: str) -> str:
    env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}  # no proxy variables
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_gateway_client_does_not_import_urllib_request_until_used() -> None:
    out = run_python(
        """
        import sys
        import openclaw_mcp.adapters.ws
        import websockets.asyncio.client, websockets.proxy
        from websockets.uri import parse_uri
        print(sorted(m for m in ("http.client", "email", "shutil", "bz2", "lzma", "tempfile") if m in sys.modules))
        print(type(sys.modules["urllib.request"]).__name__)
        import urllib.request  # an import statement alone does not load it
        print(type(sys.modules["urllib.request"]).__name__)
        print(websockets.proxy.get_proxy(parse_uri("ws://127.0.0.1:9/")))  # the one use in websockets
        real = sys.modules["urllib.request"]
        print(type(real).__name__, real.__file__.endswith("request.py"))
        import urllib
        print(urllib.request is sys.modules["urllib.request"], "http.client" in sys.modules)
        """
    )
    assert out.splitlines() == ["[]", "_DeferredModule", "_DeferredModule", "None", "module True", "True True"]


def test_from_import_and_function_use_load_the_real_module() -> None:
    out = run_python(
        """
        import sys
        from openclaw_mcp.adapters.ws._websockets_import import defer_urllib_request
        defer_urllib_request()
        stand_in = sys.modules["urllib.request"]
        from urllib.request import Request, getproxies
        print(Request("http://127.0.0.1/").full_url, getproxies())
        print(stand_in.Request is Request, type(sys.modules["urllib.request"]).__name__)
        """
    )
    assert out.splitlines() == ["http://127.0.0.1/ {}", "True module"]


def test_an_imported_urllib_request_is_left_alone() -> None:
    import urllib.request

    real = sys.modules["urllib.request"]
    _websockets_import.defer_urllib_request()
    assert sys.modules["urllib.request"] is real
    assert urllib.request is real
