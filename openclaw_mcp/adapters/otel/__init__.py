"""The :class:`~application.ports.telemetry.Telemetry` port over ``opentelemetry-api`` (docs/telemetry.md).

:class:`OtelTelemetry` records spans with a tracer of the given provider: the OTLP/HTTP exporting provider of
:mod:`.export` (built by the composition root when ``OTEL_*`` export is configured and the ``otel`` extra is
installed), or, for an embedding host that configured OpenTelemetry itself, the global provider. It keeps the
port's error contract: every call into OpenTelemetry is guarded, a failure is logged at debug level and dropped.
Spans are never made with ``record_exception``: an exception's message or traceback is never recorded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Final

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from openclaw_mcp.application.ports.telemetry import NULL_SPAN, Attributes, AttributeValue, Span, SpanKind

__all__ = ["TRACER_NAME", "OtelTelemetry"]

TRACER_NAME: Final = "openclaw_mcp"
"""The instrumentation scope of every span."""
_KINDS: Final = {"internal": trace.SpanKind.INTERNAL, "client": trace.SpanKind.CLIENT, "server": trace.SpanKind.SERVER}
_CARRIER_KEYS: Final = ("traceparent", "tracestate")
_PROPAGATOR: Final = TraceContextTextMapPropagator()
_log = logging.getLogger(__name__)


def _value(value: object) -> Any:
    """An attribute value OpenTelemetry accepts, or ``None`` (dropped)."""
    if isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return list(value)
    return None


def _clean(attributes: Attributes | None) -> dict[str, Any]:
    cleaned: dict[str, Any] = {}
    for key, value in (attributes or {}).items():
        usable = _value(value)
        if isinstance(key, str) and usable is not None:
            cleaned[key] = usable
    return cleaned


def _remote_parent(carrier: Mapping[str, object] | None) -> otel_context.Context | None:
    """The context of a W3C trace-context carrier (``params._meta``), or ``None`` without a valid one."""
    if not isinstance(carrier, Mapping):
        return None
    headers = {key: carrier[key] for key in _CARRIER_KEYS if isinstance(carrier.get(key), str)}
    if "traceparent" not in headers:
        return None
    extracted = _PROPAGATOR.extract(headers)
    return extracted if trace.get_current_span(extracted).get_span_context().is_valid else None


class _OtelSpan:
    """The port's span over an OpenTelemetry span; both methods guarded."""

    __slots__ = ("_span", "failed")

    def __init__(self, span: trace.Span) -> None:
        self._span = span
        self.failed = False

    def set_attribute(self, key: str, value: AttributeValue) -> None:
        try:
            usable = _value(value)
            if usable is not None:
                self._span.set_attribute(key, usable)
        except Exception:  # the port's contract: telemetry never raises into the caller
            _log.debug("could not set span attribute %s", key, exc_info=True)

    def set_error(self, error_type: str) -> None:
        self.failed = True
        try:
            self._span.set_attribute("error.type", error_type)
            self._span.set_status(trace.StatusCode.ERROR)
        except Exception:
            _log.debug("could not mark the span failed", exc_info=True)


class OtelTelemetry:
    """Spans through ``tracer_provider`` (default: OpenTelemetry's global provider, as an embedding host that
    configured OpenTelemetry itself has it). ``shutdown``: what :meth:`close` runs (the exporting provider's
    bounded shutdown, :func:`.export.otlp_tracer_provider`); without it :meth:`close` only flushes the provider
    (someone else's, which stays theirs to shut down)."""

    def __init__(
        self, tracer_provider: trace.TracerProvider | None = None, *, shutdown: Callable[[], None] | None = None
    ) -> None:
        self._provider = tracer_provider if tracer_provider is not None else trace.get_tracer_provider()
        self._tracer = self._provider.get_tracer(TRACER_NAME)
        self._shutdown = shutdown
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
        opened: tuple[trace.Span, object] | None = None
        if not self._closed:
            try:
                otel_span = self._tracer.start_span(
                    name,
                    context=_remote_parent(parent),
                    kind=_KINDS.get(kind, trace.SpanKind.INTERNAL),
                    attributes=_clean(attributes),
                    record_exception=False,
                    set_status_on_exception=False,
                )
                opened = (otel_span, otel_context.attach(trace.set_span_in_context(otel_span)))
            except Exception:
                _log.debug("could not start span %s", name, exc_info=True)
        if opened is None:
            yield NULL_SPAN
            return
        otel_span, token = opened
        span = _OtelSpan(otel_span)
        try:
            yield span
        except BaseException as exc:  # recorded (its type only), then passed through unchanged
            if not span.failed:
                span.set_error(type(exc).__qualname__)
            raise
        finally:
            try:
                otel_context.detach(token)  # type: ignore[arg-type]
                otel_span.end()
            except Exception:
                _log.debug("could not end span %s", name, exc_info=True)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self._shutdown is not None:
                self._shutdown()
            else:
                flush = getattr(self._provider, "force_flush", None)
                if callable(flush):
                    flush()
        except Exception:
            _log.debug("could not flush the tracer provider", exc_info=True)
