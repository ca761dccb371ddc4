"""What a run produces: every trial's outcome, per case and in all, and what it ran against.

The JSON report is :class:`RunReport` dumped as JSON (``report_json_schema()`` publishes its
schema; ``schema_version`` changes whenever a field changes meaning). A trial's ``status`` is
one of :data:`~trailcheck.run.status.TrialStatus`; every attempted trial is in the report,
whatever happened to it, and a run interrupted part way is marked ``partial``.
"""

from __future__ import annotations

import os
import traceback
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from trailcheck.cases import AWKWARD_KINDS, AwkwardKind, ReviewStatus, Split
from trailcheck.errors import InputError
from trailcheck.intervals import Rate, rate
from trailcheck.run.compare import Comparison, compare_outcomes
from trailcheck.run.stats import OutcomeSummary, TaskOutcomes
from trailcheck.run.status import TrialStatus, is_scored
from trailcheck.run.tool_success import compare_tool_success
from trailcheck.scorers import Attribution, Score, ScorerFailure
from trailcheck.simulation import ConversationEnding, SimulatorError, Turn, UserTurn
from trailcheck.trace import Trace, Usage

REPORT_SCHEMA_VERSION = "1"

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class TrialError(BaseModel):
    """What stopped a trial: the exception's type, message and stack."""

    model_config = _FROZEN

    type: str
    message: str
    traceback: str

    @classmethod
    def from_exception(cls, error: BaseException) -> TrialError:
        return cls(
            type=type(error).__qualname__,
            message=str(error),
            traceback="".join(traceback.format_exception(error)),
        )


class CallSummary(BaseModel):
    """One tool call of a trial, as reports show it beside the expected calls."""

    model_config = _FROZEN

    span_id: str
    name: str
    arguments: dict[str, JsonValue]
    succeeded: bool
    error: str | None = None
    duration_ms: float | None = None


class TrialResult(BaseModel):
    """One trial of one case."""

    model_config = _FROZEN

    case_id: str
    attempt: int = Field(ge=1)
    status: TrialStatus
    reason: str
    """Why the status: the failed scorers, the error, the timeout."""
    duration_ms: float
    trace_id: str | None = None
    scores: list[Score] = Field(default_factory=list)
    scorer_failures: list[ScorerFailure] = Field(default_factory=list)
    attribution: Attribution | None = None
    """For a failed trial, the step where it began going wrong (docs/attribution.md)."""
    error: TrialError | None = None
    final_output: str | None = None
    calls: list[CallSummary] = Field(default_factory=list)
    model_calls: int = 0
    usage: Usage | None = None
    user_turns: list[UserTurn] = Field(default_factory=list)
    """What the simulated user said, turn by turn (its stop included), each with the key of
    the transcript it answered: what ``--replay-user`` replays to a candidate."""
    simulator_errors: list[SimulatorError] = Field(default_factory=list)
    """The simulator audit's findings; any makes the trial ``sim_error``."""
    conversation_ending: ConversationEnding | None = None
    transcript: list[Turn] = Field(default_factory=list)
    """Who said what, for a case with a simulated user: every user turn (the case's fixed ones,
    then the simulated ones) and the agent's answer to each, in order."""


class CaseResult(BaseModel):
    """A case's trials, with what the case expected (for the reports' side-by-side views)."""

    model_config = _FROZEN

    id: str
    split: Split
    review_status: ReviewStatus
    failure_modes: list[str] = Field(default_factory=list)
    expected_tools: list[str] | None = None
    expected_arguments: list[dict[str, JsonValue]] = Field(default_factory=list)
    """The case's expected invocations as its dataset file writes them."""
    awkward_results: list[AwkwardKind] = Field(default_factory=list)
    """The kinds of correct but awkward result its faults return: an awkward-result case tests
    the agent's reading of them."""
    trials: list[TrialResult] = Field(default_factory=list)

    @property
    def pass_rate(self) -> Rate:
        """Passed over scored trials, with a Wilson interval."""
        scored = [trial for trial in self.trials if is_scored(trial.status)]
        return rate(sum(trial.status == "passed" for trial in scored), len(scored))


class ReplayedConversation(BaseModel):
    """One trial's conversation under ``--replay-user``: how many of its simulated turns were
    the baseline's, and at which user turn (1-based over the simulated ones) the first fresh
    one came, ``None`` when none did (the agents never diverged)."""

    model_config = _FROZEN

    case_id: str
    attempt: int
    replayed: int
    generated: int
    diverged_at: int | None = None


class UserReplay(BaseModel):
    """How a run replayed its baseline's simulated users (common random numbers): of the
    ``pairs`` of trials the baseline also ran, how many met the very same user (``identical``)
    and where the others diverged."""

    model_config = _FROZEN

    pairs: int
    identical: int
    diverged: int
    conversations: list[ReplayedConversation] = Field(default_factory=list)


