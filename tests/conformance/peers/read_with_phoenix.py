"""Read every corpus recording with Arize Phoenix's own span decoder and write what Phoenix shows
of each trace to ``tests/conformance/peers/phoenix.json``. Installs nothing; run it in a
throwaway venv::

    python3.11 -m venv /tmp/peer-phoenix
    /tmp/peer-phoenix/bin/pip install -r tests/conformance/peers/requirements-phoenix.txt
    /tmp/peer-phoenix/bin/python tests/conformance/peers/read_with_phoenix.py

Phoenix decodes each OTLP span with ``phoenix.trace.otel.decode_otlp_span`` (what its OTLP
receiver does: OpenInference attributes as they are, GenAI semantic-convention attributes turned
into OpenInference ones by ``phoenix.trace.gen_ai``), stores spans, and shows per trace what this
script reads, by Phoenix's own rules:

- the trace's input and output are its root span's ``input.value`` and ``output.value`` (the
  traces table);
- tokens are the sum of ``llm.token_count.prompt`` / ``.completion`` over the LLM spans (the
  cumulative counts ``phoenix.db.insertion.span`` keeps on the root);
- the session is the ``session.id`` of the trace's spans (``phoenix.db.insertion.span``);
- models are the LLM spans' ``llm.model_name``.

Phoenix has no notion of a trace's tool calls beyond its TOOL spans, so the calls are those, in
start order: ``tool.name`` (else the span name), ``input.value`` as the arguments (else
``tool.parameters``, where the GenAI conversion puts them), ``output.value`` as the result, and
an ERROR status as the failure. Phoenix receives no OTLP log records: a recording's ``.logs.pb``
is not read.
"""

from __future__ import annotations

from collections import defaultdict
from importlib.metadata import version
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from phoenix.trace.attributes import get_attribute_value
from phoenix.trace.otel import decode_otlp_span
from phoenix.trace.schemas import Span, SpanKind, SpanStatusCode
from recording_file import recordings, signal_files, write_peer_file

ABOUT = {
    "peer": "arize-phoenix",
    "version": version("arize-phoenix"),
    "reads": "phoenix.trace.otel.decode_otlp_span per span; per trace the root span's"
    " input.value / output.value, TOOL spans, LLM spans' token counts and model, session.id",
}


def _value(span: Span, key: str) -> Any:
    return get_attribute_value(span.attributes, key)


def _tokens(llm_spans: list[Span]) -> list[int] | None:
    counted = [
        span
        for span in llm_spans
        if _value(span, "llm.token_count.prompt") is not None
        or _value(span, "llm.token_count.completion") is not None
    ]
    if not counted:
        return None
    return [
        sum(int(_value(span, "llm.token_count.prompt") or 0) for span in llm_spans),
        sum(int(_value(span, "llm.token_count.completion") or 0) for span in llm_spans),
    ]


def _call(span: Span) -> dict[str, Any]:
    arguments = _value(span, "input.value")
    return {
        "name": _value(span, "tool.name") or span.name,
        "arguments": _value(span, "tool.parameters") if arguments is None else arguments,
        "result": _value(span, "output.value"),
        "error": span.status_code is SpanStatusCode.ERROR,
    }


def _reading(spans: list[Span]) -> dict[str, Any]:
    spans = sorted(spans, key=lambda span: span.start_time)
    ids = {span.context.span_id for span in spans}
    root = next(span for span in spans if span.parent_id is None or span.parent_id not in ids)
    llm_spans = [span for span in spans if span.span_kind is SpanKind.LLM]
    sessions = [_value(span, "session.id") for span in spans if _value(span, "session.id")]
    return {
        "trace_ids": [root.context.trace_id],
        "root": root.name,
        "calls": [_call(span) for span in spans if span.span_kind is SpanKind.TOOL],
        "input": _value(root, "input.value"),
        "answer": _value(root, "output.value"),
        "tokens": _tokens(llm_spans),
        "models": sorted({m for s in llm_spans if (m := _value(s, "llm.model_name"))}),
        "session": str(sessions[0]) if sessions else None,
    }


def read(name: str) -> list[dict[str, Any]]:
    """The readings of the recording's traces, in start order."""
    request = ExportTraceServiceRequest()
    request.ParseFromString(signal_files(name)[0].read_bytes())
    by_trace: dict[str, list[Span]] = defaultdict(list)
    for resource_spans in request.resource_spans:
        for scope_spans in resource_spans.scope_spans:
            for otlp_span in scope_spans.spans:
                span = decode_otlp_span(otlp_span)
                by_trace[span.context.trace_id].append(span)
    traces = sorted(by_trace.values(), key=lambda spans: min(s.start_time for s in spans))
    return [_reading(spans) for spans in traces]


def main() -> None:
    readings = {name: read(name) for name in recordings()}
    print(f"wrote {write_peer_file('phoenix', ABOUT, readings)}")


if __name__ == "__main__":
    main()
