"""Where trailcheck's trajectory and arguments scorers differ from four peers, on the same inputs.

Builds each input of the table in ``docs/scoring.md`` (expected tool calls, and the calls the
agent made), grades it with trailcheck and with every peer that is importable, and prints the
two markdown tables (trajectories, then arguments). A peer that is not installed reads
``not installed``; one that raises reads ``error: <type>``. No model is called: every peer
evaluator used here is deterministic.

    uv run python benchmarks/peer_semantics.py                           # trailcheck only
    uv run --project benchmarks/peers python benchmarks/peer_semantics.py  # with the peers

Peers: DeepEval ``ToolCorrectnessMetric``, Google ADK ``TrajectoryEvaluator``
(``tool_trajectory_avg_score``), LangChain agentevals ``create_trajectory_match_evaluator``,
pydantic-evals ``TrajectoryMatch``, ``ToolCorrectness`` and ``ArgumentCorrectness``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Literal

from trailcheck.cases import Case
from trailcheck.scorers import ArgumentsScorer, Score, TrajectoryScorer
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

# Before DeepEval is imported: it reports usage over the network unless told not to.
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")

Call = tuple[str, dict[str, Any]]
Table = Literal["trajectory", "arguments"]
PASS, FAIL = "✓", "✗"
NOT_INSTALLED = "not installed"
USER_INPUT = "Please sort out my order."
PEER_PACKAGES = ("deepeval", "google-adk", "agentevals", "pydantic-evals")


@dataclass(frozen=True)
class Row:
    """One input: the expected calls (``None``: no expectation given) and the calls made.

    ``fields`` names, for an arguments row, a second trailcheck comparator to try besides the
    default exact one: ``{"amount": {"$compare": "number", "value": 25}}``.
    """

    label: str
    table: Table
    expected: list[Call] | None
    called: list[Call]
    fields: dict[str, Any] = field(default_factory=dict)


def _names(*names: str) -> list[Call]:
    return [(name, {}) for name in names]


ROWS: tuple[Row, ...] = (
    Row("(a) `[]` vs `[]`", "trajectory", [], []),
    Row("(b) `[]` vs `[x]`", "trajectory", [], _names("x")),
    Row("(a') not given vs `[x]`", "trajectory", None, _names("x")),
    Row("(c) `[a, b]` vs `[a, x, b]`", "trajectory", _names("a", "b"), _names("a", "x", "b")),
    Row("(d) `[a, a, b]` vs `[a, b]`", "trajectory", _names("a", "a", "b"), _names("a", "b")),
    Row("(d') `[a, b]` vs `[a, a, b]`", "trajectory", _names("a", "b"), _names("a", "a", "b")),
    Row(
        "(d'') `[a, a, b]` vs `[a, a, b]`",
        "trajectory",
        _names("a", "a", "b"),
        _names("a", "a", "b"),
    ),
    Row("(e) `[a, b]` vs `[b, a]`", "trajectory", _names("a", "b"), _names("b", "a")),
    Row(
        "(f) `refund(order=A), refund(order=B)` vs `refund(order=B), refund(order=A)`",
        "arguments",
        [("refund", {"order": "A"}), ("refund", {"order": "B"})],
        [("refund", {"order": "B"}), ("refund", {"order": "A"})],
    ),
    Row(
        "(f') `refund(order=A), refund(order=A, amount=10)` vs"
        " `refund(order=A, amount=10), refund(order=A, amount=20)`",
        "arguments",
        [("refund", {"order": "A"}), ("refund", {"order": "A", "amount": 10})],
        [("refund", {"order": "A", "amount": 10}), ("refund", {"order": "A", "amount": 20})],
    ),
    Row(
        "(f'') the calls of (f') in the other order",
        "arguments",
        [("refund", {"order": "A"}), ("refund", {"order": "A", "amount": 10})],
        [("refund", {"order": "A", "amount": 20}), ("refund", {"order": "A", "amount": 10})],
    ),
    Row(
        "(g) `refund(amount=25)` vs `refund(amount=25.0)`",
        "arguments",
        [("refund", {"amount": 25})],
        [("refund", {"amount": 25.0})],
        {"amount": {"$compare": "number", "value": 25}},
    ),
    Row(
        '(g\') `reschedule(date="2026-06-19")` vs `reschedule(date="June 19, 2026")`',
        "arguments",
        [("reschedule", {"date": "2026-06-19"})],
        [("reschedule", {"date": "June 19, 2026"})],
        {"date": {"$compare": "date", "value": "2026-06-19"}},
    ),
)


def _number(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") if value % 1 else str(int(value))


def _mark(value: float | None, passed: bool | None) -> str:
    """``0.5✗``: the value, and the peer's own verdict when it gives one."""
    shown = "" if value is None else _number(value)
    return shown + ("" if passed is None else PASS if passed else FAIL)


def _joined(parts: Sequence[str]) -> str:
    return " · ".join(parts)


# -- trailcheck -------------------------------------------------------------------------------


