"""Property tests (hypothesis) for the serve wire layer: argument validation and JSON-RPC input parsing never
fail with anything but their documented error, whatever the input."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openclaw_mcp.application.bridge.tools import TOOLS
from openclaw_mcp.domain.bridge.arguments import ValidationFailed, validate_arguments
from openclaw_mcp.entrypoints.serve.jsonrpc import parse_json

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=True)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(
    ["session_key", "limit", "channel", "search", "includeDerivedTitles", "includeLastMessage", "message_id",
     "after_cursor", "timeout_ms", "text", "kind", "id", "decision", "bogus", ""]
)  # fmt: skip


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool=st.sampled_from(TOOLS), arguments=st.dictionaries(KEYS, JSON, max_size=6))
def test_validation_returns_declared_keys_or_raises_validation_failed(tool: Any, arguments: dict[str, Any]) -> None:
    try:
        accepted = validate_arguments(tool, arguments)
    except ValidationFailed as exc:
        assert str(exc)
        assert all(" at " in line for line in str(exc).split("\n"))
        return
    declared = {prop.name for prop in tool.properties}
    assert set(accepted) <= declared


@settings(max_examples=500, deadline=None)
@given(text=st.text(max_size=60))
def test_any_input_line_parses_or_raises_value_error(text: str) -> None:
    try:
        parse_json(text)
    except ValueError:
        pass
