"""The :class:`~application.ports.telemetry.Telemetry` port in memory: finished spans are kept as
:class:`RecordedSpan` values (tests of what is traced, without the OpenTelemetry SDK)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from openclaw_mcp.application.ports.telemetry import Attributes, AttributeValue, Span, SpanKind

__all__ = ["InMemoryTelemetry", "RecordedSpan"]


@dataclass
class RecordedSpan:
    name: str
    kind: SpanKind
    attributes: dict[str, AttributeValue] = field(default_factory=dict)
    parent: RecordedSpan | None = None
    remote_parent: str | None = None
    """The ``traceparent`` of the carrier the span continued, if any."""
    error_type: str | None = None

    def set_attribute(self, key: str, value: AttributeValue) -> None:
        if isinstance(value, str | bool | int | float) or (
            isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)
        ):
            self.attributes[key] = value

    def set_error(self, error_type: str) -> None:
        self.error_type = error_type


class InMemoryTelemetry:
    """Records every finished span in :attr:`spans` (in the order they ended)."""

    def __init__(self) -> None:
        self.spans: list[RecordedSpan] = []
        self._current: ContextVar[RecordedSpan | None] = ContextVar("current_span", default=None)
        self._closed = False

    @property
    def enabled(self) -> bool:
        return not self._closed

    def span(
        self,
        name: str,
        *,
        kind: SpanKind = "internal",
        attributes: Attributes | None = None,
        parent: Mapping[str, object] | None = None,
    ) -> AbstractContextManager[Span]:
        return self._span(name, kind, attributes, parent)

    @contextmanager
    def _span(
        self, name: str, kind: SpanKind, attributes: Attributes | None, parent: Mapping[str, object] | None
    ) -> Iterator[Span]:
        remote = parent.get("traceparent") if isinstance(parent, Mapping) else None
        span = RecordedSpan(
            name,
            kind,
            parent=self._current.get() if remote is None else None,
            remote_parent=remote if isinstance(remote, str) else None,
        )
        for key, value in (attributes or {}).items():
            span.set_attribute(key, value)
        token = self._current.set(span)  # per task: concurrent spans never nest in each other
        try:
            yield span
        except BaseException as exc:
            if span.error_type is None:
                span.error_type = type(exc).__qualname__
            raise
        finally:
            self._current.reset(token)
            if not self._closed:
                self.spans.append(span)

    def close(self) -> None:
        self._closed = True
