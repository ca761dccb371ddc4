"""The session a trace belongs to: the conversation id, else the session id, else none."""

from __future__ import annotations

from typing import Any

import pytest

from trailcheck.trace import Trace
from trailcheck.trace.session import session_id, session_id_from_metadata


def _trace(**metadata: Any) -> Trace:
    return Trace(trace_id="t", metadata=metadata)


def test_the_conversation_id_comes_first_then_the_session_id() -> None:
    assert session_id(_trace(conversation_id="c1", session_id="s1")) == "c1"
    assert session_id(_trace(session_id="s1")) == "s1"
    assert session_id(_trace(conversation_id="c1")) == "c1"
    assert session_id(_trace()) is None
    assert session_id(_trace(agent_name="shop", scenario_id="x")) is None


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"conversation_id": 42}, "42"),
        ({"conversation_id": "", "session_id": "s1"}, "s1"),
        ({"conversation_id": ["c1"], "session_id": "s1"}, "s1"),
        ({"conversation_id": True, "session_id": 7}, "7"),
        ({"conversation_id": 1.5}, None),
        ({"conversation_id": None, "session_id": None}, None),
    ],
)
def test_only_text_and_integers_are_identifiers(
    metadata: dict[str, Any], expected: str | None
) -> None:
    assert session_id_from_metadata(metadata) == expected
    assert session_id(_trace(**metadata)) == expected