def build_trace(calls: Sequence[Call]) -> Trace:
    builder = TraceBuilder("peer-semantics", input=USER_INPUT)
    for name, arguments in calls:
        builder.tool(name, arguments, result={"ok": True})
    return builder.output("Done.").build()


def _case(**fields: Any) -> Case:
    return Case.model_validate({"id": "peer-semantics", "input": USER_INPUT, **fields})


def _score_mark(score: Score | None) -> str:
    return "no Score" if score is None else _mark(score.value, score.passed)


def trailcheck_trajectory(row: Row) -> list[Score | None]:
    """The trajectory scorer in each ``tool_match`` mode."""
    trace = build_trace(row.called)
    names = None if row.expected is None else [name for name, _ in row.expected]
    return [
        TrajectoryScorer().score(trace, _case(expected_tools=names, tool_match=mode))
        for mode in ("exact", "in_order", "any_order")
    ]


def trailcheck_arguments(row: Row) -> list[Score | None]:
    """The arguments scorer with exact comparators, then with ``row.fields`` when given."""
    trace = build_trace(row.called)
    variants = [{}, row.fields] if row.fields else [{}]
    return [
        ArgumentsScorer().score(
            trace,
            _case(
                expected_arguments=[
                    {"tool": name, "arguments": args | fields} for name, args in row.expected or []
                ]
            ),
        )
        for fields in variants
    ]


def trailcheck_cell(row: Row) -> str:
    scores = trailcheck_trajectory(row) if row.table == "trajectory" else trailcheck_arguments(row)
    return _joined([_score_mark(score) for score in scores])


# -- DeepEval ---------------------------------------------------------------------------------


def deepeval_cell(row: Row) -> str:
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.models import DeepEvalBaseLLM
    from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams

    class NoModel(DeepEvalBaseLLM):  # type: ignore[misc]
        """Never asked: without ``available_tools`` the metric calls no model."""

        def load_model(self) -> None:
            return None

        def generate(self, *args: Any, **kwargs: Any) -> str:
            raise AssertionError("ToolCorrectnessMetric asked a model")

        async def a_generate(self, *args: Any, **kwargs: Any) -> str:
            raise AssertionError("ToolCorrectnessMetric asked a model")

        def get_model_name(self) -> str:
            return "none"

    def calls(items: Sequence[Call] | None) -> list[Any] | None:
        if items is None:
            return None
        return [ToolCall(name=name, input_parameters=args or None) for name, args in items]

    params = [ToolCallParams.INPUT_PARAMETERS] if row.table == "arguments" else []
    marks = []
    for options in ({}, {"should_consider_ordering": True}, {"should_exact_match": True}):
        metric = ToolCorrectnessMetric(
            model=NoModel(), evaluation_params=params, async_mode=False, **options
        )
        case = LLMTestCase(
            input=USER_INPUT,
            actual_output="Done.",
            tools_called=calls(row.called),
            expected_tools=calls(row.expected),
        )
        value = metric.measure(case, _show_indicator=False)
        marks.append(_mark(value, metric.success))
    return _joined(marks)


# -- Google ADK -------------------------------------------------------------------------------


def adk_cell(row: Row) -> str:
    from google.adk.evaluation.eval_case import IntermediateData, Invocation
    from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
    from google.genai import types

    def invocation(items: Sequence[Call] | None) -> Any:
        uses = [types.FunctionCall(name=name, args=args) for name, args in items or []]
        return Invocation(
            user_content=types.Content(role="user", parts=[types.Part(text=USER_INPUT)]),
            final_response=types.Content(role="model", parts=[types.Part(text="Done.")]),
            intermediate_data=None if items is None else IntermediateData(tool_uses=uses),
        )

    marks = []
    for match_type in ("EXACT", "IN_ORDER", "ANY_ORDER"):
        criterion = ToolTrajectoryCriterion(threshold=1.0, match_type=match_type)
        metric = EvalMetric(metric_name="tool_trajectory_avg_score", criterion=criterion)
        result = TrajectoryEvaluator(eval_metric=metric).evaluate_invocations(
            [invocation(row.called)], [invocation(row.expected)]
        )
        marks.append(_mark(result.overall_score, result.overall_eval_status.name == "PASSED"))
    return _joined(marks)


# -- LangChain agentevals ---------------------------------------------------------------------


def openai_messages(items: Sequence[Call] | None) -> list[dict[str, Any]] | None:
    """A user turn, one assistant message per tool call with its tool reply, a final answer."""
    if items is None:
        return None
    messages: list[dict[str, Any]] = [{"role": "user", "content": USER_INPUT}]
    for index, (name, args) in enumerate(items):
        call_id = f"call_{index}"
        function = {"name": name, "arguments": json.dumps(args)}
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": call_id, "type": "function", "function": function}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": "ok"})
    messages.append({"role": "assistant", "content": "Done."})
    return messages


