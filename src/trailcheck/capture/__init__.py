"""Recording live agent runs as Traces: the Recorder, tool wrapping, and the OpenTelemetry
collector for agents instrumented with OpenTelemetry (ADK, LangGraph, OpenAI Agents SDK)."""

from trailcheck.capture.handles import ModelCallHandle, SpanHandle
from trailcheck.capture.ids import IdFactory, RandomIds, SeededIds
from trailcheck.capture.otel import TraceCollector
from trailcheck.capture.recorder import Recorder
from trailcheck.capture.runs import Snapshottable
from trailcheck.capture.tools import record_tool

__all__ = [
    "IdFactory",
    "ModelCallHandle",
    "RandomIds",
    "Recorder",
    "SeededIds",
    "Snapshottable",
    "SpanHandle",
    "TraceCollector",
    "record_tool",
]
