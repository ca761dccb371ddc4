"""The termination scorer: did the run end properly, and does its ending match what it did?

Checks:

- **answer**: the trace has a final answer that is not empty (``None``, blank text, ``{}`` and
  ``[]`` are empty). Always checked.
- **claims**: each :class:`ClaimRule` whose ``pattern`` (a regex, case-insensitive) is found in
  the answer needs its ``state_path`` changed: present and non-empty in ``state_after``
  (``None``, ``""``, ``[]``, ``{}`` and ``false`` are empty) and, when ``state_before`` is
  recorded, different from its value there. A rule is checked only when it matches and the
  trace records a ``state_after``. ``state_path`` is dotted (``refunds``,
  ``orders.A-1001.status``; a number indexes a list).
- **required writes**: when the answer exists, each tool of the case's ``expected_tools`` that
  ``write_tools`` names was called successfully at least once; else the run stopped before a
  required write. Not checked without ``write_tools``, without ``expected_tools``, or without
  an answer (which the answer check already fails).

The default rules (:data:`DEFAULT_CLAIM_RULES`) read an environment whose state lists
``refunds``, ``reschedules``, ``cancellations`` and ``bookings``, and match affirmative
phrases only ("has been cancelled", not "could not be cancelled"). Value = checks passed /
checks made; passed iff every check passes (threshold 1.0). Evidence: the calls of the write
tools, and the last llm span (the one that gave the answer) when a claim is unsupported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from trailcheck.cases import Case, ScorerSpec
from trailcheck.scorers.comparison import json_equal
from trailcheck.scorers.registry import scorer_to_spec
from trailcheck.scorers.score import Score, ratio
from trailcheck.trace import Span, ToolCall, Trace

_MISSING = object()


@dataclass(frozen=True)
class ClaimRule:
    """An answer matching ``pattern`` claims a change that ``state_path`` must show."""

    claim: str
    pattern: str
    state_path: str

    def __post_init__(self) -> None:
        if not self.claim or not self.state_path:
            raise ValueError("a claim rule names its claim and its state_path")
        try:
            re.compile(self.pattern)
        except re.error as error:
            raise ValueError(f"claim {self.claim!r}: bad pattern: {error}") from None


_DONE = r"(?:has|have)\s+been|(?:is|was)\s+(?:now\s+)?|i(?:['’]ve|\s+have)"
DEFAULT_CLAIM_RULES: tuple[ClaimRule, ...] = (
    ClaimRule(
        "refund",
        r"\brefund(?:ed)?\s+(?:has\s+been\s+|was\s+|is\s+)?(?:issued|processed|completed)\b"
        r"|\b(?:issued|processed)\s+(?:a|the|your)\s+(?:full\s+|partial\s+)?refund\b"
        r"|\b(?:has|have)\s+been\s+refunded\b"
        # "your refund of $129 for A-1 has been issued": an amount or order between.
        r"|\brefund\s+(?:of|for)\s+[^.!?;\n]{1,40}?\s+(?:has\s+been|was|is(?:\s+now)?)"
        r"\s+(?:issued|processed|completed)\b",
        "refunds",
    ),
    ClaimRule("reschedule", rf"\b(?:{_DONE})\s*rescheduled\b", "reschedules"),
    ClaimRule("cancel", rf"\b(?:{_DONE})\s*cancell?ed\b", "cancellations"),
    ClaimRule(
        "booked",
        rf"\b(?:{_DONE})\s*booked\b|\byou(?:['’]re|\s+are)\s+(?:all\s+)?booked\b"
        r"|\bbooking\s+(?:is\s+)?confirmed\b",
        "bookings",
    ),
)


def state_at(state: Any, path: str) -> Any:
    """The value at a dotted path, or ``_MISSING``."""
    current = state
    for segment in path.split("."):
        if isinstance(current, dict) and segment in current:
            current = current[segment]
        elif isinstance(current, list) and segment.isdigit() and int(segment) < len(current):
            current = current[int(segment)]
        else:
            return _MISSING
    return current


def _empty(value: Any) -> bool:
    if value is None or value is False:
        return True
    return isinstance(value, str | list | dict) and not (
        value.strip() if isinstance(value, str) else value
    )


def unsupported_claim(rule: ClaimRule, trace: Trace) -> str | None:
    """Why ``trace``'s state does not back ``rule``'s claim, or ``None`` when it does."""
    after = state_at(trace.state_after, rule.state_path)
    where = f"state_after.{rule.state_path}"
    if after is _MISSING:
        return f"{where} is missing"
    if _empty(after):
        return f"{where} is empty"
    if trace.state_before is not None:
        before = state_at(trace.state_before, rule.state_path)
        if before is not _MISSING and json_equal(before, after, int_equals_float=True):
            return f"{where} is unchanged from state_before"
    return None


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim the answer makes (``found``: where), and why the state does not back it
    (``None``: it does)."""

    rule: ClaimRule
    found: re.Match[str]
    problem: str | None