def agentevals_cell(row: Row) -> str:
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    # Arguments rows expect some fields only: "superset" asks that the call has those fields.
    args_mode = "superset" if row.table == "arguments" else "exact"
    marks = []
    for mode in ("strict", "unordered", "subset", "superset"):
        evaluator = create_trajectory_match_evaluator(
            trajectory_match_mode=mode, tool_args_match_mode=args_mode
        )
        result = evaluator(
            outputs=openai_messages(row.called), reference_outputs=openai_messages(row.expected)
        )
        marks.append(_mark(None, bool(result["score"])))
    return _joined(marks)


# -- pydantic-evals ---------------------------------------------------------------------------


def _evaluator_context(calls: Sequence[Call]) -> Any:
    from pydantic_evals.evaluators import EvaluatorContext
    from pydantic_evals.otel.span_tree import SpanNode, SpanTree

    start = datetime(2026, 6, 19, tzinfo=UTC)
    step = timedelta(milliseconds=1)
    root = SpanNode(
        name="agent run",
        trace_id=1,
        span_id=1,
        parent_span_id=None,
        start_timestamp=start,
        end_timestamp=start + step * (2 * len(calls) + 2),
        attributes={},
    )
    tools = [
        SpanNode(
            name=f"execute_tool {name}",
            trace_id=1,
            span_id=index + 2,
            parent_span_id=1,
            start_timestamp=start + step * (2 * index + 1),
            end_timestamp=start + step * (2 * index + 2),
            attributes={"gen_ai.tool.name": name, "gen_ai.tool.call.arguments": json.dumps(args)},
        )
        for index, (name, args) in enumerate(calls)
    ]
    tree = SpanTree()
    tree.add_spans([root, *tools])
    return EvaluatorContext(
        name="peer-semantics",
        inputs=USER_INPUT,
        metadata=None,
        expected_output=None,
        output="Done.",
        duration=0.0,
        _span_tree=tree,
        attributes={},
        metrics={},
    )


def pydantic_evals_cell(row: Row) -> str:
    from pydantic_evals.evaluators import ArgumentCorrectness, ToolCorrectness, TrajectoryMatch

    if row.expected is None:
        return "n/a: the expectation is a required argument"
    context = _evaluator_context(row.called)
    if row.table == "trajectory":
        names = [name for name, _ in row.expected]
        values = [
            TrajectoryMatch(expected_trajectory=names, order=order).evaluate(context).value
            for order in ("exact", "in_order", "any_order")
        ]
        correct = ToolCorrectness(expected_tools=names).evaluate(context).value
        return _joined([*(_mark(float(v), None) for v in values), _mark(None, bool(correct))])
    marks = []
    for occurrence in ("position", "first"):
        seen: dict[str, int] = {}
        verdicts = ""
        for name, args in row.expected:
            which: int | str = seen.get(name, 0) if occurrence == "position" else "first"
            seen[name] = seen.get(name, 0) + 1
            check = ArgumentCorrectness(tool_name=name, expected_arguments=args, occurrence=which)
            verdicts += _mark(None, bool(check.evaluate(context).value))
        marks.append(verdicts)
    return _joined(marks)


# -- the tables -------------------------------------------------------------------------------

PEERS: tuple[tuple[str, Callable[[Row], str]], ...] = (
    ("deepeval", deepeval_cell),
    ("google.adk", adk_cell),
    ("agentevals", agentevals_cell),
    ("pydantic_evals", pydantic_evals_cell),
)
HEADERS: dict[Table, tuple[str, ...]] = {
    "trajectory": (
        "input: expected vs called",
        "trailcheck `trajectory` exact · in_order · any_order",
        "DeepEval default · ordering · exact",
        "ADK EXACT · IN_ORDER · ANY_ORDER",
        "agentevals strict · unordered · subset · superset",
        "pydantic-evals TrajectoryMatch exact · in_order · any_order · ToolCorrectness",
    ),
    "arguments": (
        "input: expected vs called",
        "trailcheck `arguments` exact comparator · typed comparator",
        "DeepEval + INPUT_PARAMETERS default · ordering · exact",
        "ADK (args compared) EXACT · IN_ORDER · ANY_ORDER",
        "agentevals (args superset) strict · unordered · subset · superset",
        "pydantic-evals ArgumentCorrectness by position · first",
    ),
}


def peer_cell(module: str, cell: Callable[[Row], str], row: Row) -> str:
    try:
        __import__(module)
    except ImportError:
        return NOT_INSTALLED
    try:
        return cell(row)
    # A peer that raises on an input is a finding, not a reason to lose the table.
    except Exception as error:  # noqa: BLE001
        return f"error: {type(error).__name__}"


def table(kind: Table) -> str:
    headers = HEADERS[kind]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in ROWS:
        if row.table != kind:
            continue
        cells = [row.label, trailcheck_cell(row)]
        cells += [peer_cell(module, cell, row) for module, cell in PEERS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def versions() -> str:
    found = []
    for package in ("trailcheck", *PEER_PACKAGES):
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} {NOT_INSTALLED}")
    return ", ".join(found)


def main() -> None:
    print(versions())
    print()
    print(table("trajectory"))
    print()
    print(table("arguments"))


if __name__ == "__main__":
    main()
