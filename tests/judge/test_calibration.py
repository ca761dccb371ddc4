"""Calibration figures: kappa as scikit-learn computes it (and undefined where it measures
nothing), hand-checkable confusion and rates, a judge biased toward pass caught by its false-pass
rate and the gate, a candidate judge compared, splits, development labels and order flips."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from trailcheck.judge.agreement import cohen_kappa, confusion
from trailcheck.judge.calibration import calibrate, calibration_gate, load_calibration_report
from trailcheck.judge.figures import CalibrationOptions, JudgeRun, agreement_figures, label_split
from trailcheck.judge.labels import HumanLabel, LabelSplit
from trailcheck.judge.order import order_sensitivity
from trailcheck.judge.run_judge import judge_labelled
from trailcheck.judge.verdict import JudgeItem, Judging, Verdict
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

CRITERION = "verifies identity before the refund"


def _label(
    item_id: str,
    passed: bool,
    *,
    split: LabelSplit | None = None,
    development: bool = False,
    criterion: str = CRITERION,
) -> HumanLabel:
    return HumanLabel(
        item_id=item_id,
        criterion=criterion,
        human_passed=passed,
        labeler="ana",
        split=split,
        development=development,
    )


def _verdict(passed: bool) -> Verdict:
    return Verdict(
        evidence=[], passed_criteria=[], failed_criteria=[], failure_mode=None, passed=passed
    )


def _judging(item_id: str, passed: bool | None, *, criterion: str = CRITERION) -> Judging:
    if passed is None:
        return Judging(
            item_id=item_id,
            criterion=criterion,
            judge_version="j",
            status="unscorable",
            reason="invalid answer twice",
        )
    return Judging(
        item_id=item_id,
        criterion=criterion,
        judge_version="j",
        status="judged",
        verdict=_verdict(passed),
    )


def _run(judgings: Sequence[Judging], version: str = "judge-1") -> JudgeRun:
    return JudgeRun(version=version, description={"kind": "test"}, judgings=judgings)


def _labelled(pairs: Sequence[tuple[bool, bool]]) -> tuple[list[HumanLabel], list[Judging]]:
    labels = [_label(f"t{i}", human) for i, (human, _) in enumerate(pairs)]
    judgings = [_judging(f"t{i}", judge) for i, (_, judge) in enumerate(pairs)]
    return labels, judgings


# --- kappa -----------------------------------------------------------------------------------


def _random_pairs(
    seed: int, n: int, pass_share: float, agree_share: float
) -> list[tuple[bool, bool]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        human = rng.random() < pass_share
        pairs.append((human, human if rng.random() < agree_share else not human))
    return pairs


@pytest.mark.parametrize(
    "pairs",
    [
        [(True, True), (True, False), (False, False), (False, False), (True, True)],
        _random_pairs(1, 40, 0.5, 0.8),
        _random_pairs(2, 200, 0.95, 0.9),  # imbalanced: few human fails
        _random_pairs(3, 100, 0.1, 0.7),  # imbalanced: few human passes
        _random_pairs(4, 60, 0.5, 0.3),  # worse than chance: negative kappa
        [(True, True)] * 30 + [(False, True)] * 10,  # a judge that always passes
    ],
)
def test_kappa_equals_scikit_learn(pairs: list[tuple[bool, bool]]) -> None:
    humans = [h for h, _ in pairs]
    judges = [j for _, j in pairs]
    assert cohen_kappa(pairs).value == pytest.approx(cohen_kappa_score(humans, judges), abs=1e-12)


@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=2, max_size=60).filter(
        lambda pairs: len({human for human, _ in pairs}) == 2
    )
)
def test_kappa_equals_scikit_learn_whenever_humans_use_both_classes(
    pairs: list[tuple[bool, bool]],
) -> None:
    expected = cohen_kappa_score([h for h, _ in pairs], [j for _, j in pairs])
    assert cohen_kappa(pairs, resamples=20).value == pytest.approx(expected, abs=1e-12)


def test_kappa_is_undefined_when_the_labels_are_all_one_class() -> None:
    agreeing = cohen_kappa([(True, True)] * 10)
    # scikit-learn says 0 here, whatever the judge does: it measures the labels, not the judge.
    mixed_judge = cohen_kappa([(True, True)] * 8 + [(True, False)] * 2)
    for kappa in (agreeing, mixed_judge):
        assert kappa.value is None
        assert not kappa.interval.defined
        assert kappa.undefined_reason is not None
        assert "one class" in kappa.undefined_reason
    empty = cohen_kappa([])
    assert empty.value is None
    assert empty.undefined_reason == "no item has both a human label and a verdict"


def test_the_kappa_interval_is_seeded_and_covers_the_estimate() -> None:
    pairs = _random_pairs(5, 50, 0.5, 0.8)
    first = cohen_kappa(pairs, seed=3)
    assert first == cohen_kappa(pairs, seed=3)
    assert first.interval != cohen_kappa(pairs, seed=4).interval
    assert first.value is not None
    assert first.interval.includes(first.value)
    assert first.interval.method == "bootstrap-task"
    assert (first.interval.resamples, first.interval.seed) == (2000, 3)


def test_resamples_without_a_kappa_are_left_out_and_counted() -> None:
    # One human fail among 20: many resamples draw no fail at all.
    kappa = cohen_kappa([(True, True)] * 19 + [(False, False)], resamples=500)
    assert kappa.value == 1.0
    assert 0 < kappa.resamples_undefined < 500


# --- confusion and rates ----------------------------------------------------------------------


def test_confusion_and_rates_by_hand() -> None:
    # 3 both pass, 1 false fail, 2 false passes, 4 both fail.
    pairs = [(True, True)] * 3 + [(True, False)] + [(False, True)] * 2 + [(False, False)] * 4
    labels, judgings = _labelled(pairs)
    figures, _ = agreement_figures(labels, judgings)
    assert figures.confusion == confusion(pairs)
    assert figures.confusion.model_dump() == {
        "human_pass_judge_pass": 3,
        "human_pass_judge_fail": 1,
        "human_fail_judge_pass": 2,
        "human_fail_judge_fail": 4,
    }
    assert (figures.n_labels, figures.n_paired, figures.n_unscorable) == (10, 10, 0)
    assert (figures.agreement.count, figures.agreement.total) == (7, 10)
    assert (figures.recall_on_human_pass.count, figures.recall_on_human_pass.total) == (3, 4)
    assert (figures.recall_on_human_fail.count, figures.recall_on_human_fail.total) == (4, 6)
    assert figures.false_pass_rate.value == pytest.approx(2 / 6)
    assert figures.false_fail_rate.value == pytest.approx(1 / 4)
    assert figures.false_pass_rate.interval.method == "wilson"
    # kappa = 2(ad - bc) / ((a+b)(b+d) + (a+c)(c+d)) = 2(12 - 2) / (4*5 + 5*6) = 0.4
    assert figures.cohen_kappa.value == pytest.approx(0.4)


def test_unscorable_and_unjudged_labels_are_counted_and_listed_not_dropped() -> None:
    labels = [_label("t1", True), _label("t2", False), _label("t3", False)]
    judgings = [_judging("t1", True), _judging("t2", None), _judging("stray", True)]
    report = calibrate(labels, _run(judgings))
    assert (report.n_labels, report.n_paired, report.n_unscorable) == (3, 1, 2)
    assert [(u.item_id, u.reason) for u in report.unscorable] == [
        ("t2", "invalid answer twice"),
        ("t3", "not judged"),
    ]
    assert report.confusion.total == 1
    assert report.unlabelled_judgings == 1
    # No paired human fail: the false-pass rate is undefined, not 0.
    assert report.false_pass_rate.value is None
    assert not report.false_pass_rate.interval.defined


# --- a judge biased toward pass ---------------------------------------------------------------


class BiasedJudge:
    """Passes every item the humans pass and 3 in 5 of those they fail (an LLM judge's usual
    leniency), by looking at the answer key it was given."""

    version = "biased-1"

    def __init__(self, human_passed: dict[str, bool]) -> None:
        self._human = human_passed
        self.seen: list[str] = []

    def describe(self) -> dict[str, Any]:
        return {"kind": "biased"}

    async def judge(self, item: JudgeItem) -> Judging:
        self.seen.append(item.trace.trace_id)
        index = int(item.item_id.removeprefix("t"))
        passed = self._human[item.item_id] or index % 5 < 3
        return Judging(
            item_id=item.item_id,
            criterion=item.criterion,
            judge_version=self.version,
            status="judged",
            verdict=_verdict(passed),
        )


def _forty_labels() -> list[HumanLabel]:
    # Even items pass, odd fail: 20 each; the odd ones judged passed are those with i % 5 < 3.
    return [_label(f"t{i}", i % 2 == 0) for i in range(40)]


def _traces(labels: Sequence[HumanLabel]) -> dict[str, Trace]:
    return {label.item_id: TraceBuilder(label.item_id, input="refund").build() for label in labels}


def test_a_judge_biased_toward_pass_shows_in_the_false_pass_rate_and_fails_the_gate() -> None:
    labels = _forty_labels()
    judge = BiasedJudge({label.item_id: label.human_passed for label in labels})
    judgings = asyncio.run(judge_labelled(judge, labels, _traces(labels), concurrency=3))
    assert sorted(judge.seen) == sorted(label.item_id for label in labels)
    report = calibrate(labels, JudgeRun.of(judge, judgings))

    assert report.confusion.model_dump() == {
        "human_pass_judge_pass": 20,
        "human_pass_judge_fail": 0,
        "human_fail_judge_pass": 12,
        "human_fail_judge_fail": 8,
    }
    false_pass = report.false_pass_rate
    assert (false_pass.count, false_pass.total, false_pass.value) == (12, 20, 0.6)
    assert false_pass.interval.low is not None
    assert false_pass.interval.low > 0.35  # clearly above any tolerable false-pass rate
    assert report.false_fail_rate.value == 0.0
    assert report.agreement.value == pytest.approx(0.7)
    assert report.cohen_kappa.value == pytest.approx(0.4)  # 2*160 / (20*8 + 32*20)
    assert report.judge_version == "biased-1"
    assert report.judge == {"kind": "biased"}

    broken = calibration_gate(report, max_false_pass=0.1, max_false_fail=0.1)
    assert len(broken) == 1
    assert broken[0].startswith("false_pass_rate 12/20 = 0.600 (wilson 95% [")
    assert broken[0].endswith("exceeds the maximum 0.1")
    assert calibration_gate(report, max_false_pass=0.6, max_false_fail=0.0) == []


def test_the_gate_fails_on_undefined_figures_unless_told_otherwise_for_kappa() -> None:
    labels, judgings = _labelled([(True, True)] * 10)
    report = calibrate(labels, _run(judgings))
    broken = calibration_gate(report, 0.1, 0.1, require_kappa=0.6)
    assert broken[0].startswith("false_pass_rate undefined (0 human fails among the labels)")
    assert broken[1].startswith("cohen_kappa undefined (the human labels are all one class")
    lenient = calibration_gate(report, 0.1, 0.1, require_kappa=0.6, undefined_kappa_passes=True)
    assert len(lenient) == 1


def test_the_gate_checks_kappa_and_the_judge_version() -> None:
    labels, judgings = _labelled(_random_pairs(7, 40, 0.5, 0.8))
    report = calibrate(labels, _run(judgings, version="judge-1"))
    assert report.cohen_kappa.value is not None
    assert calibration_gate(report, 1, 1, require_kappa=report.cohen_kappa.value) == []
    (line,) = calibration_gate(report, 1, 1, require_kappa=0.99)
    assert line == f"cohen_kappa {report.cohen_kappa.value:.3f} is below the minimum 0.99"
    (line,) = calibration_gate(report, 1, 1, judge_version="judge-2")
    assert line == "the calibration is of judge judge-1, not judge-2: that judge is uncalibrated"


def test_the_report_round_trips_through_json(tmp_path: Path) -> None:
    labels, judgings = _labelled(_random_pairs(8, 30, 0.5, 0.8))
    report = calibrate(
        labels, _run(judgings), candidate=_run(judgings[::-1][:20], version="judge-2")
    )
    path = tmp_path / "calibration.json"
    path.write_text(report.model_dump_json())
    assert load_calibration_report(path) == report


# --- a candidate judge ------------------------------------------------------------------------


def test_a_candidate_is_reported_beside_the_judge_with_differences_and_a_paired_test() -> None:
    labels = _forty_labels()
    biased = [
        _judging(label.item_id, label.human_passed or i % 5 < 3) for i, label in enumerate(labels)
    ]
    # The candidate: right on every item except two human passes it fails; unscorable on one.
    candidate = [
        _judging(label.item_id, None if i == 39 else label.human_passed and i not in (0, 2))
        for i, label in enumerate(labels)
    ]
    report = calibrate(labels, _run(biased), candidate=_run(candidate, version="cheap-1"))
    comparison = report.candidate
    assert comparison is not None
    assert comparison.judge_version == "cheap-1"
    assert comparison.figures.false_pass_rate.value == 0.0  # 0/19
    assert comparison.figures.false_fail_rate.value == pytest.approx(2 / 20)
    differences = comparison.differences
    assert differences.false_pass_rate == pytest.approx(-0.6)
    assert differences.false_fail_rate == pytest.approx(0.1)
    assert differences.agreement == pytest.approx(37 / 39 - 28 / 40)
    assert differences.n_unscorable == 1
    test = comparison.agreement_test
    # Item 39 (a human fail the judge got right) is scored by one judge only: left out.
    assert (test.n_both_scored, test.only_judge_agrees, test.only_candidate_agrees) == (39, 2, 12)
    assert (test.both_agree, test.both_disagree) == (25, 0)
    assert test.p_value == pytest.approx(0.012939453125)  # 2 * (1 + 14 + 91) / 2**14
    assert test.statement.endswith("evidence the candidate agrees more often")


def test_a_candidate_no_different_is_said_to_show_no_difference() -> None:
    labels, judgings = _labelled(_random_pairs(9, 30, 0.5, 0.8))
    report = calibrate(labels, _run(judgings), candidate=_run(judgings, version="same"))
    assert report.candidate is not None
    assert report.candidate.agreement_test.p_value == 1.0
    assert "no evidence of a difference" in report.candidate.agreement_test.statement
    assert report.candidate.differences.cohen_kappa == 0.0


# --- splits and development labels ------------------------------------------------------------


def test_split_labels_and_development_evidence() -> None:
    labels = [
        _label("c1", True, split="calibration"),
        _label("c2", False, split="calibration", development=True),
        _label("v1", True, split="validation"),
        _label("v2", False, split="validation"),
        _label("v3", False, split="validation", development=True),
    ]
    judgings = [_judging(label.item_id, True) for label in labels]
    report = calibrate(labels, _run(judgings))
    assert report.n_labels == 5
    assert report.n_development == 2
    assert report.splits.calibration.n_labels == 2  # development labels count here
    assert report.splits.validation.n_labels == 2  # ...and not here
    assert report.splits.validation_excluded_development == 1
    assert report.splits.validation.false_pass_rate.count == 1  # v2 only, not v3
    assert report.false_pass_rate.total == 3
    broken = calibration_gate(report, 0.1, 1.0, figures="validation")
    assert broken == [
        "validation split: false_pass_rate 1/1 = 1.000 (wilson 95% [0.207, 1.000])"
        " exceeds the maximum 0.1"
    ]


def test_unsplit_labels_are_hashed_by_item_id_deterministically() -> None:
    sides = [label_split(_label(f"item-{i}", True), 0.3) for i in range(1000)]
    assert sides == [label_split(_label(f"item-{i}", False), 0.3) for i in range(1000)]
    assert 250 < sides.count("validation") < 350
    # Every criterion of one item is on the same side.
    assert {label_split(_label("item-7", True, criterion=c), 0.3) for c in "abcdef"} == {sides[7]}
    assert label_split(_label("x", True), 0.0) == "calibration"
    assert label_split(_label("x", True), 1.0) == "validation"


def test_options_set_the_split_and_the_bootstrap() -> None:
    labels, judgings = _labelled(_random_pairs(10, 40, 0.5, 0.8))
    options = CalibrationOptions(seed=5, resamples=300, validation_fraction=1.0)
    report = calibrate(labels, _run(judgings), options=options)
    assert report.splits.validation.n_labels == 40
    assert report.splits.calibration.n_labels == 0
    assert report.splits.calibration.cohen_kappa.value is None
    assert (report.seed, report.resamples) == (5, 300)
    assert report.cohen_kappa.interval.seed == 5


# --- order sensitivity ------------------------------------------------------------------------


def test_order_sensitivity_counts_flips_among_comparisons_judged_both_ways() -> None:
    result = order_sensitivity([("p1", True), ("p2", False), ("p3", None), ("p4", False)])
    assert (result.n_comparisons, result.n_unscorable) == (4, 1)
    assert (result.flip_rate.count, result.flip_rate.total) == (1, 3)
    assert result.flip_rate.value == pytest.approx(1 / 3)
    assert result.flip_rate.interval.method == "wilson"
    assert (result.flipped, result.unscorable) == (["p1"], ["p3"])
    assert order_sensitivity([]).flip_rate.value is None
