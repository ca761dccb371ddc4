"""Redacting whole traces (``ingest --redact``) and the spans and log records ``serve`` receives:
every place content can be, the counts on the trace, and a trace that keeps its shape."""

from __future__ import annotations

import orjson

from trailcheck.importing.records import LogEvent, RawSpan
from trailcheck.redaction import (
    REDACTIONS_KEY,
    FieldRule,
    RedactionTally,
    Redactor,
    builtin_redactor,
    redact_log,
    redact_span,
    redact_trace,
    redact_traces,
    with_span_counts,
)
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Message, SpanEvent, Trace

EMAIL = "ann@example.com"
CARD = "4111 1111 1111 1111"
KEY = "sk-proj-abcdefghijklmnop1234"


def _trace() -> Trace:
    return (
        TraceBuilder("t1", input=f"refund order 42, I'm {EMAIL}")
        .tool(
            "issue_refund",
            {"order_id": 42, "card": CARD, "customer_id": "C-1"},
            result={"ok": True, "receipt_to": EMAIL},
        )
        .output(f"Refunded to card {CARD}.")
        .state(before={"cards": [CARD]}, after={"cards": []})
        .metadata(user_email=EMAIL, tier="gold")
        .build()
    )


def test_a_trace_is_redacted_everywhere_and_keeps_its_shape() -> None:
    trace = _trace()
    redactor = Redactor(
        fields=[FieldRule("hash:customer_id", "customer_id", "hash")], hash_key=b"k" * 16
    )
    redacted = redact_trace(trace, redactor)
    dumped = redacted.model_dump_json()
    assert EMAIL not in dumped
    assert "4111" not in dumped
    assert "C-1" not in dumped
    assert redacted.input == "refund order 42, I'm [REDACTED:email]"
    [call] = redacted.tool_calls
    assert call.name == "issue_refund"
    assert call.arguments["order_id"] == 42  # a number stays
    assert call.arguments["card"] == "[REDACTED:card_number]"
    assert call.arguments["customer_id"].startswith("hmac-sha256:")
    assert call.result == {"ok": True, "receipt_to": "[REDACTED:email]"}
    assert redacted.final_output == "Refunded to card [REDACTED:card_number]."
    assert redacted.state_before == {"cards": ["[REDACTED:card_number]"]}
    assert redacted.metadata["tier"] == "gold"
    assert redacted.metadata[REDACTIONS_KEY] == {
        "card_number": {
            "final_output": 1,
            "span.tool.arguments": 1,
            "state_before": 1,
        },
        "email": {"input": 1, "metadata.user_email": 1, "span.tool.result": 1},
        "hash:customer_id": {"span.tool.arguments": 1},
    }
    assert [span.span_id for span in redacted.spans] == [span.span_id for span in trace.spans]


def test_a_trace_with_nothing_to_redact_is_the_same_trace() -> None:
    trace = TraceBuilder("t2", input="where is order 42?").tool("lookup", {"id": 42}).build()
    assert redact_trace(trace, builtin_redactor()) is trace


def test_messages_and_span_attributes_and_events_are_redacted() -> None:
    messages = [
        Message(role="user", content=f"I'm {EMAIL}"),
        Message(role="assistant", content="ok"),
    ]
    trace = TraceBuilder("t3", input=messages).build()
    span = trace.spans[0].model_copy(
        update={
            "attributes": {"http.request.header.authorization": [f"Bearer {KEY}"], "n": 1},
            "events": [SpanEvent(name="log", time_ns=1, attributes={"body": f"key {KEY}"})],
        }
    )
    redacted = redact_trace(trace.model_copy(update={"spans": [span]}), builtin_redactor())
    assert isinstance(redacted.input, list)
    assert redacted.input[0].content == "I'm [REDACTED:email]"
    assert redacted.input[1] is messages[1]
    assert redacted.spans[0].attributes == {
        "http.request.header.authorization": ["[REDACTED:secret_field]"],
        "n": 1,
    }
    assert redacted.spans[0].events[0].attributes == {"body": "key [REDACTED:api_key]"}
    assert redacted.metadata[REDACTIONS_KEY] == {
        "api_key": {"span.events.attributes.body": 1},
        "email": {"input": 1},
        "secret_field": {"span.attributes.http.request.header.authorization": 1},
    }


def test_redact_traces_tallies_what_it_redacted() -> None:
    tally = RedactionTally()
    clean = TraceBuilder("t4", input="hello").build()
    traces = list(redact_traces([_trace(), clean], builtin_redactor(), tally))
    assert traces[1] is clean
    assert (tally.traces, tally.redactions) == (1, 6)
    assert tally.by_rule == {"card_number": 3, "email": 3}


