"""The rules that take a cheaper path decide as the full check does: the grounding rule reads the
input alone first, the date rule the arguments first (and a date needs a four-digit year), the
error rule the calls first, the repeated-call check the tools' names first."""

from __future__ import annotations

import pickle
import re
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from trailcheck.cases import Case
from trailcheck.loop import (
    DateArgumentRule,
    ErrorIgnoredRule,
    GroundingRule,
    builtin_rules,
    detect,
    parse_rules,
)
from trailcheck.scorers import GroundingScorer, parse_date
from trailcheck.scorers import dates as dates_module
from trailcheck.scorers import efficiency as efficiency_module
from trailcheck.scorers.efficiency import find_repeats
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

FIGURES = ["129", "$129.00", "139", "12.5%", "June 19, 2026", "2026-06-19", "A-1001", "1:20.5"]
CASE = Case(id="c", input="(any)")


def _trace(said: list[str], asked: list[str], answered: list[str], failed: bool) -> Trace:
    builder = TraceBuilder("t", input=f"Please check {' and '.join(asked) or 'my order'}.")
    error = "upstream timeout" if failed else None
    builder.tool("lookup", {"q": " ".join(said)}, result={"found": said}, error=error)
    return builder.output(f"It is {' and '.join(answered)}." if answered else None).build()


@settings(max_examples=150, deadline=None)
@given(
    said=st.lists(st.sampled_from(FIGURES), max_size=3),
    asked=st.lists(st.sampled_from(FIGURES), max_size=3),
    answered=st.lists(st.sampled_from(FIGURES), max_size=3),
    failed=st.booleans(),
    threshold=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_the_grounding_rule_agrees_with_the_scorer_on_the_whole_trace(
    said: list[str], asked: list[str], answered: list[str], failed: bool, threshold: float
) -> None:
    trace = _trace(said, asked, answered, failed)
    rule = GroundingRule(name="g", label="ungrounded", severity="low", threshold=threshold)
    score = GroundingScorer(threshold=threshold).score(trace, CASE)
    assert score is not None
    # A run without an answer is final_answer's to report, not grounding's.
    failed_score = not score.passed and trace.final_output is not None
    assert [hit.reason for hit in rule.hits(trace)] == ([score.reason] if failed_score else [])


def test_a_figure_only_a_tool_result_holds_is_still_grounded() -> None:
    rule = GroundingRule(name="g", label="ungrounded", severity="low")
    trace = _trace(["129"], [], ["$129.00"], failed=False)
    assert rule.hits(trace) == []
    ungrounded = _trace(["129"], [], ["139"], failed=False)
    (hit,) = rule.hits(ungrounded)
    assert "unsupported: 139" in hit.reason


def test_date_arguments_are_checked_only_against_an_input_with_dates() -> None:
    rule = DateArgumentRule(name="d", label="date_argument_mismatch", severity="high")
    builder = TraceBuilder("t", input="Book June 19, 2026")
    builder.tool("book", {"slot": {"date": "2026-06-20"}, "note": "x"}, result={"ok": True})
    builder.tool("book", {"slots": ["2026-06-19", "2026-06-21"]}, result={"ok": True})
    (first, second) = rule.hits(builder.build())
    assert first.reason.startswith("book at span-001: slot.date='2026-06-20' is 2026-06-20")
    assert second.reason.startswith("book at span-002: slots[1]='2026-06-21' is 2026-06-21")
    no_dates = TraceBuilder("t", input="Book it soon").tool("book", {"date": "2026-06-20"})
    assert rule.hits(no_dates.build()) == []


def test_every_ignored_error_is_a_hit_naming_the_answer() -> None:
    rule = ErrorIgnoredRule(name="e", label="tool_error_ignored", severity="high")
    builder = TraceBuilder("t", input="Cancel A-1 and A-2")
    builder.tool("cancel", {"id": "A-1"}, error="shipped")
    builder.tool("refund", {"id": "A-2"}, error="closed")
    builder.llm("All done: your order has been cancelled.")
    trace = builder.output("All done: your order has been cancelled.").build()
    hits = rule.hits(trace)
    assert [hit.evidence for hit in hits] == [("span-001", "span-003"), ("span-002", "span-003")]
    assert all(hit.reason.endswith('yet the answer says "All done"') for hit in hits)
    recovered = TraceBuilder("t", input="Cancel A-1").tool("cancel", {"id": "A-1"}, error="busy")
    recovered.tool("cancel", {"id": "A-1"}, result={"ok": True})
    assert rule.hits(recovered.output("It has been cancelled.").build()) == []


def test_a_rule_that_has_run_equals_and_pickles_as_a_fresh_one() -> None:
    # Compiled patterns and scorers are cached on the rule: not settings, not compared.
    text = "rules:\n  - {name: r, label: retried, severity: low, kind: rate_limit_retry}\n"
    used, fresh = parse_rules(text)[0], parse_rules(text)[0]
    trace = TraceBuilder("t", input="hi").tool("weather", {}, error="429").build()
    list(detect([trace], [used, *builtin_rules()]))
    assert used == fresh
    assert pickle.loads(pickle.dumps(used)) == fresh
    assert used.model_dump() == fresh.model_dump()


DATE_PIECES = ["2026", "06", "6", "19", "19th", "June", "jun", "-", "/", ".", " ", ",", "of", "T10"]


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(st.sampled_from(DATE_PIECES), max_size=7), day_first=st.booleans())
def test_a_text_without_a_four_digit_year_is_no_date_as_the_full_parse_says(
    pieces: list[str], day_first: bool
) -> None:
    text = "".join(pieces)
    shortcut = parse_date(text, day_first=day_first)
    with mock.patch.object(dates_module, "_YEAR", re.compile("")):  # matches every text
        full = parse_date(text, day_first=day_first)
    assert shortcut == full


def test_the_date_shortcut_still_reads_every_form() -> None:
    for text in ("2026-06-19", "June 19, 2026", "19th of June 2026", "06/19/2026", "2026/6/19"):
        assert parse_date(text, day_first=False) is not None, text


@settings(max_examples=300, deadline=None)
@given(
    calls=st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.sampled_from([1, 1.0, "1", 2])), max_size=8
    ),
    min_repeats=st.integers(2, 4),
)
def test_repeated_calls_found_from_the_names_first_are_those_of_every_key(
    calls: list[tuple[str, object]], min_repeats: int
) -> None:
    builder = TraceBuilder("t", input="go")
    for name, value in calls:
        builder.tool(name, {"x": value}, result={"ok": True})
    tool_calls = builder.build().tool_calls
    check = efficiency_module._repeats(tool_calls, min_repeats)
    expected = find_repeats([call.key for call in tool_calls], min_repeats)
    assert check.passed == (not expected)
    assert len(check.evidence) == sum(repeat.count for repeat in expected)
