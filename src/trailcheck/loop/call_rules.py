"""Detectors over a trace's tool calls: policy rules, efficiency checks, rate-limit retries,
and date arguments that contradict the user.

- ``policy``: any :mod:`trailcheck.policy` rule (``must_precede``, ``forbidden``, ``at_most``,
  ``requires_confirmation_before``), evaluated by :func:`trailcheck.policy.violations`: one hit
  per violating call, with the policy's own reason.
- ``efficiency``: the call checks of :class:`~trailcheck.scorers.EfficiencyScorer` (redundant
  calls, loops, repeated calls, tool and model call counts); only the checks given are on, and
  each failed check is a hit with the scorer's arithmetic. Budget ceilings are left to grading:
  a figure a trace does not record would be a finding about the recording, not the agent. It
  reads arguments, so it needs content: on a trace that recorded none, every call of a tool
  would look like every other.
- ``rate_limit_retry``: a call whose error matches ``error_pattern`` followed by another call of
  the same tool that started less than ``min_backoff_ms`` after the limited call ended.
- ``date_argument``: a date argument (a text that :func:`~trailcheck.scorers.parse_date` reads,
  at any depth of the arguments) naming a day that none of the user input's dates names. The
  input's dates are found by the grounding scanner (:func:`find_figures`); a month and day
  without a year matches that day in any year. An input without dates ("tomorrow") is not
  checked: there is nothing to contradict.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from trailcheck.loop.rule import DetectionRule, Hit
from trailcheck.policy import PolicySpec, violations
from trailcheck.scorers import EfficiencyScorer, ErroredCalls, parse_date
from trailcheck.scorers.efficiency import LoopMatch
from trailcheck.scorers.grounding import find_figures
from trailcheck.specs.patterns import valid_regex
from trailcheck.trace import ToolCall, Trace

DEFAULT_RATE_LIMIT_ERROR = (
    r"(?i)\b(?:rate[ _-]?limit(?:ed)?|too many requests|429|quota exceeded)\b"
)
"""What a rate-limit error says, unless a rule says otherwise."""
DEFAULT_MIN_BACKOFF_MS = 1000.0
"""How long an agent waits after a rate limit before it calls the tool again, at least."""


class PolicyRule(DetectionRule):
    """One policy rule; a hit per call that breaks it."""

    kind: Literal["policy"] = "policy"
    policy: PolicySpec

    def hits(self, trace: Trace) -> list[Hit]:
        return [Hit(str(v), (v.call.span_id,)) for v in violations([self.policy], trace)]


class EfficiencyRule(DetectionRule):
    """The efficiency scorer's call checks that are given (at least one)."""

    needs_content: ClassVar[bool] = True

    kind: Literal["efficiency"] = "efficiency"
    max_identical_calls: int | None = None
    loop_repeats: int | None = None
    loop_match: LoopMatch = "arguments"
    call_repeats: int | None = None
    max_tool_calls: int | None = None
    max_model_calls: int | None = None
    ignore_tools: list[str] = Field(default_factory=list)
    errored_calls: ErroredCalls = "count"

    @model_validator(mode="after")
    def _build_scorer(self) -> EfficiencyRule:
        checks = (self.max_identical_calls, self.loop_repeats, self.call_repeats)
        if all(value is None for value in (*checks, self.max_tool_calls, self.max_model_calls)):
            raise ValueError(
                "an efficiency rule enables at least one check: max_identical_calls,"
                " loop_repeats, call_repeats, max_tool_calls or max_model_calls"
            )
        # The scorer checks its own settings (minimums); its ValueError names the setting.
        _ = self._scorer
        return self

    # A cached property rather than a private attribute: read once per trace, and pydantic's
    # private attribute lookup costs a microsecond each time.
    @cached_property
    def _scorer(self) -> EfficiencyScorer:
        return EfficiencyScorer(
            max_identical_calls=self.max_identical_calls,
            loop_repeats=self.loop_repeats,
            loop_match=self.loop_match,
            call_repeats=self.call_repeats,
            max_tool_calls=self.max_tool_calls,
            max_model_calls=self.max_model_calls,
            ignore_tools=tuple(self.ignore_tools),
            errored_calls=self.errored_calls,
        )

    def hits(self, trace: Trace) -> list[Hit]:
        return [
            Hit(f"{check.label}: {'; '.join(check.details)}", check.evidence)
            for check in self._scorer.checks(trace)
            if not check.passed
        ]


