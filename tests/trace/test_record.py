"""The public API of the one trace model (msgspec records, trace/record.py): what users call on a
Trace keeps working, and a pydantic model can hold a record."""

import orjson
import pytest
from pydantic import BaseModel, ValidationError

from trailcheck.errors import RecordError
from trailcheck.scorers import Score
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Message, Trace


def _trace() -> Trace:
    builder = TraceBuilder(trace_id="t1", input="refund A-1")
    builder.tool("lookup_order", {"order_id": "A-1"}, result={"status": "delivered"})
    builder.tool("issue_refund", {"order_id": "A-1", "amount": 129.0}, result="ok")
    return builder.output("Refunded $129.00 for A-1.").build()


def test_the_calls_users_make_on_a_trace_keep_working() -> None:
    trace = _trace()
    assert [call.name for call in trace.tool_calls] == ["lookup_order", "issue_refund"]
    assert trace.tool_calls[1].arguments == {"order_id": "A-1", "amount": 129.0}
    assert Trace.model_validate_json(trace.model_dump_json()) == trace
    assert Trace.model_validate(trace.model_dump()) == trace
    assert trace.model_dump()["metadata"] == {}  # every field, defaults too
    copied = trace.model_copy(update={"spans": trace.spans[:2]})  # the root, the first call
    assert [call.name for call in copied.tool_calls] == ["lookup_order"]  # views made anew
    assert [call.name for call in trace.tool_calls] == ["lookup_order", "issue_refund"]
    schema = Trace.model_json_schema()
    assert schema["title"] == "Trace"
    assert {"Span", "Message"} <= set(schema["$defs"])


def test_an_invalid_value_names_its_field_and_is_a_value_error() -> None:
    line = orjson.dumps({"trace_id": "t", "spans": [{"trace_id": "t", "span_id": "s"}]})
    with pytest.raises(RecordError) as refused:
        Trace.model_validate_json(line)
    assert refused.value.field == "spans[0].name"
    assert isinstance(refused.value, ValueError)
    with pytest.raises(RecordError, match="expected one of 'assistant'"):
        Message.model_validate({"role": "robot"})
    with pytest.raises(RecordError, match="required field is missing"):
        Trace.model_validate_json(b"{}")


class _Holder(BaseModel):
    messages: list[Message]
    score: Score | None = None


def test_a_pydantic_model_holds_records_validated_and_dumped_as_pydantic_did() -> None:
    held = _Holder.model_validate({"messages": [{"role": "user", "content": "hi"}]})
    assert held.messages == [Message(role="user", content="hi")]
    assert held.model_dump()["messages"][0] == {
        "role": "user",
        "content": "hi",
        "tool_calls": [],
        "tool_call_id": None,
        "name": None,
    }
    assert held.model_dump(exclude_none=True)["messages"][0] == {
        "role": "user",
        "content": "hi",
        "tool_calls": [],
    }
    assert _Holder.model_validate_json(held.model_dump_json()) == held
    with pytest.raises(ValidationError, match="role"):
        _Holder.model_validate({"messages": [{"role": "robot"}]})
    schema = _Holder.model_json_schema()
    assert "role" in orjson.dumps(schema).decode()
