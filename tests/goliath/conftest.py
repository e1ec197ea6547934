"""Fixtures for the harness tests: an OpenTelemetry SDK that keeps finished spans in memory."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def exporter() -> Any:
    """An in-memory span exporter (the OpenTelemetry SDK's own test exporter)."""
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter: Any) -> Any:
    """A tracer provider that exports every span to ``exporter`` as soon as it ends."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    return tracer_provider
