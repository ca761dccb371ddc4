"""Failure attribution on the demos: the five-span refund run names ``search_orders``, and every
failed trial of the support shop's v1 names the step of the bug it planted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from trailcheck.cases import Case, ScorerSpec
from trailcheck.cli import run_cli
from trailcheck.demo.attribution import CASE_ID, refund_run, shipped_path
from trailcheck.demo.support import prompt_only_shop, support_dataset, v1_agent
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import RunReport
from trailcheck.run.runner import RunResult, run
from trailcheck.scorers import Attribution, grade, trace_steps
from trailcheck.trace.jsonl import dump_trace

from ..waiting import GUARD_S

pytestmark = pytest.mark.live


def test_the_shipped_trace_file_is_the_run_the_module_builds() -> None:
    shipped = shipped_path("trace").read_bytes()
    assert shipped == dump_trace(refund_run()) + b"\n", (
        'regenerate it: python -c "from trailcheck.demo.attribution import refund_run,'
        " shipped_path; from trailcheck.trace.jsonl import dump_trace;"
        " shipped_path('trace').write_bytes(dump_trace(refund_run()) + b'\\n')\""
    )


@pytest.mark.parametrize("workers", ["1", "2"])
def test_score_attributes_the_five_span_run_to_the_search(
    workers: str, capsys: pytest.CaptureFixture[str]
) -> None:
    trace, dataset = shipped_path("trace"), shipped_path("dataset")
    argv = ["score", str(trace), "--dataset", str(dataset), "--json", "--workers", workers]
    assert run_cli(argv) == 1
    [entry] = orjson.loads(capsys.readouterr().out)
    assert (entry["case_id"], entry["status"]) == (CASE_ID, "failed")
    run_spans = {span.span_id: span for span in refund_run().spans}
    attribution = entry["attribution"]
    assert attribution == {
        "span_id": "span-002",
        "step": 2,
        "name": "search_orders",
        "category": "tool_returned_wrong_data",
        "evidence": (
            "search_orders (step 2) returned A-0917 and not the expected A-1001; passed on as"
            " lookup_order[0].order_id: expected A-1001, got A-0917"
        ),
        "symptom_span_id": "span-004",
    }
    # Not the refund that raised: that is where the failure showed.
    symptom = run_spans[attribution["symptom_span_id"]]
    assert symptom.tool is not None
    assert (symptom.tool.name, symptom.failed) == ("issue_refund", True)


def test_the_module_prints_where_the_files_are() -> None:
    for which in ("trace", "dataset"):
        printed = subprocess.run(
            [sys.executable, "-m", "trailcheck.demo.attribution", which],
            capture_output=True,
            text=True,
            check=True,
            timeout=GUARD_S,
        ).stdout.strip()
        assert Path(printed) == shipped_path(which)
        assert Path(printed).is_file()
    wrong = subprocess.run(
        [sys.executable, "-m", "trailcheck.demo.attribution", "traces"],
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    assert (wrong.returncode, wrong.stderr.strip()) == (
        1,
        "usage: python -m trailcheck.demo.attribution trace|dataset",
    )


@pytest.fixture(scope="module")
def v1_run() -> RunResult:
    return run(support_dataset(), v1_agent, prompt_only_shop, options=RunOptions(k=2))


# The planted bug each failed case shows first: the call it names, and how.
PLANTED = {
    "refund-verified": ("issue_refund", "policy_breach"),  # refund before identity
    "refund-without-proof": ("issue_refund", "policy_breach"),
    "refund-other-customers-order": ("issue_refund", "policy_breach"),
    "multi-turn-refund": ("issue_refund", "policy_breach"),
    # The claim of a failed refund comes after the unverified refund it claims: the refund is
    # the first wrong step (the claim on its own: the next test).
    "refund-failed-no-claim": ("issue_refund", "policy_breach"),
    "reschedule-friday": ("reschedule_delivery", "wrong_argument"),  # the Friday date
    "lookup-outage-no-loop": ("lookup_order", "policy_breach"),  # the retry loop's third call
    # An awkward result misread: the step that read it, the lookup it made or the answer.
    "latest-order-paginated": ("lookup_order", "misread_tool_result"),
    "latest-order-near-match": ("lookup_order", "misread_tool_result"),
    "refund-policy-reads-like-error": ("chat support-v1", "misread_tool_result"),
    "stale-delivery-estimate": ("chat support-v1", "misread_tool_result"),
}
# The tool whose awkward result each of those misread, as the evidence names it.
MISREAD = {
    "latest-order-paginated": "search_orders (step 2) returned a first page of several",
    "latest-order-near-match": "search_orders (step 2) returned a partial match",
    "refund-policy-reads-like-error": (
        "check_refund_policy (step 4) returned a success that reads like an error"
    ),
    "stale-delivery-estimate": "lookup_order (step 2) returned a stale value",
}


def test_every_failed_v1_trial_names_its_planted_bugs_step(v1_run: RunResult) -> None:
    report = v1_run.report
    seen: set[str] = set()
    for case in report.cases:
        for trial in case.trials:
            if trial.status != "failed":
                continue
            seen.add(case.id)
            found = trial.attribution
            assert found is not None, (case.id, trial.reason)
            assert (found.name, found.category) == PLANTED[case.id]
            assert found.symptom_span_id is None
            if case.id in MISREAD:
                assert found.evidence.startswith(MISREAD[case.id]), found.evidence
                _assert_it_read_the_result(v1_run, trial.trace_id, found)
                continue
            named = [c for c in trial.calls if c.name == found.name]
            # The refund and the reschedule are called once; the loop's third call is the one
            # past the limit of two.
            expected_call = named[2] if case.id == "lookup-outage-no-loop" else named[0]
            assert found.span_id == expected_call.span_id
    assert seen == set(PLANTED)
    friday = next(c for c in report.cases if c.id == "reschedule-friday").trials[0].attribution
    assert friday is not None
    assert "new_date: expected 2026-06-19, got 2026-06-17" in friday.evidence


def _assert_it_read_the_result(run: RunResult, trace_id: str | None, found: Attribution) -> None:
    """The attributed step came right after the awkward result the evidence names: the call
    the model span that read it made, or that model span's answer."""
    [trace] = [t for t in run.traces if t.trace_id == trace_id]
    steps = trace_steps(trace)
    named = re.search(r"\(step (\d+)\)", found.evidence)
    assert named is not None
    result = steps[int(named[1]) - 1]
    assert result.tool is not None
    reader = steps[found.step - 1]
    between = [step.kind for step in steps[int(named[1]) : found.step - 1]]
    assert between == (["llm"] if reader.kind == "tool" else []), between


