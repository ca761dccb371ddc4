"""The public surface of trailcheck.judge changes only on purpose."""

from __future__ import annotations

import trailcheck.judge


def test_judge_exports() -> None:
    assert sorted(trailcheck.judge.__all__) == sorted(
        [
            "TOOL_DECLARATIONS_KEY",
            "AgreementFigures",
            "AgreementRates",
            "Asked",
            "Ballot",
            "CalibrationOptions",
            "CalibrationReport",
            "CandidateComparison",
            "Confusion",
            "Groundedness",
            "GroundednessJudge",
            "HumanLabel",
            "Judge",
            "JudgeItem",
            "JudgeRun",
            "Judging",
            "JudgingStatus",
            "Kappa",
            "LabelsFileError",
            "OrderCheck",
            "OrderSensitivity",
            "PairwiseJudge",
            "PairwiseJudging",
            "PairwiseVerdict",
            "PanelJudge",
            "PanelRule",
            "Preference",
            "RecordedVerdict",
            "ReferenceJudge",
            "ReplayJudge",
            "RubricJudge",
            "RubricProblem",
            "RubricProblemKind",
            "SampledJudge",
            "SentenceJudgment",
            "SentenceJudgments",
            "SplitFigures",
            "Verdict",
            "agreement_rates",
            "ask_structured",
            "ask_verdict",
            "calibrate",
            "calibration_gate",
            "cohen_kappa",
            "compare_judges",
            "confusion",
            "delimit",
            "describe_model",
            "judge_labelled",
            "judge_version",
            "lint_rubric",
            "load_calibration_report",
            "load_items",
            "load_labels",
            "load_verdicts",
            "new_boundary",
            "order_sensitivity",
            "render_evidence",
            "replay_judge_from_spec",
            "split_sentences",
            "untrusted_notice",
            "verdict_json_schema",
        ]
    )


def test_every_exported_name_exists() -> None:
    for name in trailcheck.judge.__all__:
        assert hasattr(trailcheck.judge, name), name
