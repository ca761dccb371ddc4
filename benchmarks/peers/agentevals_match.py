"""LangChain agentevals: ``create_trajectory_match_evaluator`` on OpenAI-style messages.

Per line: the trace as an OpenAI chat transcript (the user turn; per tool span an assistant
message with one ``tool_calls`` entry, arguments as JSON text, and the ``tool`` reply carrying
the result; the final answer), scored against the case's reference transcript by one
evaluator per case, built once. Modes: ``strict`` for a case whose ``tool_match`` is ``exact``,
else ``superset`` (every reference call made, extras allowed; agentevals has no in-order mode
that allows extras), with ``tool_args_match_mode="superset"`` (the call's arguments include the
expected ones, so a reference call with ``{}`` checks the name only).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from peers.peer import LineGrader, Peer
from peers.records import expected_calls, input_text, output_text, recorded_calls
from trailcheck.cases import Case

# LangSmith tracing is off unless configured; say so, so a developer's shell cannot turn it on.
os.environ["LANGSMITH_TRACING"] = "false"

Message = dict[str, Any]


def _transcript(user: str, calls: Sequence[tuple[str, str, Any, Any]], final: str) -> list[Message]:
    """Messages for ``(call_id, name, arguments, result)`` calls."""
    messages: list[Message] = [{"role": "user", "content": user}]
    for call_id, name, arguments, result in calls:
        function = {"name": name, "arguments": orjson.dumps(arguments).decode()}
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": call_id, "type": "function", "function": function}],
            }
        )
        content = result if isinstance(result, str) else orjson.dumps(result).decode()
        messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
    messages.append({"role": "assistant", "content": final})
    return messages


def build(cases: Mapping[str, Case]) -> LineGrader:
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    checks: dict[str, tuple[Any, list[Message]]] = {}
    for case_id, case in cases.items():
        evaluator = create_trajectory_match_evaluator(
            trajectory_match_mode="strict" if case.tool_match == "exact" else "superset",
            tool_args_match_mode="superset",
        )
        reference = [
            (f"ref_{k}", name, arguments, "")
            for k, (name, arguments) in enumerate(expected_calls(case))
        ]
        text = case.input if isinstance(case.input, str) else ""
        checks[case_id] = (evaluator, _transcript(text, reference, ""))

    def grade_line(line: bytes) -> bool:
        record = orjson.loads(line)
        outputs = _transcript(
            input_text(record),
            [(c.call_id, c.name, c.arguments, c.result) for c in recorded_calls(record)],
            output_text(record),
        )
        evaluator, reference = checks[record["metadata"]["case_id"]]
        result = evaluator(outputs=outputs, reference_outputs=reference)
        return bool(result["score"])

    return grade_line


PEER = Peer(
    label="agentevals",
    distribution="agentevals",
    module="agentevals",
    computes=(
        "create_trajectory_match_evaluator(trajectory_match_mode='superset' ('strict' for"
        " exact cases), tool_args_match_mode='superset') on OpenAI-style messages"
    ),
    build=build,
)
