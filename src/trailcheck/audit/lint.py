"""Static lint: defects a dataset shows without running anything.

=====================  ========  ======================================================
check                  severity  flagged when
=====================  ========  ======================================================
no_effective_check     high      only generic scorers (efficiency, termination,
                                 grounding) would grade the case, and it has no rubric
zero_threshold         high      ``tool_threshold: 0`` with expected tools, or a scorer
                                 spec with ``threshold: 0``: the check cannot fail
writes_without_state   medium    a write tool is expected but neither ``expected_state``
                                 nor a ``replay_state`` scorer checks what it did
knowledge_rubric       medium    :func:`~trailcheck.judge.lint.lint_rubric` says the
                                 rubric asserts a fact (it belongs in a reference)
vague_rubric           low       the rubric names no explicit criterion
candidate_in_release   medium    a case not approved in a release suite (one with a
                                 gate, or with approved cases): it is not a test
contradiction          medium    two parts of a case (rubrics, reference, expected
                                 tools) require and forbid one behaviour; see
                                 :mod:`.contradictions` for the heuristics and limits
split_leakage          medium    a regression and a holdout input are near duplicates
                                 (token Jaccard >= 0.8, the similarity shown)
=====================  ========  ======================================================

Write tools are those given (``write_tools``), else named by the prefixes of
:data:`WRITE_PREFIXES` (``issue_refund``, ``cancel_order``): a heuristic, documented as one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from trailcheck.audit.contradictions import check_contradictions
from trailcheck.audit.finding import Finding
from trailcheck.cases import Case, Dataset
from trailcheck.judge.lint import lint_rubric
from trailcheck.run.preflight import user_turns
from trailcheck.scorers import GENERIC_SCORERS, case_scorers, run_scorer
from trailcheck.testing import TraceBuilder

WRITE_PREFIXES = ("issue_", "reschedule_", "cancel_", "update_", "create_", "delete_")
LEAKAGE_THRESHOLD = 0.8
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def is_write_tool(name: str, write_tools: Collection[str] | None = None) -> bool:
    """Whether ``name`` writes: listed in ``write_tools``, else by its prefix."""
    if write_tools is not None:
        return name in write_tools
    return name.startswith(WRITE_PREFIXES)


def _expected_tool_names(case: Case) -> list[str]:
    return [*(case.expected_tools or []), *(e.tool for e in case.expected_arguments)]


def effective_scorers(case: Case) -> list[str]:
    """The scorers that would give ``case`` a Score (on an empty trace) and are not generic."""
    trace = TraceBuilder(f"lint-{case.id}", input=case.input).state(before={}, after={}).build()
    names: list[str] = []
    for scorer in case_scorers(case):
        outcome = run_scorer(scorer, trace, case)
        if outcome is not None and scorer.name not in GENERIC_SCORERS:
            names.append(scorer.name)
    return names


def _no_effective_check(case: Case) -> list[Finding]:
    if case.rubrics or effective_scorers(case):
        return []
    message = (
        "no case-specific check: only generic scorers (efficiency, termination, grounding) apply,"
        " so any fluent answer passes or the case is unscorable"
    )
    return [Finding(case_id=case.id, check="no_effective_check", severity="high", message=message)]


def _zero_threshold(case: Case) -> list[Finding]:
    findings: list[Finding] = []
    if case.tool_threshold == 0 and case.expected_tools:
        message = f"tool_threshold 0: the trajectory check of {case.expected_tools} cannot fail"
        findings.append(
            Finding(case_id=case.id, check="zero_threshold", severity="high", message=message)
        )
    for spec in case.scorers or []:
        if spec.settings.get("threshold") == 0:
            message = f"scorer {spec.name} has threshold 0: it cannot fail"
            findings.append(
                Finding(case_id=case.id, check="zero_threshold", severity="high", message=message)
            )
    return findings


def _writes_without_state(case: Case, write_tools: Collection[str] | None) -> list[Finding]:
    writes = sorted({t for t in _expected_tool_names(case) if is_write_tool(t, write_tools)})
    replayed = any(spec.name == "replay_state" for spec in case.scorers or [])
    if not writes or case.expected_state is not None or replayed:
        return []
    message = (
        f"expects the write(s) {', '.join(writes)} but checks no state"
        " (no expected_state, no replay_state scorer)"
    )
    return [
        Finding(case_id=case.id, check="writes_without_state", severity="medium", message=message)
    ]


def _rubric_lint(case: Case) -> list[Finding]:
    findings: list[Finding] = []
    for index, rubric in enumerate(case.rubrics):
        for problem in lint_rubric(rubric):
            if problem.kind == "knowledge":
                check, severity = "knowledge_rubric", "medium"
                why = "asserts a fact; put the fact in reference_response"
            else:
                check, severity = "vague_rubric", "low"
                why = "names no explicit criterion"
            message = f"rubrics[{index}] {rubric!r} {why}"
            findings.append(
                Finding(case_id=case.id, check=check, severity=severity, message=message)
            )
    return findings


def _candidate_in_release(dataset: Dataset, case: Case) -> list[Finding]:
    # A suite of candidates only is a draft; one with a gate or approved cases is released.
    if case.review_status == "approved":
        return []
    approved = any(other.review_status == "approved" for other in dataset.cases)
    if dataset.gate is None and not approved:
        return []
    where = "a gated suite" if dataset.gate is not None else "a suite with approved cases"
    message = f"{case.review_status} case in {where}: only approved cases run as release tests"
    return [
        Finding(case_id=case.id, check="candidate_in_release", severity="medium", message=message)
    ]


def tokens(case: Case) -> frozenset[str]:
    """The lower-cased word tokens of every user turn of ``case``."""
    return frozenset(_TOKEN.findall(" ".join(user_turns(case)).casefold()))


def jaccard(left: frozenset[str], right: frozenset[str]) -> float:
    """|left ∩ right| / |left ∪ right|; 0 when both are empty."""
    union = left | right
    return len(left & right) / len(union) if union else 0.0


def _leakage(cases: Iterable[Case], threshold: float) -> list[Finding]:
    listed = list(cases)
    regression = [(c, tokens(c)) for c in listed if c.split == "regression"]
    holdout = [(c, tokens(c)) for c in listed if c.split == "holdout"]
    findings: list[Finding] = []
    for held, held_tokens in holdout:
        for seen, seen_tokens in regression:
            similarity = jaccard(held_tokens, seen_tokens)
            if similarity >= threshold:
                shared = len(held_tokens & seen_tokens)
                union = len(held_tokens | seen_tokens)
                message = (
                    f"holdout input near-duplicates regression case {seen.id!r}: token Jaccard"
                    f" {shared}/{union}={similarity:.3f} >= {threshold:g}"
                )
                findings.append(
                    Finding(
                        case_id=held.id, check="split_leakage", severity="medium", message=message
                    )
                )
    return findings


def lint_dataset(
    dataset: Dataset,
    *,
    write_tools: Collection[str] | None = None,
    leakage_threshold: float = LEAKAGE_THRESHOLD,
) -> list[Finding]:
    """Every static finding of ``dataset``, case by case, then the leakage across splits."""
    findings: list[Finding] = []
    for case in dataset.graded_cases():
        findings += _no_effective_check(case)
        findings += _zero_threshold(case)
        findings += _writes_without_state(case, write_tools)
        findings += _rubric_lint(case)
        findings += _candidate_in_release(dataset, case)
        findings += check_contradictions(case, dataset.tools or [])
    return findings + _leakage(dataset.cases, leakage_threshold)