class RateLimitRetryRule(DetectionRule):
    """The same tool called again too soon after it answered with a rate limit."""

    kind: Literal["rate_limit_retry"] = "rate_limit_retry"
    error_pattern: str = DEFAULT_RATE_LIMIT_ERROR
    min_backoff_ms: float = Field(DEFAULT_MIN_BACKOFF_MS, ge=0)

    _compiles = field_validator("error_pattern")(valid_regex)

    @cached_property
    def _error(self) -> re.Pattern[str]:
        return re.compile(self.error_pattern)

    def hits(self, trace: Trace) -> list[Hit]:
        calls = trace.tool_calls
        found: list[Hit] = []
        for index, call in enumerate(calls):
            if call.error is None or call.end_ns is None:
                continue
            if self._error.search(call.error) is None:
                continue
            retry = next((c for c in calls[index + 1 :] if c.name == call.name), None)
            if retry is None:
                continue
            waited_ms = (retry.start_ns - call.end_ns) / 1e6
            if waited_ms < self.min_backoff_ms:
                found.append(
                    Hit(
                        f"{call.name} at {call.span_id} was rate limited ({call.error!r}) and"
                        f" called again at {retry.span_id} after {waited_ms:g} ms"
                        f" < {self.min_backoff_ms:g} ms backoff",
                        (call.span_id, retry.span_id),
                    )
                )
        return found


def _text_arguments(arguments: Any, path: str, found: list[tuple[str, str]]) -> None:
    """Appends ``(argument path, text)`` for every text value of the arguments, at any depth."""
    if isinstance(arguments, str):
        found.append((path, arguments))
    elif isinstance(arguments, dict):
        for key, value in arguments.items():
            _text_arguments(value, f"{path}.{key}" if path else str(key), found)
    elif isinstance(arguments, list):
        for index, value in enumerate(arguments):
            _text_arguments(value, f"{path}[{index}]", found)


class DateArgumentRule(DetectionRule):
    """A date argument that names a day the user did not ask for."""

    needs_content: ClassVar[bool] = True

    kind: Literal["date_argument"] = "date_argument"
    tools: list[str] | None = None
    """Only these tools' arguments (all tools when absent)."""
    arguments: list[str] | None = None
    """Only these argument paths (``date``, ``booking.date``; all when absent)."""
    day_first: bool = False

    def _asked(self, trace: Trace) -> tuple[set[str], set[str]]:
        """The user input's dates (ISO) and month-days (``MM-DD``)."""
        figures = find_figures(trace.input_text, day_first=self.day_first)
        days = {str(f.value) for f in figures if f.kind == "date"}
        month_days = {str(f.value) for f in figures if f.kind == "month_day"}
        return days, month_days

    def _dated(self, trace: Trace) -> list[tuple[ToolCall, str, str, str]]:
        """``(call, argument, text, ISO date)`` for the date arguments checked, in call order."""
        dated: list[tuple[ToolCall, str, str, str]] = []
        for call in trace.tool_calls:
            if self.tools is not None and call.name not in self.tools:
                continue
            texts: list[tuple[str, str]] = []
            _text_arguments(call.arguments, "", texts)
            for argument, text in texts:
                if self.arguments is not None and argument not in self.arguments:
                    continue
                parsed = parse_date(text, day_first=self.day_first)
                if parsed is not None:
                    dated.append((call, argument, text, parsed.isoformat()))
        return dated

    def hits(self, trace: Trace) -> list[Hit]:
        # The arguments first: most calls have no date argument, and then the input need not
        # be scanned for figures (the costly part).
        dated = self._dated(trace)
        if not dated:
            return []
        days, month_days = self._asked(trace)
        if not days and not month_days:
            return []
        asked = ", ".join(sorted(days | {f"--{md}" for md in month_days}))
        return [
            Hit(
                f"{call.name} at {call.span_id}: {argument}={text!r} is {iso}, but the"
                f" user input names {asked}",
                (call.span_id,),
            )
            for call, argument, text, iso in dated
            if iso not in days and iso[5:] not in month_days
        ]
