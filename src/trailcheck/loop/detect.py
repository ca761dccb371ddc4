"""Detection: rules over traces, streamed. Each trace is read once, by every rule, and let go:
memory holds one trace at a time, however many the source streams."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from trailcheck.loop.rule_file import Rule, builtin_rules
from trailcheck.trace import Finding, Trace
from trailcheck.trace.content_gap import GapTally
from trailcheck.trace.incomplete import incompleteness, needs_complete_trace


def detect(
    traces: Iterable[Trace], rules: Sequence[Rule] | None = None, gaps: GapTally | None = None
) -> Iterator[Finding]:
    """The findings of ``rules`` (default: the built-in rules) on each trace, in trace order
    then rule order; at most one finding per rule and trace. On a trace whose content was not
    recorded, the rules that read content are not run (their failure would be the
    telemetry's), and the trace is counted in ``gaps``. On a trace imported incomplete
    (:mod:`trailcheck.trace.incomplete`) the rules that need every span (every built-in does)
    are not run: a lost span may hide a failure or fake one."""
    chosen = builtin_rules() if rules is None else tuple(rules)
    gaps = GapTally() if gaps is None else gaps
    # What each rule needs, asked once rather than per trace.
    needs = [(rule, rule.needs_content, needs_complete_trace(rule)) for rule in chosen]
    for trace in traces:
        gap = gaps.add(trace) is not None
        incomplete = incompleteness(trace) is not None
        for rule, needs_content, needs_complete in needs:
            if (gap and needs_content) or (incomplete and needs_complete):
                continue
            finding = rule.detect(trace)
            if finding is not None:
                yield finding
