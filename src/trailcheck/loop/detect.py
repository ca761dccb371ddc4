"""Detection: rules over traces, streamed. Each trace is read once, by every rule, and let go:
memory holds one trace at a time, however many the source streams."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from trailcheck.loop.rule_file import Rule, builtin_rules
from trailcheck.trace import Finding, Trace


def detect(traces: Iterable[Trace], rules: Sequence[Rule] | None = None) -> Iterator[Finding]:
    """The findings of ``rules`` (default: the built-in rules) on each trace, in trace order
    then rule order; at most one finding per rule and trace."""
    chosen = builtin_rules() if rules is None else tuple(rules)
    for trace in traces:
        for rule in chosen:
            finding = rule.detect(trace)
            if finding is not None:
                yield finding
