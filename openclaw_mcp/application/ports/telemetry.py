"""The tracing port (docs/telemetry.md): :class:`Telemetry` opens spans, each a context manager yielding a
:class:`Span` that takes attributes and an error type.

**Error contract: telemetry never raises into the caller.** An adapter swallows every failure of its tracing
library (a bad attribute value, a closed provider, an exporter that is down): the worst a broken tracer can do
is record nothing. An exception raised by the caller's own block passes through the span unchanged, after the
span recorded it as failed (``error.type``: the exception's class name, unless :meth:`Span.set_error` already
named one). Only the type is recorded, never the message or a traceback (they can carry argument values).
:meth:`Telemetry.close` flushes and is idempotent; spans opened after it record nothing.

Callers build span names and attributes only when :attr:`Telemetry.enabled` is true, so a process that exports
nothing pays for nothing. :data:`NO_TELEMETRY` (:class:`NoTelemetry`) is the default everywhere: it is part of
the port, as the null object the application falls back to; the OpenTelemetry adapter is
``adapters.otel.OtelTelemetry`` (built by the composition root only when export is configured).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Literal, Protocol

__all__ = [
    "NO_TELEMETRY",
    "NULL_SPAN",
    "AttributeValue",
    "Attributes",
    "NoTelemetry",
    "Span",
    "SpanKind",
    "Telemetry",
]

AttributeValue = str | bool | int | float | Sequence[str]
"""What an attribute may hold (OpenTelemetry's primitive types; homogeneous string sequences)."""
Attributes = Mapping[str, AttributeValue]
SpanKind = Literal["internal", "client", "server"]


class Span(Protocol):
    """One open span. Neither method raises."""

    def set_attribute(self, key: str, value: AttributeValue) -> None:
        """Set one attribute (a value of another type is dropped)."""
        ...

    def set_error(self, error_type: str) -> None:
        """Mark the span failed: ``error.type`` = ``error_type`` (e.g. a JSON-RPC error code ``"-32602"`` or
        ``"tool_error"``) and the error status, without a description."""
        ...


class Telemetry(Protocol):
    """Where spans go."""

    @property
    def enabled(self) -> bool:
        """Whether spans are recorded at all (false: :meth:`span` is a no-op, skip building attributes)."""
        ...

    def span(
        self,
        name: str,
        *,
        kind: SpanKind = "internal",
        attributes: Attributes | None = None,
        parent: Mapping[str, object] | None = None,
    ) -> AbstractContextManager[Span]:
        """A span around the ``with`` block, the current span inside it (spans opened within are its children).
        ``parent``: a W3C trace-context carrier (``traceparent``/``tracestate``, as MCP's ``params._meta`` holds
        it) to continue a remote trace; ignored when absent or malformed."""
        ...

    def close(self) -> None:
        """Flush what is buffered and stop recording. Idempotent."""
        ...


class _NullSpan:
    __slots__ = ()

    def set_attribute(self, key: str, value: AttributeValue) -> None:
        return None

    def set_error(self, error_type: str) -> None:
        return None


NULL_SPAN: Span = _NullSpan()
"""A span that records nothing (telemetry off, or a span that could not be opened)."""


class _NullScope:
    """A reusable context manager that yields the null span and lets every exception through."""

    __slots__ = ()

    def __enter__(self) -> Span:
        return NULL_SPAN

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None


_NULL_SCOPE = _NullScope()


class NoTelemetry:
    """Records nothing (the default): ``enabled`` is false and every span is the same null span."""

    __slots__ = ()

    @property
    def enabled(self) -> bool:
        return False

    def span(
        self,
        name: str,
        *,
        kind: SpanKind = "internal",
        attributes: Attributes | None = None,
        parent: Mapping[str, object] | None = None,
    ) -> AbstractContextManager[Span]:
        return _NULL_SCOPE

    def close(self) -> None:
        return None


NO_TELEMETRY: Telemetry = NoTelemetry()