def _span(**attributes: object) -> RawSpan:
    return RawSpan(
        trace_id="a" * 32,
        span_id="b" * 16,
        parent_id=None,
        name="execute_tool refund",
        start_ns=1,
        end_ns=2,
        attributes=dict(attributes),
        resource={"service.name": "shop", "owner.email": EMAIL},
    )


def test_a_received_span_is_redacted_and_counts_itself() -> None:
    arguments = orjson.dumps({"card": CARD, "amount": 20}).decode()
    span = _span(**{"gen_ai.tool.call.arguments": arguments, "gen_ai.tool.name": "refund"})
    redacted = redact_span(span, builtin_redactor())
    assert orjson.loads(redacted.attributes["gen_ai.tool.call.arguments"]) == {
        "card": "[REDACTED:card_number]",
        "amount": 20,
    }
    assert redacted.resource == {"service.name": "shop", "owner.email": "[REDACTED:email]"}
    assert redacted.attributes[REDACTIONS_KEY] == {
        "card_number": {"span.attributes.gen_ai.tool.call.arguments": 1},
        "email": {"span.resource.owner.email": 1},
    }
    # Deterministic: a retry of the span is redacted to the same span.
    assert redact_span(span, builtin_redactor()) == redacted
    assert span.attributes["gen_ai.tool.call.arguments"] == arguments  # the input is not changed


def test_a_log_record_is_redacted_and_counts_itself() -> None:
    event = SpanEvent(
        name="gen_ai.user.message", time_ns=5, attributes={"otel.log.body": {"content": EMAIL}}
    )
    log = LogEvent("a" * 32, "b" * 16, event, source="<logs>")
    redacted = redact_log(log, builtin_redactor())
    assert redacted.event.attributes == {
        "otel.log.body": {"content": "[REDACTED:email]"},
        REDACTIONS_KEY: {"email": {"log.attributes.otel.log.body": 1}},
    }
    clean = LogEvent("a" * 32, "b" * 16, SpanEvent(name="x", time_ns=1), source="<logs>")
    assert redact_log(clean, builtin_redactor()) is clean


def test_the_counts_spans_carry_are_added_up_on_the_trace() -> None:
    trace = TraceBuilder("t5", input="x").build()
    counted = trace.spans[0].model_copy(
        update={
            "attributes": {REDACTIONS_KEY: {"email": {"span.attributes.a": 2}}},
            "events": [
                SpanEvent(
                    name="e",
                    time_ns=1,
                    attributes={REDACTIONS_KEY: {"email": {"log.attributes.otel.log.body": 1}}},
                )
            ],
        }
    )
    summed = with_span_counts(trace.model_copy(update={"spans": [counted]}))
    assert summed.metadata[REDACTIONS_KEY] == {
        "email": {"log.attributes.otel.log.body": 1, "span.attributes.a": 2}
    }
    assert with_span_counts(trace) is trace
    # An attribute of that name that is not counts is not read as counts.
    odd = trace.spans[0].model_copy(update={"attributes": {REDACTIONS_KEY: "hello"}})
    assert (
        REDACTIONS_KEY not in with_span_counts(trace.model_copy(update={"spans": [odd]})).metadata
    )


def test_an_event_name_is_redacted_as_a_span_name_is() -> None:
    # An event's name is free text: span.add_event(f"charge declined for {email}").
    named = SpanEvent(name=f"charge declined for {EMAIL}", time_ns=1)
    plain = SpanEvent(name="retry", time_ns=2)
    span = _span(**{"gen_ai.tool.name": "refund"})
    span.events = [named, plain]
    redacted = redact_span(span, builtin_redactor())
    assert [event.name for event in redacted.events] == [
        "charge declined for [REDACTED:email]",
        "retry",
    ]
    assert redacted.events[1] is plain
    assert redacted.attributes[REDACTIONS_KEY]["email"]["span.events.name"] == 1

    trace = TraceBuilder("t6", input="x").build()
    stored = trace.spans[0].model_copy(update={"events": [named, plain]})
    whole = redact_trace(trace.model_copy(update={"spans": [stored]}), builtin_redactor())
    assert [event.name for event in whole.spans[0].events] == [
        "charge declined for [REDACTED:email]",
        "retry",
    ]
    assert whole.metadata[REDACTIONS_KEY] == {"email": {"span.events.name": 1}}
