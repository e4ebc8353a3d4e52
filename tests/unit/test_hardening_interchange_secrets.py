"""Issue 32 defect 3: ``openclaw mcp export`` without ``--include-secrets`` never writes a value the project's
own redactor would hide, in any client format.

The planted values are generated from the redactor's own pattern classes (``domain.redaction._pattern_table``,
the argv secret flags and the credential query names), so a class added there later is swept too. Every export
runs as a real ``openclaw`` process on a temporary HOME, state dir and config.
"""

from __future__ import annotations

import json
import os
import random
import re
import re._constants as sre_constants  # type: ignore[import-not-found]
import re._parser as sre_parser  # type: ignore[import-not-found]
import string
import subprocess
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from openclaw_mcp.domain.redaction import redact_argv, redact_sensitive_text, redact_sensitive_url
from openclaw_mcp.domain.redaction._patterns import patterns
from openclaw_mcp.domain.redaction._query import _SENSITIVE_QUERY_NAMES
from openclaw_mcp.domain.redaction._text import _SECRET_FLAGS

ROOT = Path(__file__).resolve().parents[2]
CLI = [str(ROOT / ".venv" / "bin" / "openclaw"), "mcp"]
FORMATS = ("claude", "codex", "gemini", "cursor", "vscode")
SYNTAX = {"claude": "json", "codex": "toml", "gemini": "json", "cursor": "json", "vscode": "json"}
ALNUM = string.ascii_letters + string.digits
_PRINTABLE = ALNUM + " " + "".join(chr(c) for c in range(33, 127) if not chr(c).isalnum()) + "\t\n"


# -- samples of every pattern class -------------------------------------------------------------------


def _class_choices(items: list[tuple[Any, Any]]) -> list[str]:
    negate = False
    allowed: set[str] = set()
    categories: list[Any] = []
    for op, arg in items:
        if op is sre_constants.NEGATE:
            negate = True
        elif op is sre_constants.LITERAL:
            allowed.add(chr(arg))
        elif op is sre_constants.RANGE:
            allowed.update(chr(code) for code in range(arg[0], min(arg[1], 126) + 1))
        elif op is sre_constants.CATEGORY:
            categories.append(arg)

    def in_category(char: str) -> bool:
        checks = {
            sre_constants.CATEGORY_DIGIT: char.isdigit(),
            sre_constants.CATEGORY_NOT_DIGIT: not char.isdigit(),
            sre_constants.CATEGORY_SPACE: char.isspace(),
            sre_constants.CATEGORY_NOT_SPACE: not char.isspace(),
            sre_constants.CATEGORY_WORD: char.isalnum() or char == "_",
            sre_constants.CATEGORY_NOT_WORD: not (char.isalnum() or char == "_"),
        }
        return any(checks.get(category, False) for category in categories)

    return [char for char in _PRINTABLE if (char in allowed or in_category(char)) != negate]


def _generate(tree: Any, rng: random.Random, groups: dict[int, str]) -> str:
    out: list[str] = []
    for op, arg in tree:
        if op is sre_constants.LITERAL:
            out.append(chr(arg))
        elif op is sre_constants.NOT_LITERAL:
            out.append(rng.choice([char for char in ALNUM if char != chr(arg)]))
        elif op is sre_constants.ANY:
            out.append(rng.choice(ALNUM))
        elif op is sre_constants.IN:
            fitting = _class_choices(arg)
            plain = [char for char in fitting if char in ALNUM]
            separators = [char for char in fitting if char in " -./:"]
            if separators and (not plain or rng.random() < 0.1):  # now and then a separator (word boundaries)
                out.append(rng.choice(separators))
            else:
                out.append(rng.choice(plain or fitting))
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
            low, high, sub = arg
            high = low + 40 if high is sre_constants.MAXREPEAT else high
            text_like = any(op2 in (sre_constants.IN, sre_constants.ANY, sre_constants.NOT_LITERAL) for op2, _ in sub)
            if text_like:
                count = min(high, max(low, 16)) if rng.random() < 0.85 else low
            else:
                count = rng.choice([low, min(high, low + 1)])
            out.extend(_generate(sub, rng, groups) for _ in range(count))
        elif op is sre_constants.SUBPATTERN:
            group, _, _, sub = arg
            text = _generate(sub, rng, groups)
            if group is not None:
                groups[group] = text
            out.append(text)
        elif op is sre_constants.BRANCH:
            out.append(_generate(rng.choice(arg[1]), rng, groups))
        elif op is sre_constants.GROUPREF:
            out.append(groups.get(arg, ""))
        elif op is sre_constants.ASSERT and arg[0] == 1:  # a lookahead: what it wants must follow
            out.append(_generate(arg[1], rng, groups))
        elif op is sre_constants.CATEGORY:
            out.append({sre_constants.CATEGORY_DIGIT: "7", sre_constants.CATEGORY_SPACE: " "}.get(arg, "q"))
    return "".join(out)


