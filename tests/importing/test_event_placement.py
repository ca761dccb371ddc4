"""Where a model call's GenAI events are found: log records named against the step that wraps
the call (:mod:`trailcheck.importing.log_join`), and events kept in one JSON attribute
(:func:`trailcheck.importing.conventions.genai_events.events_from_json`)."""

from __future__ import annotations

import json

import pytest

from trailcheck.errors import RecordError
from trailcheck.importing import assemble_trace
from trailcheck.importing.conventions.genai_events import events_from_json
from trailcheck.importing.log_join import LogTally, join_log_events
from trailcheck.importing.records import LogEvent, RawSpan
from trailcheck.trace import SpanEvent, semconv

CHAT = {semconv.GEN_AI_OPERATION_NAME: "chat"}


def span(span_id: str, parent: str | None, attributes: dict[str, object]) -> RawSpan:
    return RawSpan("t", span_id, parent, span_id, 0, 10, attributes=dict(attributes))


def log(span_id: str, name: str, body: dict[str, object]) -> LogEvent:
    event = SpanEvent(name=name, time_ns=1, attributes={semconv.OTEL_LOG_BODY: body})
    return LogEvent("t", span_id, event, "logs.json")


USER = ("gen_ai.user.message", {"content": "Where is A-1?"})


def test_events_logged_against_a_step_are_its_only_model_calls() -> None:
    step, chat = span("step", None, {}), span("chat", "step", CHAT)
    tally = LogTally()
    joined = join_log_events([step, chat, log("step", *USER)], tally)
    assert tally.joined == 1
    assert [e.name for e in chat.events] == ["gen_ai.user.message"]
    assert step.events == []
    trace = assemble_trace([s for s in joined if isinstance(s, RawSpan)], "t.json")
    assert trace.input_text == "Where is A-1?"


@pytest.mark.parametrize(
    "children",
    [
        [span("a", "step", CHAT), span("b", "step", CHAT)],  # which call: not known
        [span("a", "step", {**CHAT, semconv.GEN_AI_INPUT_MESSAGES: "[]"})],  # has its own
        [span("a", "step", {})],  # not a model call
    ],
)
def test_events_stay_on_the_named_span_when_no_one_model_call_takes_them(
    children: list[RawSpan],
) -> None:
    step = span("step", None, {})
    join_log_events([step, *children, log("step", *USER)])
    assert [e.name for e in step.events] == ["gen_ai.user.message"]
    assert all(child.events == [] for child in children)


def test_events_in_one_json_attribute_are_read_as_span_events() -> None:
    recorded = json.dumps(
        [
            {"event.name": "gen_ai.user.message", "role": "user", "content": "Hi"},
            {"event.name": "gen_ai.choice", "index": 0, "message": {"content": "Hello"}},
        ]
    )
    events = events_from_json(recorded, "attributes.events")
    assert [(e.name, e.attributes[semconv.OTEL_LOG_BODY]) for e in events] == [
        ("gen_ai.user.message", {"role": "user", "content": "Hi"}),
        ("gen_ai.choice", {"index": 0, "message": {"content": "Hello"}}),
    ]
    with pytest.raises(RecordError) as raised:
        events_from_json('[{"content": "no name"}]', "attributes.events")
    assert raised.value.field == "attributes.events[0]"
