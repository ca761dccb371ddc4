"""DeepEval: ``ToolCorrectnessMetric`` on an ``LLMTestCase``, with no model and no network.

Per line: an ``LLMTestCase`` with ``tools_called`` (a ``ToolCall`` per tool span: name,
arguments as ``input_parameters``, the result as ``output``) and as ``expected_tools`` the
reference run's whole calls (DeepEval scores arguments by the keys equal over all keys, so a
partial expectation never scores 1), measured by one metric per case:
``evaluation_params=[INPUT_PARAMETERS]``, ordering considered unless the case says
``any_order``, exact match for ``exact``, threshold 1. Without ``available_tools`` the metric
asks no model; the stand-in model below raises if it ever does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import orjson

from peers.peer import LineGrader, Peer
from peers.records import input_text, output_text, recorded_calls, reference_calls
from trailcheck.cases import Case

# Before DeepEval is first imported: it reports usage over the network unless told not to.
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("DEEPEVAL_UPDATE_WARNING_OPT_OUT", "YES")


def _no_model() -> Any:
    from deepeval.models import DeepEvalBaseLLM

    class NoModel(DeepEvalBaseLLM):  # type: ignore[misc]
        """Stands in for the judge model DeepEval insists on building; never asked."""

        def load_model(self, *args: Any, **kwargs: Any) -> None:
            return None

        def generate(self, *args: Any, **kwargs: Any) -> str:
            raise AssertionError("ToolCorrectnessMetric asked a model")

        async def a_generate(self, *args: Any, **kwargs: Any) -> str:
            raise AssertionError("ToolCorrectnessMetric asked a model")

        def get_model_name(self, *args: Any, **kwargs: Any) -> str:
            return "none"

    return NoModel()


def _metric(case: Case, model: Any) -> Any:
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.test_case import ToolCallParams

    return ToolCorrectnessMetric(
        model=model,
        threshold=1.0,
        evaluation_params=[ToolCallParams.INPUT_PARAMETERS],
        should_consider_ordering=case.tool_match != "any_order",
        should_exact_match=case.tool_match == "exact",
        async_mode=False,
    )


def build(cases: Mapping[str, Case]) -> LineGrader:
    from deepeval.test_case import LLMTestCase, ToolCall

    model = _no_model()
    metrics = {case_id: _metric(case, model) for case_id, case in cases.items()}
    expected = {
        case_id: [ToolCall(name=name, input_parameters=a) for name, a in reference_calls(case)]
        for case_id, case in cases.items()
    }

    def grade_line(line: bytes) -> bool:
        record = orjson.loads(line)
        case_id = record["metadata"]["case_id"]
        test_case = LLMTestCase(
            input=input_text(record),
            actual_output=output_text(record),
            tools_called=[
                ToolCall(name=call.name, input_parameters=call.arguments, output=call.result)
                for call in recorded_calls(record)
            ],
            expected_tools=expected[case_id],
        )
        metric = metrics[case_id]
        metric.measure(test_case, _show_indicator=False)
        return bool(metric.success)

    return grade_line


PEER = Peer(
    label="DeepEval",
    distribution="deepeval",
    module="deepeval",
    computes=(
        "ToolCorrectnessMetric(evaluation_params=[INPUT_PARAMETERS], should_consider_ordering="
        "tool_match != any_order, threshold 1) on an LLMTestCase, against the reference run's"
        " whole calls; no available_tools, so no model is asked"
    ),
    build=build,
)
