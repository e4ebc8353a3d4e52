"""The exporting tracer provider: the OpenTelemetry SDK's ``TracerProvider`` with a ``BatchSpanProcessor`` over
the OTLP/HTTP (protobuf) span exporter. Needs the ``otel`` extra (``opentelemetry-sdk``,
``opentelemetry-exporter-otlp-proto-http``): without it :func:`otlp_tracer_provider` raises ``ImportError``.

The batch is flushed by the returned shutdown, which runs at interpreter exit or when the telemetry adapter is
closed, whichever comes first, and waits at most :data:`EXIT_FLUSH_S` seconds: a collector that is down would
otherwise hold the exit for the exporter's whole retry budget (``OTEL_EXPORTER_OTLP_TIMEOUT``, 10 s); after the
bound the exporter is shut down, which aborts its retries, and what was not sent is dropped.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

__all__ = ["EXIT_FLUSH_S", "otlp_tracer_provider"]

EXIT_FLUSH_S: Final = 3.0
"""How long the shutdown waits for the last batch."""


def otlp_tracer_provider(
    endpoint: str,
    *,
    headers: Sequence[tuple[str, str]] = (),
    service_name: str,
    resource_attributes: Sequence[tuple[str, str]] = (),
) -> tuple[TracerProvider, Callable[[], None]]:
    """A provider exporting to the OTLP/HTTP traces ``endpoint`` (the full URL) with ``headers``, its resource
    ``service.name`` plus ``resource_attributes``; and its bounded, idempotent shutdown (registered with
    ``atexit``). Raises ``ImportError`` without the ``otel`` extra."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({**dict(resource_attributes), "service.name": service_name})
    provider = TracerProvider(resource=resource, shutdown_on_exit=False)
    exporter = OTLPSpanExporter(endpoint=endpoint, headers=dict(headers) or None)
    provider.add_span_processor(BatchSpanProcessor(exporter))
    done = threading.Event()

    def shutdown() -> None:
        if done.is_set():
            return
        done.set()
        flushing = threading.Thread(target=provider.shutdown, name="otel-shutdown", daemon=True)
        flushing.start()
        flushing.join(EXIT_FLUSH_S)
        if flushing.is_alive():
            exporter.shutdown()  # type: ignore[no-untyped-call]  # aborts the retries; the flush ends unsent
            flushing.join(1.0)

    atexit.register(shutdown)
    return provider, shutdown
