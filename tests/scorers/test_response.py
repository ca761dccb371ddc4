"""The response scorer: reference equality and containment, keywords, regex, forbidden text."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from trailcheck.cases import Case
from trailcheck.scorers import Score
from trailcheck.scorers.response import ResponseScorer
from trailcheck.testing import TraceBuilder


def _score(
    answer: str | None, scorer: ResponseScorer | None = None, reference: str | None = None
) -> Score | None:
    case = Case(id="c1", input="hi", reference_response=reference)
    return (scorer or ResponseScorer()).score(TraceBuilder().output(answer).build(), case)


def _scored(
    answer: str | None, scorer: ResponseScorer | None = None, reference: str | None = None
) -> Score:
    score = _score(answer, scorer, reference)
    assert score is not None
    return score


def test_nothing_asked_produces_no_score() -> None:
    assert _score("anything") is None
    assert _score("anything", ResponseScorer(reference="ignore"), "Refunded.") is None


def test_normalised_equality_with_reference() -> None:
    score = _scored("  refunded  ", reference="Refunded.")
    assert (score.value, score.passed) == (1.0, True)
    assert score.reason == "response 1/1=1.000"
    assert _scored("Café  ouvert!", reference="cafe ouvert").value == 1.0


def test_equality_failure_shows_both_sides() -> None:
    score = _scored("Your order was refunded.", reference="Refunded.")
    assert (score.value, score.passed) == (0.0, False)
    assert score.reason == (
        'response 0/1=0.000; equals reference: expected "refunded", got "your order was refunded"'
    )


def test_case_sensitive_setting() -> None:
    scorer = ResponseScorer(case_sensitive=True)
    assert _scored("refunded", scorer, "Refunded").value == 0.0


def test_contains_reference_matches_whole_words() -> None:
    scorer = ResponseScorer(reference="contains")
    assert _scored("Your order A-1 was REFUNDED today.", scorer, "was refunded").value == 1.0
    score = _scored("It was refundedish.", scorer, "was refunded")
    assert score.reason == 'response 0/1=0.000; reference "was refunded" not found'


def test_keyword_checks_each_count() -> None:
    scorer = ResponseScorer(
        reference="ignore",
        all_of=("refund", "A-1042"),
        any_of=("today", "tomorrow"),
        regex=(r"\$\d+\.\d{2}",),
        must_not_contain=("guarantee", "no"),
    )
    good = _scored("Your refund of $129.00 for A-1042 arrives tomorrow; I know.", scorer)
    assert (good.value, good.passed) == (1.0, True)
    bad = _scored("No refund was possible, we guarantee it, $129.", scorer, "ignored")
    assert bad.value == pytest.approx(1 / 6)
    assert not bad.passed
    assert bad.reason == (
        'response 1/6=0.167; all_of: missing "A-1042"; any_of: none of "today", "tomorrow";'
        ' regex: no match for /\\$\\d+\\.\\d{2}/; must_not_contain: found "guarantee";'
        ' must_not_contain: found "no"'
    )


def test_reference_and_keywords_together() -> None:
    scorer = ResponseScorer(all_of=("refunded",), threshold=0.5)
    score = _scored("Refunded", scorer, "Refunded, thank you")
    assert score.value == 0.5
    assert score.passed
    assert score.reason.startswith("response 1/2=0.500; equals reference:")


@pytest.mark.parametrize("answer", [None, "", "  "])
def test_no_final_answer_fails_even_with_only_negative_checks(answer: str | None) -> None:
    scorer = ResponseScorer(must_not_contain=("sorry",), threshold=0.0)
    score = _scored(answer, scorer)
    assert (score.value, score.passed) == (0.0, False)
    assert score.reason == "response 0/1=0.000; no final answer to check"


def test_structured_final_output_is_checked_as_json_text() -> None:
    trace = TraceBuilder().output({"status": "refunded"}).build()
    case = Case(id="c1", input="hi")
    score = ResponseScorer(all_of=("refunded",)).score(trace, case)
    assert score is not None
    assert score.value == 1.0


def test_bad_settings_are_rejected() -> None:
    with pytest.raises(ValueError, match="does not compile"):
        ResponseScorer(regex=("(",))
    with pytest.raises(ValueError, match="empty keyword"):
        ResponseScorer(all_of=("  ",))
    with pytest.raises(ValueError, match="between 0 and 1"):
        ResponseScorer(threshold=1.5)


def test_spec_lists_non_default_settings() -> None:
    spec = ResponseScorer(reference="contains", must_not_contain=("sorry",)).to_spec()
    assert spec.name == "response"
    assert spec.settings == {"reference": "contains", "must_not_contain": ["sorry"]}


_WORDS = st.lists(st.sampled_from(["refund", "order", "sorry", "today", "A-1"]), max_size=4)


@given(answer=st.text(max_size=40), all_of=_WORDS, forbidden=_WORDS, reference=st.text())
def test_value_in_unit_interval(
    answer: str, all_of: list[str], forbidden: list[str], reference: str
) -> None:
    scorer = ResponseScorer(all_of=tuple(all_of), must_not_contain=tuple(forbidden))
    score = _score(answer, scorer, reference or None)
    if score is not None:
        assert 0.0 <= score.value <= 1.0
        assert score.passed == (score.value == 1.0 and bool(answer.strip()))


@given(answer=st.text(min_size=1, max_size=40).filter(str.strip))
def test_an_answer_equals_itself_as_reference(answer: str) -> None:
    assert _scored(answer, reference=answer).value == 1.0


def test_spec_round_trips() -> None:
    # Through validation as scorer_from_spec does it (the registry needs the entry point).
    scorer = ResponseScorer(reference="contains", any_of=("a", "b"), regex=("x+",))
    settings = scorer.to_spec().settings
    assert TypeAdapter(ResponseScorer).validate_json(orjson.dumps(settings), strict=True) == scorer


def test_every_answer_scope_finds_an_output_said_before_the_final_answer() -> None:
    trace = (
        TraceBuilder()
        .llm(output="Your reservation code is QX7B2L.")
        .llm(output="Anything else? Have a good flight!")
        .output("Have a good flight!")
        .build()
    )
    case = Case(id="c", input="Book it")
    final_only = ResponseScorer(all_of=("QX7B2L",))
    every = ResponseScorer(all_of=("QX7B2L",), scope="every_answer")
    missed = final_only.score(trace, case)
    found = every.score(trace, case)
    assert missed is not None
    assert not missed.passed
    assert found is not None
    assert found.passed
    # The reference is the final answer's to meet, whatever the scope.
    referenced = Case(id="r", input="Book it", reference_response="Your reservation code is QX7B2L")
    checked = every.score(trace, referenced)
    assert checked is not None
    assert not checked.passed
    assert "equals reference" in checked.reason


def test_every_answer_scope_also_forbids_what_any_answer_said() -> None:
    trace = TraceBuilder().llm(output="Your card 4111 is on file.").output("Done.").build()
    scorer = ResponseScorer(must_not_contain=("4111",), scope="every_answer")
    scored = scorer.score(trace, Case(id="c", input="Pay"))
    assert scored is not None
    assert not scored.passed
    final_only = ResponseScorer(must_not_contain=("4111",)).score(trace, Case(id="c", input="Pay"))
    assert final_only is not None
    assert final_only.passed  # the final answer alone does not say it