def _needle(sample: str, redacted: str) -> str | None:
    """The longest alphanumeric run of ``sample`` that the redactor removed (the planted secret)."""
    kept = redacted.casefold()
    runs = sorted(re.findall(r"[A-Za-z0-9]{8,}", sample), key=len, reverse=True)
    return next((run for run in runs if run.casefold() not in kept), None)


def class_samples() -> list[tuple[str, str, str]]:
    """``(class source, sample text, needle)`` for every text pattern class of the redactor."""
    found: list[tuple[str, str, str]] = []
    for index, pattern in enumerate(patterns()):
        tree = sre_parser.parse(pattern.regex.pattern, pattern.regex.flags)
        for seed in range(400):
            sample = _generate(tree, random.Random(seed * 1009 + index), {})
            if "\n" in sample or "\r" in sample or not pattern.regex.search(sample):
                continue
            needle = _needle(sample, redact_sensitive_text(sample))
            if needle is not None:
                found.append((pattern.source, sample, needle))
                break
        else:
            found.append((pattern.source, "", ""))
    return found


SAMPLES = class_samples()


def _fresh(rng: random.Random, prefix: str = "") -> str:
    return prefix + "".join(rng.choice(ALNUM) for _ in range(22))


def planted_servers() -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """``mcp.servers`` with one planted secret per server, and ``(server, needle)`` pairs."""
    rng = random.Random(32)
    servers: dict[str, Any] = {}
    needles: list[tuple[str, str]] = []

    def add(server: dict[str, Any], needle: str) -> None:
        name = f"p{len(servers):03d}"
        servers[name] = server
        needles.append((name, needle))

    for _, sample, needle in SAMPLES:
        add({"command": "node", "args": ["srv.js", sample]}, needle)
        add({"command": "node", "args": ["srv.js"], "env": {"PLANTED": sample}}, needle)
        add({"url": "https://h.example/mcp", "transport": "streamable-http", "headers": {"X-P": sample}}, needle)
    for flag in sorted(_SECRET_FLAGS):
        value = _fresh(rng)
        add({"command": "node", "args": ["srv.js", f"{flag}={value}"]}, value)
        value = _fresh(rng)
        add({"command": "node", "args": ["srv.js", flag, value, "--verbose"]}, value)
    for flag in ("--github-token", "--openai-api-key", "--db-password", "--signing-key", "--aws-secret-access-key"):
        value = _fresh(rng)
        add({"command": "node", "args": [f"{flag}={value}"]}, value)
    for name in sorted(_SENSITIVE_QUERY_NAMES):
        value = _fresh(rng)
        add({"url": f"https://h.example/mcp?page=1&{name}={value}", "transport": "streamable-http"}, value)
        value = _fresh(rng)
        add({"url": f"https://h.example/mcp#{name}={value}&x=1", "transport": "sse"}, value)
        value = _fresh(rng)
        nested = urllib.parse.quote(f"https://o.example/cb?{name}={value}", safe="")
        add({"url": f"https://h.example/login?next={nested}", "transport": "streamable-http"}, value)
        value = _fresh(rng)
        add({"command": "node", "args": ["--callback", f"https://h.example/cb#{name}={value}"]}, value)
        value = _fresh(rng)
        nested = urllib.parse.quote(f"https://o.example/cb?{name}={value}", safe="")
        add({"command": "node", "args": [f"https://h.example/r?next={nested}"]}, value)
    value = _fresh(rng)
    add({"url": f"https://bob:{value}@h.example/mcp", "transport": "streamable-http"}, value)
    value = _fresh(rng)
    add({"command": "node", "args": ["--upstream", f"https://bob:{value}@h.example/mcp"]}, value)
    value = _fresh(rng)
    add({"command": "node", "args": [f"Bearer {value}"]}, value)
    value = _fresh(rng)
    add({"url": f"https://api.telegram.org/bot123456789:{value}/mcp", "transport": "sse"}, value)
    value = _fresh(rng)
    add({"command": "node", "args": [f"https://api.telegram.org/bot123456789:{value}/getMe"]}, value)
    value = _fresh(rng)
    add({"url": f"https://{value}@h.example/mcp", "transport": "streamable-http"}, value)
    return servers, needles


def test_every_redactor_pattern_class_yields_a_planted_sample() -> None:
    missing = [source for source, sample, _ in SAMPLES if not sample]
    assert not missing, f"pattern classes without a generated sample: {missing}"
    for _, sample, needle in SAMPLES:
        assert needle not in redact_sensitive_text(sample)


def _hidden(server: dict[str, Any], needle: str) -> bool:
    """Whether the project's redactors hide ``needle`` where it is planted (argv and URL redaction of args,
    URL redaction of the url; env and header values are secrets whatever they hold)."""
    values = [*server.get("env", {}).values(), *server.get("headers", {}).values()]
    args = server.get("args", [])
    argv = " ".join(redact_argv(args))
    url = server.get("url", "")
    return (
        any(needle in value for value in values)
        or any(needle in arg and (needle not in argv or needle not in redact_sensitive_url(arg)) for arg in args)
        or (needle in url and needle not in redact_sensitive_url(url))
    )


