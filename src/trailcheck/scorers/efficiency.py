"""The efficiency scorer: did the run do its work without waste, within its budget?

Checks, each enabled by its setting (``None`` turns a check off):

- **redundant calls** (``max_identical_calls``, default 2): no tool is called with canonically
  equal arguments more than N times. Canonical: object key order does not matter and a number
  is its value (25 equals 25.0), while ``true`` is not ``1`` and ``"25"`` is not ``25``.
- **loops** (``loop_repeats``, default 3): no run of two or more consecutive calls is repeated
  K or more times back to back (``a b a b a b`` is the run ``a b`` three times). The run must
  not itself be a repetition of a shorter one, so ``a a a a a a`` is not a loop: a single call
  repeated is the redundancy check's to find. ``loop_match`` says when two calls are the same:
  ``arguments`` (default: the same tool with canonically equal arguments) or ``tool`` (the same
  tool name, whatever the arguments: catches an agent going round with varied queries).
- **repeated calls** (``call_repeats``, off by default): no call (same tool, canonically equal
  arguments) is made K or more times in a row: a retry loop, which the loops check leaves out.
  In a row means consecutive among the calls checked: a call of another tool, or of the same
  tool with other arguments, ends the run; model calls between them do not (an agent that
  retries asks its model each time), nor do calls left out by ``ignore_tools``. What a call
  answered does not matter: one that failed, or answered ``{"error": "timeout"}``, is the same
  call. ``loop_match`` does not apply (without arguments every call of a tool is the same). Off
  by default because the redundancy check already fails such a run; on, it names the run (the
  built-in ``tool_call_loop`` detection rule turns it on at 3).
- **tool calls** (``max_tool_calls``) and **model calls** (``max_model_calls``, llm spans not
  nested under another llm span, so one call instrumented twice counts once).
- **latency** (``max_latency_ms``): ``trace.usage.latency_ms``, else the trace's span duration.
- **tokens** (``max_tokens``, input + output) and **cost** (``max_cost_usd``): each figure from
  ``trace.usage`` when recorded there, else summed over the llm spans (:func:`summed_usage`).

A ceiling whose figure was not recorded fails, saying so: an unknown figure is never a pass.
Tool checks look at the calls left after ``ignore_tools`` and ``errored_calls``.

Value = checks passed / checks enabled; passed iff every check passes (threshold 1.0). The
scorer produces no Score when every check is off. Evidence: the spans named by the failed
checks, or the calls checked when none failed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar, Literal

from trailcheck.cases import Case, ScorerSpec
from trailcheck.scorers.calls import ErroredCalls, considered_calls
from trailcheck.scorers.comparison import render
from trailcheck.scorers.registry import scorer_to_spec
from trailcheck.scorers.repetition import find_loops, find_repeats
from trailcheck.scorers.score import Score, ratio
from trailcheck.trace import Span, ToolCall, Trace, Usage, summed_usage

LoopMatch = Literal["arguments", "tool"]
"""When two calls count as the same for the loop detector."""


def model_calls(trace: Trace) -> list[Span]:
    """The llm spans that are not under another llm span (a call instrumented twice is one)."""
    by_id = {span.span_id: span for span in trace.spans}

    def nested(span: Span) -> bool:
        parent = span.parent_id
        while parent is not None:
            if by_id[parent].kind == "llm":
                return True
            parent = by_id[parent].parent_id
        return False

    return [span for span in trace.spans if span.kind == "llm" and not nested(span)]


@dataclass(frozen=True, slots=True)
class Check:
    """One check's outcome: its label, what it found and the spans that show it; ``crossed``:
    for a failed call check, the call that first went past its limit (failure attribution
    names it: :mod:`trailcheck.scorers.attribute`)."""

    label: str
    passed: bool
    details: tuple[str, ...]
    evidence: tuple[str, ...] = ()
    crossed: str | None = None


def _ids(calls: Sequence[ToolCall]) -> str:
    return ", ".join(call.span_id for call in calls)


def _number(value: float) -> str:
    """``1500000`` as it is, ``0.02`` as it is: no exponent for whole numbers."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _ceiling(label: str, figure: float | None, limit: float, source: str, unit: str) -> Check:
    """``tokens 1200 <= 2000 (from trace.usage)``, or a failure naming the missing figure."""
    if figure is None:
        detail = f"not recorded ({source}), so the ceiling {_number(limit)} fails"
        return Check(label, False, (detail,))
    verdict = "<=" if figure <= limit else ">"
    detail = f"{_number(figure)}{unit} {verdict} {_number(limit)}{unit} {source}"
    return Check(label, figure <= limit, (detail,))


def _usage_figure(
    trace: Trace, pick: Callable[[Usage], float | None], name: str
) -> tuple[float | None, str]:
    """A usage figure and where it came from: trace.usage first, else summed over llm spans."""
    if trace.usage is not None and pick(trace.usage) is not None:
        return pick(trace.usage), "(from trace.usage)"
    summed = summed_usage(trace.spans)
    if summed is not None and pick(summed) is not None:
        return pick(summed), "(summed over llm spans)"
    return None, f"no {name} in trace.usage or llm spans"


