"""Google ADK: ``TrajectoryEvaluator`` (``tool_trajectory_avg_score``) on ``Invocation`` objects.

Per line: an ``Invocation`` (user content, final response, ``IntermediateData`` with a
``FunctionCall`` and a ``FunctionResponse`` per tool span) is compared with the case's expected
invocation (its reference run's whole calls) by one evaluator per case, built once: the case's
match type (``EXACT``, ``IN_ORDER``, ``ANY_ORDER``: the same three modes as trailcheck's) with
arguments compared. ADK compares a call's whole ``args`` for equality, so an expected call is
stated whole; it has no per-field comparison.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from peers.peer import LineGrader, Peer
from peers.records import RecordedCall, input_text, output_text, recorded_calls, reference_calls
from trailcheck.cases import Case

_MATCH_TYPES = {"exact": "EXACT", "in_order": "IN_ORDER", "any_order": "ANY_ORDER"}


def _evaluator(match_type: str, *, ignore_args: bool) -> Any:
    from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

    criterion = ToolTrajectoryCriterion(
        threshold=1.0,
        match_type=ToolTrajectoryCriterion.MatchType[match_type],
        ignore_args=ignore_args,
    )
    metric = EvalMetric(metric_name="tool_trajectory_avg_score", criterion=criterion)
    return TrajectoryEvaluator(eval_metric=metric)


def _response(result: Any) -> dict[str, Any]:
    """A FunctionResponse's ``response`` is an object: ADK wraps anything else as ``result``."""
    if isinstance(result, str):
        with contextlib.suppress(orjson.JSONDecodeError):  # text that is not JSON stays text
            result = orjson.loads(result)
    return result if isinstance(result, dict) else {"result": result}


def _invocation(
    user: str, final: str, calls: Sequence[tuple[str, dict[str, Any]]], results: Sequence[Any]
) -> Any:
    from google.adk.evaluation.eval_case import IntermediateData, Invocation
    from google.genai import types

    return Invocation(
        user_content=types.Content(role="user", parts=[types.Part(text=user)]),
        final_response=types.Content(role="model", parts=[types.Part(text=final)]),
        intermediate_data=IntermediateData(
            tool_uses=[types.FunctionCall(name=name, args=args) for name, args in calls],
            tool_responses=[
                types.FunctionResponse(name=name, response=_response(result))
                for (name, _), result in zip(calls, results, strict=False)
            ],
        ),
    )


def _actual(record: dict[str, Any], calls: Sequence[RecordedCall]) -> Any:
    return _invocation(
        input_text(record),
        output_text(record),
        [(call.name, call.arguments) for call in calls],
        [call.result for call in calls],
    )


def build(cases: Mapping[str, Case]) -> LineGrader:
    checks: dict[str, tuple[Any, Any]] = {}
    for case_id, case in cases.items():
        text = case.input if isinstance(case.input, str) else ""
        evaluator = _evaluator(_MATCH_TYPES[case.tool_match], ignore_args=False)
        checks[case_id] = (evaluator, _invocation(text, "", reference_calls(case), []))

    def grade_line(line: bytes) -> bool:
        record = orjson.loads(line)
        actual = _actual(record, recorded_calls(record))
        evaluator, expected = checks[record["metadata"]["case_id"]]
        result = evaluator.evaluate_invocations([actual], [expected])
        return bool(result.overall_eval_status.name == "PASSED")

    return grade_line


PEER = Peer(
    label="Google ADK",
    distribution="google-adk",
    module="google.adk",
    computes=(
        "TrajectoryEvaluator (tool_trajectory_avg_score, threshold 1, match type from"
        " tool_match, args compared) on Invocations, against the reference run's whole calls"
    ),
    build=build,
)