def test_every_planted_value_is_one_the_redactor_hides() -> None:
    servers, needles = planted_servers()
    assert len(needles) > 400
    for name, needle in needles:
        assert _hidden(servers[name], needle), (name, servers[name])


# -- the sweep ----------------------------------------------------------------------------------------


def oc(state: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "CODEX_HOME": str(state / "home" / ".codex"),
        "LANG": "C.UTF-8",
    }
    work = state / "work"
    work.mkdir(parents=True, exist_ok=True)
    return subprocess.run([*CLI, *argv], env=env, cwd=work, capture_output=True, text=True, timeout=120, check=False)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (str(key), *_strings(item))]
    return []


def _parsed(fmt: str, text: str) -> dict[str, Any]:
    if SYNTAX[fmt] == "toml":
        import tomllib

        return tomllib.loads(text)
    return json.loads(text)  # type: ignore[no-any-return]


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_value_the_redactor_hides_reaches_an_exported_file(tmp_path: Path, fmt: str) -> None:
    servers, needles = planted_servers()
    (tmp_path / "home").mkdir(parents=True)
    (tmp_path / "openclaw.json").write_text(json.dumps({"mcp": {"servers": servers}}, indent=2) + "\n")
    out = tmp_path / "out" / "file"
    result = oc(tmp_path, "export", "--format", fmt, "--output", str(out))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    text = out.read_text()
    document = _parsed(fmt, text)
    top = document["mcp_servers" if fmt == "codex" else "servers" if fmt == "vscode" else "mcpServers"]
    decoded = "\n".join(_strings(document))
    leaked = [
        (name, needle)
        for name, needle in needles
        if needle in text or needle in decoded or needle in result.stdout or needle in result.stderr
    ]
    assert not leaked, leaked[:5]
    refused = {name for name, _ in needles if name not in top}
    for name in refused:  # a server left out is named on one line with the remedy
        lines = [line for line in result.stderr.splitlines() if f'server "{name}"' in line]
        refusals = [line for line in lines if "not exported" in line]
        assert len(refusals) == 1 and "--include-secrets" in refusals[0], (name, lines)
    if fmt != "codex":  # clients that expand variables get references instead: nothing is refused
        assert not refused, sorted(refused)[:10]


@pytest.mark.parametrize("fmt", ["claude", "codex"])
def test_include_secrets_still_exports_the_planted_values_as_written(tmp_path: Path, fmt: str) -> None:
    rng = random.Random(7)
    token, query = _fresh(rng), _fresh(rng)
    servers = {
        "a": {"command": "node", "args": ["--api-key", token]},
        "b": {"url": f"https://h.example/mcp#access_token={query}", "transport": "streamable-http"},
    }
    (tmp_path / "home").mkdir(parents=True)
    (tmp_path / "openclaw.json").write_text(json.dumps({"mcp": {"servers": servers}}))
    out = tmp_path / "out.file"
    result = oc(tmp_path, "export", "--format", fmt, "--output", str(out), "--include-secrets")
    assert result.returncode == 0, result.stderr
    assert token in out.read_text() and query in out.read_text()


def test_referenced_args_and_urls_round_trip_through_claude_with_the_variables_listed(tmp_path: Path) -> None:
    rng = random.Random(9)
    token, fragment = _fresh(rng), _fresh(rng)
    servers = {
        "a": {"command": "node", "args": ["srv.js", "--api-key", token, "--token=${MY_TOKEN}"]},
        "b": {"url": f"https://h.example/mcp?page=2#access_token={fragment}", "transport": "streamable-http"},
    }
    (tmp_path / "home").mkdir(parents=True)
    (tmp_path / "openclaw.json").write_text(json.dumps({"mcp": {"servers": servers}}))
    out = tmp_path / "x.json"
    result = oc(tmp_path, "export", "--format", "claude", "--output", str(out), "--json")
    assert result.returncode == 0, result.stderr
    entries = json.loads(out.read_text())["mcpServers"]
    assert entries["a"]["args"] == ["srv.js", "--api-key", "${OPENCLAW_MCP_A_API_KEY}", "--token=${MY_TOKEN}"]
    assert entries["b"]["url"] == "https://h.example/mcp?page=2#access_token=${OPENCLAW_MCP_B_URL_ACCESS_TOKEN}"
    variables = {(v["name"], v["server"]) for v in json.loads(result.stdout)["variables"]}
    assert {("OPENCLAW_MCP_A_API_KEY", "a"), ("MY_TOKEN", "a"), ("OPENCLAW_MCP_B_URL_ACCESS_TOKEN", "b")} <= variables