@dataclass(frozen=True)
class EfficiencyScorer:
    """Redundancy, loops, call counts and budget ceilings; see the module for each check."""

    name: ClassVar[str] = "efficiency"
    # Reads message content (arguments, results, the answer): unscorable without it.
    needs_content: ClassVar[bool] = True
    # Grades a trace on its own, with no case: online evaluators may run it (trailcheck.online).
    reference_free: ClassVar[bool] = True
    version: ClassVar[str] = "1"

    max_identical_calls: int | None = 2
    loop_repeats: int | None = 3
    loop_match: LoopMatch = "arguments"
    call_repeats: int | None = None
    max_tool_calls: int | None = None
    max_model_calls: int | None = None
    max_latency_ms: float | None = None
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    ignore_tools: tuple[str, ...] = ()
    errored_calls: ErroredCalls = "count"

    def __post_init__(self) -> None:
        minimums = {
            "max_identical_calls": 1,
            "loop_repeats": 2,
            "call_repeats": 2,
            "max_tool_calls": 0,
            "max_model_calls": 0,
            "max_latency_ms": 0,
            "max_tokens": 0,
            "max_cost_usd": 0,
        }
        for setting, minimum in minimums.items():
            value = getattr(self, setting)
            if value is not None and value < minimum:
                raise ValueError(f"{setting} is at least {minimum}, got {value}")

    def to_spec(self) -> ScorerSpec:
        return scorer_to_spec(self)

    def checks(self, trace: Trace) -> list[Check]:
        """The outcome of every enabled check, in the module's order."""
        return self._checks(trace, self._calls(trace))

    def _calls(self, trace: Trace) -> Sequence[ToolCall]:
        return considered_calls(
            trace, ignore_tools=self.ignore_tools, errored_calls=self.errored_calls
        )

    def _checks(self, trace: Trace, calls: Sequence[ToolCall]) -> list[Check]:
        # Canonical keys are the costly part of the call checks: each check reads them only
        # where its finding is possible (ToolCall.key computes each once).
        found: list[Check] = []
        if self.max_identical_calls is not None:
            found.append(_redundancy(calls, self.max_identical_calls))
        if self.loop_repeats is not None:
            found.append(_loops(calls, self.loop_repeats, by_tool=self.loop_match == "tool"))
        if self.call_repeats is not None:
            found.append(_repeats(calls, self.call_repeats))
        if self.max_tool_calls is not None:
            found.append(_count("tool calls", [c.span_id for c in calls], self.max_tool_calls))
        if self.max_model_calls is not None:
            spans = [span.span_id for span in model_calls(trace)]
            found.append(_count("model calls", spans, self.max_model_calls))
        found.extend(self._budget(trace))
        return found

    def _budget(self, trace: Trace) -> list[Check]:
        found: list[Check] = []
        if self.max_latency_ms is not None:
            latency, source = _latency(trace)
            found.append(_ceiling("latency", latency, self.max_latency_ms, source, "ms"))
        if self.max_tokens is not None:
            tokens, source = _tokens(trace)
            found.append(_ceiling("tokens", tokens, self.max_tokens, source, ""))
        if self.max_cost_usd is not None:
            cost, source = _usage_figure(trace, lambda u: u.cost_usd, "cost_usd")
            found.append(_ceiling("cost", cost, self.max_cost_usd, source, " USD"))
        return found

    def score(self, trace: Trace, case: Case) -> Score | None:
        calls = self._calls(trace)
        checks = self._checks(trace, calls)
        if not checks:
            return None
        failed = [check for check in checks if not check.passed]
        # Most traces pass the same checks, with the same reason: that one is kept.
        reason = _reason(checks) if failed else _passing_reason(tuple(checks))
        if failed:
            evidence = tuple(dict.fromkeys(i for check in failed for i in check.evidence))
        else:
            evidence = tuple(dict.fromkeys([call.span_id for call in calls]))
        value = (len(checks) - len(failed)) / len(checks)
        return Score(self.name, value, not failed, 1.0, reason, evidence)


def _reason(checks: Sequence[Check]) -> str:
    """``efficiency 1/2=0.500 checks passed; failed loops: ...; ok redundant calls: ...``:
    failed checks first."""
    passed = [check for check in checks if check.passed]
    failed = [check for check in checks if not check.passed]
    entries = [
        f"{'failed' if not check.passed else 'ok'} {check.label}: {detail}"
        for check in [*failed, *passed]
        for detail in check.details
    ]
    return "; ".join([f"efficiency {ratio(len(passed), len(checks))} checks passed", *entries])


_passing_reason = lru_cache(maxsize=256)(_reason)


def _count(label: str, span_ids: Sequence[str], limit: int) -> Check:
    """``tool calls 7 > 5``, naming the calls past the limit."""
    if len(span_ids) <= limit:
        return Check(label, True, (f"{len(span_ids)} <= {limit}",))
    over = tuple(span_ids[limit:])
    detail = f"{len(span_ids)} > {limit}; past the limit {', '.join(over)}"
    return Check(label, False, (detail,), over, over[0])


