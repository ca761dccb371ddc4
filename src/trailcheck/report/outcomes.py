"""What the run views say about trial outcomes, shared by the terminal and the HTML report.

Both views must tell the same story: one glyph per status, the same reason lines for a trial
that did not pass, and the same grouping of failures by the failure mode their case guards. The
rendering differs; the facts are computed once, here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from pydantic import JsonValue

from trailcheck.run.results import CaseResult, RunReport, TrialResult
from trailcheck.run.status import TrialStatus, is_scored

# Text symbols, one terminal cell wide, present in common fonts (DejaVu): emoji such as ⏱ or 💥
# are two cells in some terminals and missing from headless browsers' and CI machines' fonts.
GLYPHS: Final[Mapping[TrialStatus, str]] = {
    "passed": "✓",
    "failed": "✗",
    "timeout": "◷",
    "crashed": "☠",
    "unscorable": "?",
    "infra_error": "⚠",
    "sim_error": "⚇",
}

MEANINGS: Final[Mapping[TrialStatus, str]] = {
    "passed": "every scorer passed",
    "failed": "a scorer failed",
    "timeout": "ran past its time limit",
    "crashed": "the agent raised",
    "unscorable": "a scorer raised, no verdict; not scored",
    "infra_error": "model or network failed; not scored",
    "sim_error": "the simulated user erred; not scored",
}

NO_FAILURE_MODE: Final = "(no failure mode declared)"
NOT_SCORED: Final = (
    "not scored: unscorable, infra_error or sim_error (never counted against the agent)"
)


@dataclass(frozen=True, slots=True)
class RunIdentity:
    """What ran: read from the manifest, which is free-form JSON, so every field may be absent."""

    dataset: str
    agent: str
    k: int
    created_at: str | None
    interrupted_trials: int | None


def _field(manifest: Mapping[str, JsonValue], *path: str) -> JsonValue:
    value: JsonValue = dict(manifest)
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _text(value: JsonValue) -> str | None:
    return None if value is None else str(value)


def run_identity(report: RunReport) -> RunIdentity:
    """The dataset version, the agent (reference or type, and model) and k of ``report``."""
    manifest = report.manifest
    dataset = _text(_field(manifest, "dataset", "version")) or _text(
        _field(manifest, "dataset", "name")
    )
    agent = _text(_field(manifest, "agent", "reference")) or _text(
        _field(manifest, "agent", "type")
    )
    model = _text(_field(manifest, "agent", "model"))
    agent_label = agent or "unknown agent"
    if model is not None:
        agent_label += f" (model {model})"
    interrupted = _field(manifest, "interrupted_trials")
    return RunIdentity(
        dataset=dataset or "unknown dataset",
        agent=agent_label,
        k=report.summary.k,
        created_at=_text(_field(manifest, "created_at")),
        interrupted_trials=interrupted if isinstance(interrupted, int) else None,
    )


def reason_lines(trial: TrialResult) -> list[str]:
    """Why ``trial`` did not pass, one line per cause: each failed score with its reason, each
    scorer that raised, the error that stopped the agent; the trial's summary reason when none
    of those is recorded."""
    lines = [f"{score.scorer}: {score.reason}" for score in trial.scores if not score.passed]
    lines += [
        f"{failure.scorer} raised {failure.error_type}: {failure.message}"
        for failure in trial.scorer_failures
    ]
    if trial.error is not None:
        # The runner's reason names the error (``KeyError: 'order'``) or the time limit; a
        # timeout's own message is empty.
        lines.append(f"{trial.status}: {trial.reason}")
    return lines or [trial.reason]


def pass_rate_text(case: CaseResult) -> str:
    """``3/4 = 0.750`` over the scored trials, ``0/0 = undefined`` when none was scored."""
    rate = case.pass_rate
    value = "undefined" if rate.value is None else f"{rate.value:.3f}"
    return f"{rate.count}/{rate.total} = {value}"


# Span ids (16 hex digits) differ between trials that failed identically; grouping ignores them.
_SPAN_ID = re.compile(r"\b[0-9a-f]{16}\b")


@dataclass(frozen=True, slots=True)
class FailureEntry:
    """Trials of one case that did not pass for the same reasons, listed once. When several
    trials share an entry, the span ids in its lines read ``<span>``: each trial had its own."""

    case_id: str
    attempts: tuple[int, ...]
    statuses: tuple[TrialStatus, ...]
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FailureGroup:
    """The failing trials of every case that guards one failure mode."""

    mode: str
    trials: int
    entries: tuple[FailureEntry, ...]


def _entries(case: CaseResult, trials: list[TrialResult]) -> list[FailureEntry]:
    by_lines: dict[tuple[str, ...], list[TrialResult]] = {}
    for trial in trials:
        key = tuple(_SPAN_ID.sub("<span>", line) for line in reason_lines(trial))
        by_lines.setdefault(key, []).append(trial)
    return [
        FailureEntry(
            case_id=case.id,
            attempts=tuple(t.attempt for t in same),
            statuses=tuple(dict.fromkeys(t.status for t in same)),
            lines=key if len(same) > 1 else tuple(reason_lines(same[0])),
        )
        for key, same in by_lines.items()
    ]


def group_failures(report: RunReport) -> list[FailureGroup]:
    """Failed, timed-out and crashed trials under each failure mode their case declares (a
    case guarding two modes appears under both), modes in order of first appearance; trials
    that were not scored come last, in a group of their own, so they are seen but not
    mistaken for the agent's failures."""
    groups: dict[str, list[FailureEntry]] = {}
    counts: dict[str, int] = {}
    for case in report.cases:
        failing = [t for t in case.trials if is_scored(t.status) and t.status != "passed"]
        unscored = [t for t in case.trials if not is_scored(t.status)]
        for mode, trials in [(m, failing) for m in case.failure_modes or [NO_FAILURE_MODE]] + [
            (NOT_SCORED, unscored)
        ]:
            if trials:
                groups.setdefault(mode, []).extend(_entries(case, trials))
                counts[mode] = counts.get(mode, 0) + len(trials)
    if NOT_SCORED in groups:
        groups[NOT_SCORED] = groups.pop(NOT_SCORED)
    return [FailureGroup(mode, counts[mode], tuple(entries)) for mode, entries in groups.items()]
