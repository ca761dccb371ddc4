"""A trace whose content was not recorded: the scorers and rules that read content answer
"unscorable: content not captured" with the fix, instead of a failure or a finding; what the
trace does record (the calls' names and order) is still graded."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.cases import Case, ExpectedInvocation
from trailcheck.cli import run_cli
from trailcheck.importing import import_traces
from trailcheck.loop import detect
from trailcheck.scorers import grade
from trailcheck.trace import Trace
from trailcheck.trace.content_gap import GapTally

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
REFUND_CASE = Case(
    id="refund",
    input="Please refund order A-1001, I'm ana@example.com",
    expected_tools=["lookup_order", "verify_identity", "issue_refund"],
    expected_arguments=[
        ExpectedInvocation.model_validate(
            {"tool": "issue_refund", "arguments": {"order_id": "A-1001", "amount": 129.0}}
        )
    ],
    reference_response="Refund R-77 of $129.00 has been issued for order A-1001.",
)


def refund_trace(name: str, *, with_logs: bool = True) -> Trace:
    """The recording's refund run, told by its usage (530 tokens in, 68 out, the scenario's
    script): recorded with or without content, where neither a call nor a message may be."""
    files = [REAL / f"{name}.traces.pb"]
    if with_logs and (REAL / f"{name}.logs.pb").exists():
        files.append(REAL / f"{name}.logs.pb")
    found: list[Trace] = []
    import_traces(files, found.append)
    [refund] = [
        trace
        for trace in found
        if trace.usage is not None
        and (trace.usage.input_tokens, trace.usage.output_tokens) == (530, 68)
    ]
    return refund


def test_content_scorers_are_unscorable_and_the_trajectory_is_still_graded() -> None:
    # The log records name each call (no arguments): the trajectory is known.
    graded = grade(refund_trace("openai-v2-2.4b0-no-content"), REFUND_CASE)
    assert graded.status == "unscorable"
    assert "arguments unscorable: content not captured" in graded.reason
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in graded.reason
    assert {failure.scorer for failure in graded.failures} >= {"arguments", "response"}
    [trajectory] = [score for score in graded.scores if score.scorer == "trajectory"]
    assert trajectory.passed


def test_without_any_message_even_the_trajectory_is_unscorable() -> None:
    # The spans alone: no tool span, no message, so no call is known, not "no call was made".
    graded = grade(refund_trace("openai-v2-2.4b0-no-content", with_logs=False), REFUND_CASE)
    assert graded.status == "unscorable"
    assert "trajectory unscorable: content not captured" in graded.reason
    assert graded.scores == ()


def test_the_same_run_with_content_captured_passes() -> None:
    graded = grade(refund_trace("openai-v2-2.4b0-span-only"), REFUND_CASE)
    assert graded.status == "passed", graded.reason


@pytest.mark.parametrize("name", ["openai-v2-2.4b0-no-content", "adk-2.13.0"])
def test_rules_that_read_content_invent_no_finding_and_the_gap_is_counted(name: str) -> None:
    trace = refund_trace(name)
    gaps = GapTally()
    labels = {finding.label for finding in detect([trace], gaps=gaps)}
    # Without the gap rule, an empty answer is "no_final_answer" and the calls look repeated.
    assert "no_final_answer" not in labels
    assert "unsupported_number_in_answer" not in labels
    assert sum(gaps.by_fix.values()) == 1


def test_import_warns_once_per_kind_of_gap_with_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = [
        REAL / "openai-v2-2.4b0-no-content.traces.pb",
        REAL / "openai-v2-2.4b0-no-content.logs.pb",
        REAL / "pydantic-ai-2.68.0-no-content.traces.pb",
    ]
    assert run_cli(["import", *map(str, sources), "-o", str(tmp_path / "out.jsonl")]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 2
    assert any("include_content=True" in line for line in warnings)
    assert any("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in line for line in warnings)