def _latency(trace: Trace) -> tuple[float | None, str]:
    if trace.usage is not None and trace.usage.latency_ms is not None:
        return trace.usage.latency_ms, "(from trace.usage)"
    duration = trace.duration_ns
    if duration is not None:
        return duration / 1e6, "(span duration)"
    return None, "no latency_ms in trace.usage and a span has not ended"


def _tokens(trace: Trace) -> tuple[float | None, str]:
    """Input + output tokens; both figures must be known, or the total is unknown."""
    inputs, in_source = _usage_figure(trace, lambda u: u.input_tokens, "input_tokens")
    outputs, out_source = _usage_figure(trace, lambda u: u.output_tokens, "output_tokens")
    if inputs is None:
        return None, in_source
    if outputs is None:
        return None, out_source
    source = in_source if in_source == out_source else f"{in_source[:-1]}; output {out_source[1:]}"
    return inputs + outputs, source


def _redundancy(calls: Sequence[ToolCall], limit: int) -> Check:
    # Only calls of a tool called more than ``limit`` times can be made more than ``limit``
    # times: the others' keys are not needed.
    names = [call.name for call in calls]
    if len(set(names)) == len(names):  # no tool called twice: the common case
        return _no_redundancy(limit)
    crowded = {name for name, count in Counter(names).items() if count > limit}
    groups: defaultdict[Hashable, list[ToolCall]] = defaultdict(list)
    for call in calls:
        if call.name in crowded:
            groups[call.key].append(call)
    over = [group for group in groups.values() if len(group) > limit]
    if not over:
        return _no_redundancy(limit)
    details = tuple(
        f"{g[0].name} {render(g[0].arguments)} {len(g)} times > {limit} at {_ids(g)}" for g in over
    )
    evidence = tuple(call.span_id for group in over for call in group)
    # The first call made once too often, whichever group it is in.
    crossed = min((group[limit] for group in over), key=lambda call: call.start_ns)
    return Check("redundant calls", False, details, evidence, crossed.span_id)


@lru_cache(maxsize=64)
def _no_redundancy(limit: int) -> Check:
    return Check("redundant calls", True, (f"no call made more than {limit} times",))


def _loops(calls: Sequence[ToolCall], min_repeats: int, *, by_tool: bool) -> Check:
    keys: list[Hashable] = []
    # No run of two or more calls fits ``min_repeats`` times in fewer calls than this.
    if len(calls) >= 2 * min_repeats:
        keys = [call.name if by_tool else call.key for call in calls]
    loops = find_loops(keys, min_repeats)
    details: list[str] = []
    evidence: list[str] = []
    # The call that starts the repetition that makes a loop of the first one: its K-th pass.
    crossed: list[int] = []
    for loop in loops:
        stretch = calls[loop.start : loop.start + loop.repeats * len(loop.block)]
        names = " -> ".join(call.name for call in stretch[: len(loop.block)])
        details.append(f"{names} repeated {loop.repeats} times >= {min_repeats} at {_ids(stretch)}")
        evidence.extend(call.span_id for call in stretch)
        crossed.append(loop.start + (min_repeats - 1) * len(loop.block))
    if not loops:
        return _no_loops(min_repeats)
    first = calls[min(crossed)].span_id
    return Check("loops", False, tuple(details), tuple(dict.fromkeys(evidence)), first)


@lru_cache(maxsize=64)
def _no_loops(min_repeats: int) -> Check:
    return Check("loops", True, (f"no run of 2+ calls repeated {min_repeats} times in a row",))


# A repeated call's arguments as its reason shows them, at most: the span ids lead to the rest.
MAX_ARGUMENTS_SHOWN = 120


def _call_text(call: ToolCall) -> str:
    """``lookup_order({"order_id":"A-1"})``, the arguments cut short past MAX_ARGUMENTS_SHOWN."""
    shown = render(call.arguments)
    if len(shown) > MAX_ARGUMENTS_SHOWN:
        shown = shown[: MAX_ARGUMENTS_SHOWN - 3] + "..."
    return f"{call.name}({shown})"


def _repeats(calls: Sequence[ToolCall], min_repeats: int) -> Check:
    keys: list[Hashable] = []
    # Same key, same tool: without a run of one tool's calls, no canonical key is needed.
    if find_repeats([call.name for call in calls], min_repeats):
        keys = [call.key for call in calls]
    repeats = find_repeats(keys, min_repeats)
    details: list[str] = []
    evidence: list[str] = []
    for repeat in repeats:
        run = calls[repeat.start : repeat.start + repeat.count]
        details.append(
            f"{_call_text(run[0])} called {repeat.count} times in a row >= {min_repeats}"
            f" at {_ids(run)}"
        )
        evidence.extend(call.span_id for call in run)
    if not repeats:
        details.append(f"no call made {min_repeats} times in a row")
        return Check("repeated calls", True, tuple(details), tuple(evidence))
    crossed = calls[repeats[0].start + min_repeats - 1].span_id
    return Check("repeated calls", False, tuple(details), tuple(evidence), crossed)