def user_replay_summary(report: RunReport, baseline: RunReport) -> UserReplay:
    """The :class:`UserReplay` of ``report``, whose simulated turns were replayed from
    ``baseline``'s: each trial with a simulated user that the baseline ran too is a pair."""
    ran_before = {(c.id, t.attempt) for c in baseline.cases for t in c.trials if t.user_turns}
    conversations = []
    for case in report.cases:
        for trial in case.trials:
            if not trial.user_turns or (case.id, trial.attempt) not in ran_before:
                continue
            fresh = [i for i, turn in enumerate(trial.user_turns, 1) if not turn.replayed]
            conversations.append(
                ReplayedConversation(
                    case_id=case.id,
                    attempt=trial.attempt,
                    replayed=len(trial.user_turns) - len(fresh),
                    generated=len(fresh),
                    diverged_at=fresh[0] if fresh else None,
                )
            )
    diverged = sum(c.diverged_at is not None for c in conversations)
    return UserReplay(
        pairs=len(conversations),
        identical=len(conversations) - diverged,
        diverged=diverged,
        conversations=conversations,
    )


class RunReport(BaseModel):
    """A run of a dataset: manifest, summary, cases and, against a baseline, the comparison."""

    model_config = _FROZEN

    schema_version: str = REPORT_SCHEMA_VERSION
    partial: bool = False
    """The run was interrupted: trials not finished are missing, and the summary says so."""
    manifest: dict[str, JsonValue]
    summary: OutcomeSummary
    review_statuses: dict[str, int]
    """How many of the cases that ran have each review status (only approved ones are release
    tests)."""
    cases: list[CaseResult]
    awkward_results: dict[AwkwardKind, Rate] = Field(default_factory=dict)
    """Per kind of awkward tool result, the trial pass rate of the cases whose faults return
    one (passed over scored trials, Wilson interval); absent kinds had no case."""
    comparison: Comparison | None = None
    user_replay: UserReplay | None = None
    """Under ``--replay-user``: which conversations met the baseline's very user."""

    def user_turns(self) -> list[UserTurn]:
        """Every simulated user turn of the run's trials: what a replay replays."""
        return [turn for case in self.cases for trial in case.trials for turn in trial.user_turns]

    def outcomes(self) -> TaskOutcomes:
        """Case id → trial statuses in attempt order: what statistics and comparisons read."""
        return {case.id: [trial.status for trial in case.trials] for case in self.cases}

    def trials(self) -> list[TrialResult]:
        return [trial for case in self.cases for trial in case.trials]

    def tool_calls(self) -> list[tuple[str, bool]]:
        """Every tool call of every trial: its tool, and whether it succeeded."""
        return [(call.name, call.succeeded) for trial in self.trials() for call in trial.calls]

    def against(self, baseline: RunReport, *, seed: int = 0) -> Comparison:
        """This run compared with ``baseline``: pass@1 on the tasks both scored
        (:func:`~trailcheck.run.compare_outcomes`) and each tool's success in both runs
        (:mod:`trailcheck.run.tool_success`)."""
        comparison = compare_outcomes(self.outcomes(), baseline.outcomes(), seed=seed)
        tools = compare_tool_success(self.tool_calls(), baseline.tool_calls())
        return comparison.model_copy(update={"tools": tools})


def awkward_pass_rates(cases: list[CaseResult]) -> dict[AwkwardKind, Rate]:
    """Per kind of awkward result, passed over scored trials of the cases that return one, in
    the order of :data:`~trailcheck.cases.AWKWARD_KINDS`."""
    rates: dict[AwkwardKind, Rate] = {}
    for kind in AWKWARD_KINDS:
        scored = [
            trial.status == "passed"
            for case in cases
            if kind in case.awkward_results
            for trial in case.trials
            if is_scored(trial.status)
        ]
        if any(kind in case.awkward_results for case in cases):
            rates[kind] = rate(sum(scored), len(scored))
    return rates


def dump_report(report: RunReport) -> bytes:
    """The report as indented JSON, as ``trailcheck run`` writes it."""
    return orjson.dumps(report.model_dump(mode="json"), option=orjson.OPT_INDENT_2) + b"\n"


def load_report(path: str | os.PathLike[str]) -> RunReport:
    """A report file read back; InputError naming the file and field when it is not one."""
    source = Path(path)
    try:
        data = source.read_bytes()
    except OSError as error:
        raise InputError(f"{source}: cannot read the report: {error.strerror}") from error
    try:
        return RunReport.model_validate_json(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise InputError(
            f"{source}: not a trailcheck report (schema {REPORT_SCHEMA_VERSION}): field"
            f" {where}: {first['msg']} ({error.error_count()} problem(s))"
        ) from None


def report_json_schema() -> dict[str, Any]:
    """The published JSON Schema of a report file (``trailcheck schema report``)."""
    schema = RunReport.model_json_schema(mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:trailcheck:schema:report:{REPORT_SCHEMA_VERSION}",
        **schema,
    }


def call_summaries(trace: Trace) -> list[CallSummary]:
    """The trace's tool calls, in order, as a report keeps them."""
    return [
        CallSummary(
            span_id=call.span_id,
            name=call.name,
            arguments=call.arguments,
            succeeded=call.succeeded,
            error=call.error,
            duration_ms=None if call.end_ns is None else (call.end_ns - call.start_ns) / 1e6,
        )
        for call in trace.tool_calls
    ]
