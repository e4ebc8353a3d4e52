"""``JSON.parse`` for data: every JSON text the project reads from a peer or a file (JSON-RPC frames on
stdio, the Gateway's WebSocket frames, OAuth store rows, MCP App metadata, the settings page's bodies) goes
through :func:`parse_json`, so they all share one rule for what is JSON and what a number is.

* Numbers are JavaScript's: an integer literal up to 2**53 in magnitude is an ``int``, any other number the
  nearest double — a literal of any length (no ``int`` of 4,300 digits is built), beyond the double range an
  infinity, as ``JSON.parse`` gives.
* ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON.
* Any nesting depth is read, as V8 reads it: a text too deep for the standard library's recursive decoder is
  read again by the iterative strict parser (:mod:`.jsonstrict`, which also has V8's error texts).

The standard library's C decoder does the work: this is the fast path, :mod:`.jsonstrict` the exact one.
A caller may add ``object_pairs_hook`` / ``parse_float`` checks of its own (stricter, never looser).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from openclaw_mcp.jscompat.jsonstrict import JsonSyntaxError, js_number_value, parse_json_strict

__all__ = ["JsonSyntaxError", "parse_json"]


def _js_int(text: str) -> int | float:
    return js_number_value(text, True)


def _no_constant(name: str) -> Any:
    raise JsonSyntaxError(f"{name} is not valid JSON")


_DECODER: Final = json.JSONDecoder(parse_int=_js_int, parse_constant=_no_constant)


def parse_json(
    text: str,
    *,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
    parse_float: Callable[[str], Any] | None = None,
) -> Any:
    """``JSON.parse(text)``; raises ``ValueError`` (:class:`JsonSyntaxError` where the text is not JSON, or
    what a hook raises). With a hook, a text too deep for the recursive decoder raises ``RecursionError``
    (the iterative parser runs no hooks)."""
    if object_pairs_hook is None and parse_float is None:
        try:
            return _DECODER.decode(text)
        except RecursionError:
            return parse_json_strict(text)
    decoder = json.JSONDecoder(
        parse_int=_js_int,
        parse_constant=_no_constant,
        object_pairs_hook=object_pairs_hook,
        parse_float=parse_float,
    )
    return decoder.decode(text)
