"""The grounding scorer: figures in the answer found in the evidence, after normalising."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from trailcheck.cases import Case
from trailcheck.scorers import Score, grounding
from trailcheck.scorers.grounding import GroundingScorer, evidence_index, find_figures
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

CASE = Case(id="c1", input="hi")


def _score(trace: Trace, scorer: GroundingScorer | None = None) -> Score:
    score = (scorer or GroundingScorer()).score(trace, CASE)
    assert score is not None
    return score


def _trace(answer: Any, result: Any = None, *, user: str = "", arguments: Any = None) -> Trace:
    builder = TraceBuilder(input=user)
    if result is not None or arguments is not None:
        builder.tool("lookup", arguments or {}, result=result)
    return builder.output(answer).build()


def _read(text: str, day_first: bool = False) -> list[tuple[str, str]]:
    return [(f.kind, str(f.value)) for f in find_figures(text, day_first=day_first)]


def test_reading_figures_in_their_common_forms() -> None:
    assert _read("$129 and 1,000.5 pts, 26 pts, 12.5% and 1:20.472") == [
        ("money", "129"),
        ("number", "1000.5"),
        ("number", "26"),
        ("percent", "12.5"),
        ("duration", "80.472"),
    ]
    assert _read("June 19, 2026 / 19 June 2026 / Jun 19th 2026 / 2026-06-19T10:00:00Z") == [
        ("date", "2026-06-19"),
        ("date", "2026-06-19"),
        ("date", "2026-06-19"),
        ("date", "2026-06-19"),
    ]
    assert _read("05/06/2026") == [("date", "2026-05-06")]
    assert _read("05/06/2026", day_first=True) == [("date", "2026-06-05")]
    assert _read("on June 19") == [("month_day", "06-19")]


def test_ids_and_words_are_not_figures() -> None:
    assert _read("order A-1042, code A1042, x2, v1.2.3, option 3 may be best") == [
        ("number", "1042"),
        ("number", "3"),
    ]
    assert _read("a refund of -3 and 129 USD") == [("number", "-3"), ("money", "129")]


def test_every_figure_supported_after_normalising() -> None:
    result = {"total": 1000.50, "refund": "129.0", "date": "2026-06-19", "lap": "1:20.472"}
    answer = "Refunded $129 of $1,000.5 on June 19, 2026; best lap 1:20.472."
    score = _score(_trace(answer, result))
    assert (score.value, score.passed) == (1.0, True)
    assert score.reason == (
        "grounding 4/4=1.000; supported: $129 (129) in lookup span-001,"
        " $1,000.5 (1000.5) in lookup span-001, June 19, 2026 (2026-06-19) in lookup span-001,"
        " 1:20.472 (80.472 s) in lookup span-001"
    )
    assert score.evidence == ("span-001",)


def test_unsupported_values_are_listed() -> None:
    score = _score(_trace("You get $12.90 back, 26 pts in total.", {"amount": 129.0, "pts": 26}))
    assert score.value == 0.5
    assert not score.passed
    assert score.reason == (
        "grounding 1/2=0.500; unsupported: $12.90 (12.9); supported: 26 in lookup span-001"
    )


def test_user_input_and_arguments_are_evidence() -> None:
    trace = _trace(
        "Order 1042 is rescheduled to 2026-06-19.",
        {"ok": True},
        user="Please move order A-1042",
        arguments={"order_id": "A-1042", "date": "June 19, 2026"},
    )
    score = _score(trace)
    assert score.value == 1.0
    assert score.reason == (
        "grounding 2/2=1.000; supported: 1042 in input, lookup span-001,"
        " 2026-06-19 in lookup span-001"
    )
    assert score.evidence == ("span-001",)


def test_percentages_durations_and_month_days_by_equivalent_forms() -> None:
    result = {"discount": 0.15, "lap_seconds": 80.472, "shipped": "2026-06-19T08:00:00Z"}
    score = _score(_trace("15% off, a 1:20.472 lap, shipped June 19.", result))
    assert score.value == 1.0
    lap_ms = _score(_trace("lap 1:20.472", {"lap_ms": 80472}))
    assert lap_ms.value == 1.0


def test_repeated_figures_count_once() -> None:
    score = _score(_trace("$129, yes $129.00, and 7", {"amount": 129}))
    assert (
        score.reason
        == "grounding 1/2=0.500; unsupported: 7; supported: $129 (129) in lookup span-001"
    )


def test_no_numeric_claims_passes_with_reason() -> None:
    score = _score(_trace("Your refund is on its way.", {"amount": 129}))
    assert (score.value, score.passed) == (1.0, True)
    assert score.reason == "grounding 0/0; no numeric claims in the final answer"


@pytest.mark.parametrize("answer", [None, "", "   "])
def test_no_final_answer_fails(answer: str | None) -> None:
    score = _score(_trace(answer, {"amount": 129}), GroundingScorer(threshold=0.0))
    assert (score.value, score.passed) == (0.0, False)
    assert score.reason == "grounding 0/0; no final answer to check"


def test_agent_messages_are_not_evidence() -> None:
    trace = TraceBuilder(input="hi").llm("It costs $42").output("It costs $42").build()
    assert _score(trace).reason == "grounding 0/1=0.000; unsupported: $42 (42)"


def test_threshold_and_spec() -> None:
    scorer = GroundingScorer(threshold=0.5, day_first=True)
    assert scorer.to_spec().settings == {"threshold": 0.5, "day_first": True}
    assert _score(_trace("7 and 8", {"n": 7}), scorer).passed
    with pytest.raises(ValueError, match="between 0 and 1"):
        GroundingScorer(threshold=-0.1)


def test_evidence_index_sources_in_order() -> None:
    trace = _trace("x", {"n": 5, "text": "5 items"}, user="I want 5")
    assert evidence_index(trace)[("number", Decimal(5))] == ["input", "span-001"]


_FIGURES = st.lists(
    st.one_of(
        st.integers(0, 10_000).map(str),
        st.integers(0, 10_000).map(lambda n: f"${n:,}"),
        st.integers(0, 100).map(lambda n: f"{n}%"),
        st.sampled_from(["June 19, 2026", "1:20.472", "2026-06-19"]),
    ),
    max_size=6,
)


@given(answer=_FIGURES, evidence=_FIGURES)
def test_value_in_unit_interval_and_self_grounded(answer: list[str], evidence: list[str]) -> None:
    text = " and ".join(answer) or "nothing"
    score = _score(_trace(text, {"notes": " , ".join(evidence)}))
    assert 0.0 <= score.value <= 1.0
    # An answer that only repeats the evidence is fully grounded.
    assert _score(_trace(text, {"notes": text})).value == 1.0


def test_spec_round_trips() -> None:
    # Through validation as scorer_from_spec does it (the registry needs the entry point).
    scorer = GroundingScorer(threshold=0.5, day_first=True)
    settings = scorer.to_spec().settings
    assert TypeAdapter(GroundingScorer).validate_json(orjson.dumps(settings), strict=True) == scorer


def test_arguments_of_a_failed_call_support_nothing() -> None:
    trace = (
        TraceBuilder(input="Refund A-1001")
        .tool("issue_refund", {"amount": 12.9}, error="card declined")
        .output("Refunded $12.90 for A-1001.")
        .build()
    )
    score = GroundingScorer().score(trace, Case(id="c", input="x"))
    assert score is not None
    assert not score.passed
    assert "unsupported: $12.90" in score.reason


_FIGURE_TEXT = st.text(
    alphabet="0123456789 ,.-/:$€£¥%JanFebMarAprMayJunJulAugSepOctNovDecStndrdthUSDEURTZ+xy\n",
    max_size=40,
)


_FIGURE_PIECES = st.lists(
    st.sampled_from(
        ["June", "Jun", "Sept", "September", "May", "Mayor", "Order", "A-1", "19", "19th", "of",
         "2026", "2026-06-19", ",", " ", ".", "$", "12.50", "-", "3:05", "%", " USD", "Dec."]
    ),
    max_size=12,
).map("".join)  # fmt: skip


@given(_FIGURE_TEXT | _FIGURE_PIECES)
def test_the_scanners_first_character_lookahead_changes_no_match(text: str) -> None:
    without = re.compile(
        grounding._FIGURE.pattern.replace(
            "(?=[\\d$€£¥-]|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)", "", 1
        ),
        re.VERBOSE,
    )
    assert without.pattern != grounding._FIGURE.pattern
    found = [(m.span(), m.groupdict()) for m in grounding._FIGURE.finditer(text)]
    assert found == [(m.span(), m.groupdict()) for m in without.finditer(text)]


@given(_FIGURE_TEXT)
def test_a_text_without_a_digit_holds_no_figure(text: str) -> None:
    # find_figures skips such a text without scanning it: the full scan agrees.
    if not any(character.isdigit() for character in text):
        assert list(grounding._FIGURE.finditer(text)) == []
    assert [f.text for f in grounding.find_figures(text)] == [
        m[0] for m in grounding._FIGURE.finditer(text)
    ]
