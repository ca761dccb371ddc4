"""Leads from values: an argument other than the case expects, or a state value other than it
expects, traced back to the tool result it came from.

A wrong value that an earlier tool's result holds came from that tool. When that result does
not hold the expected value either, the tool returned wrong data: the lead is the tool's span.
When it holds both, the tool was right and the agent misread it: the lead is the call that used
the wrong value (the agent's step), and the evidence names the tool. A wrong value that no
earlier result holds is the agent's own: a wrong argument. The symptom is the first call that
carried the wrong value and failed; for a tool's wrong data without one, the first call that
carried it. A result the case declares correct but awkward (:mod:`.awkward`) is never wrong
data: a wrong value taken from it was misread, at the call that used it.

A state value other than expected is traced through the first call whose arguments carried it
(then as an argument), else to the first tool whose result held it (that tool's wrong data).

A value is *held* by a result (or arguments) when a leaf of it (a scalar, or an object's key)
equals it as JSON (25 equals 25.0), or, for text, when a text leaf contains it as a whole word
(``A-0917`` in ``"order A-0917, placed 2025-11-02"``). ``null``, booleans and text shorter than
three characters are not traced: too common to say where they came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from trailcheck.cases import (
    AbsentComparator,
    Case,
    Comparator,
    ExactComparator,
    PresentComparator,
    TextComparator,
)
from trailcheck.scorers.arguments import ArgumentsScorer, expectation_pairs
from trailcheck.scorers.attribute.awkward import describe_awkward
from trailcheck.scorers.attribute.lead import Lead, Steps
from trailcheck.scorers.comparison import compare_field, describe_expected, json_equal, render
from trailcheck.scorers.state import StateScorer, compare_state
from trailcheck.trace import ToolCall, Trace

_MISSING: Any = object()
_SHORTEST_TEXT = 3


def traceable(value: Any) -> bool:
    """Whether ``value`` is specific enough to say which result it came from."""
    if isinstance(value, str):
        return len(value.strip()) >= _SHORTEST_TEXT
    return isinstance(value, int | float) and not isinstance(value, bool)


def _leaves(value: Any) -> Iterator[Any]:
    """The scalars of a JSON value, and its objects' keys."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _whole_word(text: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(text)}(?!\w)")


def holds(value: Any, wanted: Any) -> bool:
    """Whether a leaf of ``value`` is ``wanted`` (see the module)."""
    word = _whole_word(wanted) if isinstance(wanted, str) else None
    for leaf in _leaves(value):
        if json_equal(wanted, leaf, int_equals_float=True):
            return True
        if word is not None and isinstance(leaf, str) and word.search(leaf):
            return True
    return False


@dataclass(frozen=True, slots=True)
class Expected:
    """What the case expected in place of a wrong value: shown, and a test of one leaf;
    ``text``: expected text also found inside a longer text leaf."""

    shown: str
    matches: Callable[[Any], bool]
    text: str | None = None

    @classmethod
    def by(cls, comparator: Comparator) -> Expected:
        """What an argument's comparator accepts."""

        def matches(leaf: Any) -> bool:
            return compare_field(comparator, {"value": leaf}, "value") is None

        text = None
        if isinstance(comparator, ExactComparator | TextComparator):
            text = comparator.value if isinstance(comparator.value, str) else None
        return cls(describe_expected(comparator), matches, text)

    @classmethod
    def equal_to(cls, value: Any) -> Expected:
        """A state value, equal as JSON."""
        text = value if isinstance(value, str) else None
        return cls(render(value), lambda leaf: json_equal(value, leaf, int_equals_float=True), text)

    def found_in(self, value: Any) -> bool:
        word = _whole_word(self.text) if self.text else None
        return any(
            self.matches(leaf) or (word is not None and isinstance(leaf, str) and word.search(leaf))
            for leaf in _leaves(value)
        )


def _before(source: ToolCall, call: ToolCall) -> bool:
    """Whether ``source``'s result was there to read when ``call`` was made."""
    finished = source.end_ns if source.end_ns is not None else source.start_ns
    return source is not call and finished <= call.start_ns


