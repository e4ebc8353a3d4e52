"""One rule, one place (static checks over the source tree): each rule the reference has once is defined once
here, the JSON-RPC and Gateway frame readers share the one ``JSON.parse``, and no module outgrows a reading."""

from __future__ import annotations

import ast
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "openclaw_mcp"
MAX_LINES = 600
"""A module a newcomer reads in one sitting; generated reference data lives in package data (JSON), not Python."""

ONCE = (
    "GatewayTargetError",  # serve and openclaw-tools refuse a target with one error
    "is_secure_websocket_url",  # the reference's isSecureWebSocketUrl
    "insecure_gateway_url_message",
    "resolve_gateway_target",  # the one Gateway target resolver (domain.gateway_target)
    "resolve_gateway_port",
    "config_credentials",
    "normalize_device_auth_scopes",
    "posix_single_quote",  # the one POSIX shell quoter
    "parse_json",  # the one JSON.parse (jscompat.jsonparse)
    "validate_arguments",  # serve's arguments, read once from the one tool table
)
JSON_PARSE_USERS = (
    "entrypoints/serve/jsonrpc.py",
    "adapters/ws/_frames.py",
    "domain/oauth_store.py",
    "domain/mcp_apps.py",
    "entrypoints/ui/app.py",
)


@cache
def _sources() -> tuple[tuple[str, str], ...]:
    return tuple(
        (path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")) for path in sorted(ROOT.rglob("*.py"))
    )


@cache
def _definitions() -> Counter[str]:
    names: Counter[str] = Counter()
    for _, source in _sources():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names[node.name] += 1
    return names


def test_no_module_is_over_the_reading_limit() -> None:
    long = {name: source.count("\n") for name, source in _sources() if source.count("\n") > MAX_LINES}
    assert long == {}


@pytest.mark.parametrize("name", ONCE)
def test_each_rule_is_defined_once(name: str) -> None:
    assert _definitions()[name] == 1


@pytest.mark.parametrize("module", JSON_PARSE_USERS)
def test_frame_readers_use_the_one_json_parse(module: str) -> None:
    source = (ROOT / module).read_text(encoding="utf-8")
    assert "json.loads" not in source
    assert "JSONDecoder" not in source
    assert "jsonparse" in source or "parse_json" in source