def answer_claims(trace: Trace, answer: str, rules: Sequence[ClaimRule]) -> list[Claim]:
    """The claims of ``answer`` that ``rules`` find, checked against the state; none when the
    trace records no ``state_after``."""
    if trace.state_after is None:
        return []
    claims: list[Claim] = []
    for rule in rules:
        found = re.search(rule.pattern, answer, re.IGNORECASE)
        if found is not None:
            claims.append(Claim(rule, found, unsupported_claim(rule, trace)))
    return claims


@dataclass(frozen=True, slots=True)
class Writes:
    """The required writes (tools of ``expected_tools`` that ``write_tools`` names), those not
    made successfully, and the calls of the required tools."""

    required: tuple[str, ...]
    missing: tuple[str, ...]
    calls: tuple[ToolCall, ...]


def required_writes(trace: Trace, case: Case, write_tools: Sequence[str]) -> Writes | None:
    """Which required writes ``trace`` made; ``None`` when none is required."""
    required = [t for t in dict.fromkeys(case.expected_tools or ()) if t in write_tools]
    if not required:
        return None
    calls = [call for call in trace.tool_calls if call.name in required]
    made = {call.name for call in calls if call.succeeded}
    missing = [tool for tool in required if tool not in made]
    return Writes(tuple(required), tuple(missing), tuple(calls))


def answer_span(trace: Trace) -> Span | None:
    """The last llm span to start: the one that gave the answer."""
    llm = [span for span in trace.spans if span.kind == "llm"]
    return max(llm, key=_start) if llm else None


@dataclass(frozen=True, slots=True)
class _Check:
    passed: bool
    detail: str
    evidence: tuple[str, ...] = ()


def _start(span: Span) -> tuple[int, str]:
    return (span.start_ns, span.span_id)


def has_answer(trace: Trace) -> bool:
    """A final answer that is not empty."""
    return not _empty(trace.final_output)


@dataclass(frozen=True)
class TerminationScorer:
    """An answer, claims backed by the state, and no stop before a required write."""

    name: ClassVar[str] = "termination"
    # Reads message content (arguments, results, the answer): unscorable without it.
    needs_content: ClassVar[bool] = True
    # Grades a trace on its own (the case's expected_tools only add the required-writes check):
    # online evaluators may run it (trailcheck.online).
    reference_free: ClassVar[bool] = True
    version: ClassVar[str] = "1"

    claim_rules: tuple[ClaimRule, ...] = DEFAULT_CLAIM_RULES
    write_tools: tuple[str, ...] = ()

    def to_spec(self) -> ScorerSpec:
        return scorer_to_spec(self)

    def _claims(self, trace: Trace, answer: str) -> list[_Check]:
        checks: list[_Check] = []
        for claim in answer_claims(trace, answer, self.claim_rules):
            rule, problem = claim.rule, claim.problem
            said = f'claim {rule.claim} ("{claim.found.group(0)}")'
            if problem is None:
                checks.append(_Check(True, f"{said} backed by state_after.{rule.state_path}"))
            else:
                answering = answer_span(trace)
                llm = () if answering is None else (answering.span_id,)
                checks.append(_Check(False, f"{said} but {problem}", llm))
        return checks

    def _writes(self, trace: Trace, case: Case) -> list[_Check]:
        writes = required_writes(trace, case, self.write_tools)
        if writes is None:
            return []
        required, missing, calls = writes.required, writes.missing, writes.calls
        tally = f"required writes {ratio(len(required) - len(missing), len(required))}"
        if not missing:
            return [_Check(True, tally, tuple(c.span_id for c in calls))]
        detail = f"{tally}; stopped before {', '.join(missing)}{attempts(calls, missing)}"
        return [_Check(False, detail, tuple(c.span_id for c in calls if c.name in missing))]

    def score(self, trace: Trace, case: Case) -> Score | None:
        answered = has_answer(trace)
        checks = [_Check(answered, "final answer given" if answered else "no final answer")]
        if answered:
            checks += self._claims(trace, trace.final_text)
            checks += self._writes(trace, case)
        passed = sum(check.passed for check in checks)
        failed = [check for check in checks if not check.passed]
        ok = [check for check in checks if check.passed]
        entries = [f"failed {c.detail}" for c in failed] + [f"ok {c.detail}" for c in ok]
        evidence = [span_id for check in checks for span_id in check.evidence]
        return Score(
            scorer=self.name,
            value=passed / len(checks),
            passed=not failed,
            threshold=1.0,
            reason="; ".join([f"termination {ratio(passed, len(checks))} checks passed", *entries]),
            evidence=tuple(dict.fromkeys(evidence)),
        )


def attempts(calls: Sequence[ToolCall], missing: Sequence[str]) -> str:
    """`` (tried issue_refund at span-003: identity not verified)`` for failed attempts."""
    tried = [f"{c.name} at {c.span_id}: {c.error}" for c in calls if c.name in missing]
    return f" (tried {', '.join(tried)})" if tried else ""
