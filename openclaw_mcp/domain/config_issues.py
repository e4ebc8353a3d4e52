"""Config validation issues: where and what, the reference's path spellings, and zod's issue texts shared
by the field and object checks of :mod:`domain.validation` (spec cli-registry §1.3, §1.4, §2.1–§2.3)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.jscompat.jsjson import js_string
from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "Collector",
    "FieldCheck",
    "Issue",
    "Path",
    "PathSegment",
    "ValidatorThrew",
    "expected",
    "too_small_length",
    "type_name",
    "unrecognized",
]

_ROOT = "<root>"
_DISPLAY_SEGMENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$:-]*")

PathSegment = str | int


@dataclass(frozen=True, slots=True)
class Issue:
    """One validation issue: where (config path segments; ints are array indices) and what.

    ``allowed_values`` is set for boolean, enum and literal failures, as the reference's
    ``allowedValues`` (JSON strings: ``("true", "false")``, ``("stdio", "sse", "streamable-http")``).
    """

    path: tuple[PathSegment, ...]
    message: str
    allowed_values: tuple[str, ...] | None = None

    @property
    def dotted(self) -> str:
        """The path as the reference joins it: ``mcp.servers.x.args.0``; ``<root>`` for the root.

        This is the ``<path>`` of ``Config invalid after MCP <label> (<path>: <message>).``
        """
        if not self.path:
            return _ROOT
        return ".".join(str(segment) for segment in self.path)

    @property
    def json_path(self) -> str:
        """The ``path`` of the ``--json`` envelope's ``issues``: ``dotted`` trimmed at both ends
        (a server named ``"a "`` gives ``mcp.servers.a``), ``<root>`` when nothing is left."""
        return js_trim(self.dotted) or _ROOT

    @property
    def display(self) -> str:
        """The path as the invalid-config block prints it in text mode.

        Array indices in brackets, keys that are not plain identifiers as a bracketed JSON string:
        ``mcp.servers.x.args[0]``, ``mcp.servers["my server"].url``, ``mcp.servers["10"]``;
        ``<root>`` for the root.
        """
        if not self.path:
            return _ROOT
        out = ""
        for segment in self.path:
            if isinstance(segment, int):
                out = f"{out}[{segment}]"
            elif _DISPLAY_SEGMENT.fullmatch(segment) is None:
                out = f"{out}[{js_string(segment)}]"
            else:
                out = f"{out}.{segment}" if out else segment
        return out


class ValidatorThrew(Exception):
    """The reference's validator throws instead of reporting an issue.

    2026.9.6 runs ``new URL(value)`` unguarded for ``oauth.clientMetadataUrl``; a string that is not a URL
    makes it throw ``TypeError: Invalid URL``. Reading such a config reports the single issue
    ``<root>: read failed: TypeError: Invalid URL``; ``set``/``add``/``configure`` fail as an uncaught error
    with reason ``Invalid URL``.
    """

    def __init__(self, error_name: str = "TypeError", message: str = "Invalid URL") -> None:
        super().__init__(message)
        self.error_name = error_name
        self.message = message

    @property
    def js_text(self) -> str:
        """``String(error)`` in JavaScript: ``TypeError: Invalid URL``."""
        return f"{self.error_name}: {self.message}"


def type_name(value: object) -> str:
    """The name zod prints after ``received``: ``null``, ``array``, ``object``, ``string``, ``number``,
    ``boolean``; for non-finite floats ``NaN``, ``Infinity`` or ``-Infinity``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "number"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def expected(kind: str, value: object) -> str:
    """zod's type issue: ``Invalid input: expected <kind>, received <type>``."""
    return f"Invalid input: expected {kind}, received {type_name(value)}"


def unrecognized(keys: list[str]) -> str:
    """zod's strict-object issue for unknown keys (singular for one key)."""
    quoted = ", ".join(f'"{key}"' for key in keys)
    return f"Unrecognized key: {quoted}" if len(keys) == 1 else f"Unrecognized keys: {quoted}"


def too_small_length(value: str | list[Any]) -> str:
    """zod's ``min(1)`` issue for a string or an array."""
    if isinstance(value, str):
        return "Too small: expected string to have >=1 characters"
    return "Too small: expected array to have >=1 items"


class Collector:
    """Issues in emission order, each remembering whether zod lets later checks run after it."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[tuple[Issue, bool]] = []

    def add(
        self,
        path: tuple[PathSegment, ...],
        message: str,
        *,
        aborts: bool,
        allowed: tuple[str, ...] | None = None,
    ) -> None:
        self.items.append((Issue(path, message, allowed), aborts))

    def mark(self) -> int:
        """A position to ask :meth:`aborted_since` about."""
        return len(self.items)

    def aborted_since(self, mark: int) -> bool:
        """Whether an aborting issue was added after ``mark``."""
        return any(aborts for _, aborts in self.items[mark:])

    def issues(self) -> list[Issue]:
        """The issues in emission order."""
        return [issue for issue, _ in self.items]


Path = tuple[PathSegment, ...]
FieldCheck = Callable[[object, Path, Collector], object]
