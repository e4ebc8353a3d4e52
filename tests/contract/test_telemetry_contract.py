"""Contract of the ``Telemetry`` port (application/ports/telemetry.py): every implementation — the no-op
``NoTelemetry``, ``adapters.memory.telemetry.InMemoryTelemetry`` and ``adapters.otel.OtelTelemetry`` over the
OpenTelemetry SDK (an in-memory exporter here) — never raises into the caller, lets the caller's exceptions through
unchanged, and closes idempotently. For the OpenTelemetry adapter: names, kinds, attributes, parents, error types,
and a remote parent from a trace-context carrier."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import anyio
import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from openclaw_mcp.adapters.memory.telemetry import InMemoryTelemetry
from openclaw_mcp.adapters.otel import TRACER_NAME, OtelTelemetry
from openclaw_mcp.application.ports.telemetry import NO_TELEMETRY, NoTelemetry, Telemetry

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


@dataclass
class Subject:
    telemetry: Telemetry
    exporter: InMemorySpanExporter | None = None

    def finished(self) -> list[ReadableSpan]:
        return [] if self.exporter is None else list(self.exporter.get_finished_spans())

    def recorded(self) -> list[str]:
        """The names of the finished spans (of the recording adapters)."""
        if isinstance(self.telemetry, InMemoryTelemetry):
            return [span.name for span in self.telemetry.spans]
        return [span.name for span in self.finished()]


def _memory() -> Subject:
    return Subject(InMemoryTelemetry())


def _otel() -> Subject:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Subject(OtelTelemetry(provider, shutdown=provider.shutdown), exporter)


@pytest.fixture(params=["noop", "memory", "otel"])
def subject(request: pytest.FixtureRequest) -> Iterator[Subject]:
    made = {"noop": lambda: Subject(NoTelemetry()), "memory": _memory, "otel": _otel}[request.param]()
    yield made
    made.telemetry.close()


# --- every implementation ---------------------------------------------------------------------------------


def test_a_span_takes_attributes_and_an_error_type(subject: Subject) -> None:
    with subject.telemetry.span("tools/call echo", kind="client", attributes={"a": "b", "n": 1}) as span:
        span.set_attribute("flag", True)
        span.set_attribute("names", ["x", "y"])
        span.set_error("tool_error")


def test_unusable_attribute_values_are_dropped_not_raised(subject: Subject) -> None:
    bad: dict[str, object] = {"none": None, "dict": {"k": 1}, "mixed": [1, "a"], "ok": "yes"}
    with subject.telemetry.span("x", attributes=bad) as span:  # type: ignore[arg-type]
        span.set_attribute("object", object())  # type: ignore[arg-type]
        span.set_attribute("none", None)  # type: ignore[arg-type]


def test_the_callers_exception_passes_through_unchanged(subject: Subject) -> None:
    error = ValueError("secret argument value")
    with pytest.raises(ValueError) as caught, subject.telemetry.span("x"):
        raise error
    assert caught.value is error


def test_a_malformed_parent_is_ignored(subject: Subject) -> None:
    for carrier in ({"traceparent": "garbage"}, {"traceparent": 5}, {}, {"tracestate": "a=b"}):
        with subject.telemetry.span("x", parent=carrier):
            pass


def test_close_is_idempotent_and_later_spans_record_nothing(subject: Subject) -> None:
    subject.telemetry.close()
    subject.telemetry.close()
    assert subject.telemetry.enabled is False
    with subject.telemetry.span("after close") as span:
        span.set_attribute("a", "b")
    assert subject.recorded() == []


@pytest.mark.asyncio
async def test_spans_in_concurrent_tasks_stay_apart(subject: Subject) -> None:
    async def one(name: str) -> None:
        with subject.telemetry.span(name):
            await anyio.sleep(0.01)

    async with anyio.create_task_group() as tg:
        for index in range(5):
            tg.start_soon(one, f"task {index}")
    assert all(span.parent is None for span in subject.finished())  # interleaved, never nested in each other
    if isinstance(subject.telemetry, InMemoryTelemetry):
        assert all(span.parent is None for span in subject.telemetry.spans)
    expected = [] if isinstance(subject.telemetry, NoTelemetry) else [f"task {index}" for index in range(5)]
    assert sorted(subject.recorded()) == expected


def test_the_default_is_the_no_op() -> None:
    assert NO_TELEMETRY.enabled is False
    assert isinstance(NO_TELEMETRY, NoTelemetry)


# --- the recording adapter ---------------------------------------------------------------------------------


def test_names_kinds_attributes_and_nesting_are_recorded() -> None:
    subject = _otel()
    attributes = {"mcp.method.name": "initialize"}
    with (
        subject.telemetry.span("initialize demo", kind="client", attributes=attributes),
        subject.telemetry.span("inner", kind="server") as inner,
    ):
        inner.set_attribute("n", 3)
    inner_span, outer_span = subject.finished()
    assert (outer_span.name, outer_span.kind) == ("initialize demo", SpanKind.CLIENT)
    assert outer_span.attributes == {"mcp.method.name": "initialize"}
    assert outer_span.instrumentation_scope is not None and outer_span.instrumentation_scope.name == TRACER_NAME
    assert (inner_span.kind, dict(inner_span.attributes or {})) == (SpanKind.SERVER, {"n": 3})
    assert inner_span.parent is not None and inner_span.parent.span_id == outer_span.context.span_id


def test_an_escaping_exception_records_its_type_only() -> None:
    subject = _otel()
    with pytest.raises(KeyError), subject.telemetry.span("x"):
        raise KeyError("sk-live-secret")
    (span,) = subject.finished()
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description is None
    assert span.attributes == {"error.type": "KeyError"}
    assert span.events == ()  # no exception event: its message could carry argument values


def test_set_error_wins_over_the_exception_type() -> None:
    subject = _otel()
    with pytest.raises(RuntimeError), subject.telemetry.span("x") as span:
        span.set_error("-32602")
        raise RuntimeError("x")
    assert subject.finished()[0].attributes == {"error.type": "-32602"}


def test_a_trace_context_carrier_makes_the_remote_span_the_parent() -> None:
    subject = _otel()
    carrier = {"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01", "progressToken": 3}
    with subject.telemetry.span("tools/call echo", kind="server", parent=carrier):
        pass
    (span,) = subject.finished()
    assert span.context is not None and format(span.context.trace_id, "032x") == TRACE_ID
    assert span.parent is not None and format(span.parent.span_id, "016x") == PARENT_ID
    assert span.parent.is_remote


def test_a_failing_tracer_never_raises_into_the_caller() -> None:
    class Broken(TracerProvider):
        def get_tracer(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
            class Tracer:
                def start_span(self, *args: object, **kwargs: object) -> object:
                    raise RuntimeError("tracer down")

            return Tracer()

    telemetry = OtelTelemetry(Broken())
    with telemetry.span("x") as span:
        span.set_attribute("a", "b")
        span.set_error("e")
    with pytest.raises(ZeroDivisionError), telemetry.span("y"):
        _ = 1 / 0
    telemetry.close()
