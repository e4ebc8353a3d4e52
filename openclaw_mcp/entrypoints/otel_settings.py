"""Whether and where this process exports OpenTelemetry spans, from the standard ``OTEL_*`` variables
(docs/telemetry.md), resolved once by :meth:`entrypoints.settings.Settings.from_environ`.

Export is on only when asked for: ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` or ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set,
or ``OTEL_TRACES_EXPORTER`` names ``otlp`` (then the OTLP default ``http://localhost:4318``); never when
``OTEL_SDK_DISABLED=true`` or when ``OTEL_TRACES_EXPORTER`` is set without ``otlp`` (``none``, ``console`` …).
The exporter is OTLP over HTTP (protobuf). Read here: the endpoint (the traces endpoint as given, else the base
endpoint plus ``/v1/traces``), the headers (``OTEL_EXPORTER_OTLP_TRACES_HEADERS`` / ``OTEL_EXPORTER_OTLP_HEADERS``),
``OTEL_SERVICE_NAME`` and ``OTEL_RESOURCE_ATTRIBUTES``; the SDK reads its other variables (timeouts, certificates,
compression, batching, sampling) itself. Nothing is imported unless an ``OTEL_`` variable is set.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

__all__ = ["DEFAULT_SERVICE_NAME", "OtelExport", "otel_export"]

DEFAULT_SERVICE_NAME: Final = "openclaw-mcp"
_DEFAULT_ENDPOINT: Final = "http://localhost:4318/v1/traces"
_TRACES_PATH: Final = "v1/traces"


@dataclass(frozen=True, slots=True)
class OtelExport:
    """Where spans are exported (OTLP/HTTP): ``endpoint`` is the full traces URL."""

    endpoint: str
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    """``OTEL_EXPORTER_OTLP_*HEADERS`` (often an API key: never printed)."""
    service_name: str = DEFAULT_SERVICE_NAME
    resource_attributes: tuple[tuple[str, str], ...] = ()


def _pairs(raw: str) -> tuple[tuple[str, str], ...]:
    """``key1=value1,key2=value2`` (W3C baggage-like, percent-encoded) as pairs; malformed entries skipped."""
    if not raw.strip():
        return ()
    from urllib.parse import unquote

    pairs: list[tuple[str, str]] = []
    for entry in raw.split(","):
        key, sep, value = entry.partition("=")
        if sep and key.strip():
            pairs.append((unquote(key.strip()), unquote(value.strip())))
    return tuple(pairs)


def otel_export(environ: Mapping[str, str]) -> OtelExport | None:
    """The export of ``environ``, or ``None`` when spans are not to be exported (see the module docstring)."""
    if not any(key.startswith("OTEL_") for key in environ):
        return None
    if (environ.get("OTEL_SDK_DISABLED") or "").strip().lower() == "true":
        return None
    exporters = [name.strip().lower() for name in (environ.get("OTEL_TRACES_EXPORTER") or "").split(",")]
    exporters = [name for name in exporters if name]
    if exporters and "otlp" not in exporters:
        return None
    traces = (environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or "").strip()
    base = (environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or "").strip()
    if not (traces or base or exporters):
        return None
    if traces:
        endpoint = traces
    elif base:
        endpoint = base + _TRACES_PATH if base.endswith("/") else f"{base}/{_TRACES_PATH}"
    else:
        endpoint = _DEFAULT_ENDPOINT
    headers = environ.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") or environ.get("OTEL_EXPORTER_OTLP_HEADERS") or ""
    attributes = _pairs(environ.get("OTEL_RESOURCE_ATTRIBUTES") or "")
    resource = tuple((key, value) for key, value in attributes if key != "service.name")
    named = dict(attributes).get("service.name")
    service = (environ.get("OTEL_SERVICE_NAME") or "").strip() or named or DEFAULT_SERVICE_NAME
    return OtelExport(endpoint=endpoint, headers=_pairs(headers), service_name=service, resource_attributes=resource)