def value_lead(
    calls: Sequence[ToolCall],
    call: ToolCall,
    actual: Any,
    expected: Expected,
    described: str,
    steps: Steps,
) -> Lead:
    """The lead for ``call`` using the wrong value ``actual`` (see the module)."""
    carriers = [c for c in calls if c.start_ns >= call.start_ns and holds(c.arguments, actual)]
    failed = next((c.span_id for c in carriers if not c.succeeded), None)
    source = next(
        (c for c in calls if c.succeeded and _before(c, call) and holds(c.result, actual)), None
    )
    if source is None:
        return Lead(call.span_id, "wrong_argument", described, failed)
    origin = f"{source.name} (step {steps.number.get(source.span_id, '?')})"
    if source.span_id in steps.awkward:  # the case says the result was right: it was misread
        held = "" if expected.found_in(source.result) else f" and not the expected {expected.shown}"
        evidence = (
            f"{described}; {describe_awkward(source.span_id, steps)}, holding {render(actual)}"
            f"{held}: the agent misread it"
        )
        return Lead(call.span_id, "misread_tool_result", evidence, failed)
    if expected.found_in(source.result):
        evidence = (
            f"{described}; {origin} returned both {render(actual)} and the expected"
            f" {expected.shown}: the agent took the wrong one"
        )
        return Lead(call.span_id, "misread_tool_result", evidence, failed)
    evidence = (
        f"{origin} returned {render(actual)} and not the expected {expected.shown};"
        f" passed on as {described}"
    )
    return Lead(source.span_id, "tool_returned_wrong_data", evidence, failed or call.span_id)


def argument_leads(trace: Trace, case: Case, scorer: ArgumentsScorer, steps: Steps) -> list[Lead]:
    """Each expected argument field a paired call missed, and each expectation left without a
    call, as the arguments scorer pairs them."""
    calls = trace.tool_calls
    leads: list[Lead] = []
    for pair in expectation_pairs(trace, case, scorer.errored_calls):
        if pair.call is None:
            evidence = (
                f"{pair.label}: no call to pair with ({pair.expected} expected, {pair.made} made)"
            )
            leads.append(
                Lead(steps.answer_id or "", "wrong_tool", evidence, missing_tool=pair.tool)
            )
            continue
        for key, mismatch in pair.missed.items():
            described = f"{pair.label}.{key}: {mismatch}"
            comparator = pair.invocation.arguments[key]
            actual = pair.call.arguments.get(key, _MISSING)
            opaque = isinstance(comparator, PresentComparator | AbsentComparator)
            if actual is _MISSING or opaque or not traceable(actual):
                failed = None if pair.call.succeeded else pair.call.span_id
                leads.append(Lead(pair.call.span_id, "wrong_argument", described, failed))
                continue
            expected = Expected.by(comparator)
            leads.append(value_lead(calls, pair.call, actual, expected, described, steps))
    return leads


def state_leads(trace: Trace, case: Case, scorer: StateScorer, steps: Steps) -> list[Lead]:
    """Each state value present but other than expected, traced to where it came from."""
    if case.expected_state is None or trace.state_after is None:
        return []
    compared = compare_state(
        dict(case.expected_state), trace.state_after, int_equals_float=scorer.int_equals_float
    )
    calls = trace.tool_calls
    leads: list[Lead] = []
    for wrong in compared.wrong_values:
        if not traceable(wrong.actual):
            continue
        described = f"state {wrong.difference}"
        expected = Expected.equal_to(wrong.expected)
        carrier = next((c for c in calls if holds(c.arguments, wrong.actual)), None)
        if carrier is not None:
            described += f", as {carrier.name} was asked"
            leads.append(value_lead(calls, carrier, wrong.actual, expected, described, steps))
            continue
        source = next((c for c in calls if c.succeeded and holds(c.result, wrong.actual)), None)
        if source is not None:
            evidence = f"{described}; {source.name} returned it"
            leads.append(Lead(source.span_id, "tool_returned_wrong_data", evidence))
    return leads
