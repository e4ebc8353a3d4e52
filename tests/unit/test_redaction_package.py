"""The redaction package's own machinery: nothing is compiled at import, and JavaScript's ``\\s`` is
exactly ``jscompat.text.JS_WHITESPACE``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from openclaw_mcp.domain.redaction._js import WS, js_regex
from openclaw_mcp.jscompat.text import JS_WHITESPACE

_ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import json, sys
import openclaw_mcp.domain.redaction
from openclaw_mcp.domain.redaction import _patterns, _url
before = {
    "table_loaded": "openclaw_mcp.domain.redaction._pattern_table" in sys.modules,
    "patterns_built": _patterns.patterns.cache_info().currsize,
    "url_regex_built": _url._TELEGRAM_PATH.cache_info().currsize,
}
openclaw_mcp.domain.redaction.redact_sensitive_text("Bearer abcdefghijklmnop123456")
openclaw_mcp.domain.redaction.redact_sensitive_url("https://h/bot123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ/x")
after = {
    "table_loaded": "openclaw_mcp.domain.redaction._pattern_table" in sys.modules,
    "patterns_built": _patterns.patterns.cache_info().currsize,
    "url_regex_built": _url._TELEGRAM_PATH.cache_info().currsize,
}
print(json.dumps([before, after]))
"""


def test_importing_the_package_compiles_no_pattern_until_first_use() -> None:
    env = {**os.environ, "PYTHONPATH": str(_ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, cwd=_ROOT, check=True, timeout=60
    )
    before, after = json.loads(result.stdout)
    assert before == {"table_loaded": False, "patterns_built": 0, "url_regex_built": 0}
    assert after == {"table_loaded": True, "patterns_built": 1, "url_regex_built": 1}


def test_javascript_whitespace_class_matches_exactly_js_whitespace() -> None:
    in_class = re.compile(f"[{WS}]")
    matched = {chr(code) for code in range(0x110000) if in_class.fullmatch(chr(code))}
    assert matched == set(JS_WHITESPACE)
    assert {chr(code) for code in range(0x10000) if js_regex("\\s").fullmatch(chr(code))} == set(JS_WHITESPACE)