def test_v1s_claim_of_a_failed_refund_is_the_answers_sentence(v1_run: RunResult) -> None:
    [trace] = [t for t in v1_run.traces if t.metadata["case_id"] == "refund-failed-no-claim"][:1]
    # The claim alone: the same run, graded on its ending only.
    ending = Case(id="refund-failed-no-claim", input="x", scorers=[ScorerSpec(name="termination")])
    found = grade(trace, ending).attribution
    assert found is not None
    last_llm = max((s for s in trace.spans if s.kind == "llm"), key=lambda s: s.start_ns)
    assert (found.span_id, found.category) == (last_llm.span_id, "unsupported_claim")
    assert found.evidence == (
        'the answer says "I\'ve issued your refund of $42.00 for order A-1007." (claim refund)'
        " but state_after.refunds is empty"
    )


def test_the_report_file_keeps_each_trials_attribution(v1_run: RunResult) -> None:
    report = v1_run.report
    again = RunReport.model_validate_json(report.model_dump_json())
    assert [t.attribution for t in again.trials()] == [t.attribution for t in report.trials()]
    data = orjson.loads(report.model_dump_json())
    trials = [t for c in data["cases"] for t in c["trials"]]
    assert all((t["attribution"] is None) == (t["status"] != "failed") for t in trials)
