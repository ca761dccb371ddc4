"""LLM judges with structured, validated verdicts, and their calibration against human labels;
the attribution judge and the calibration of attributors against attribution labels."""

from trailcheck.judge.agreement import (
    AgreementRates,
    Confusion,
    Kappa,
    agreement_rates,
    cohen_kappa,
    confusion,
)
from trailcheck.judge.attribution import AttributionJudge, AttributionJudging, AttributionStrategy
from trailcheck.judge.attribution_calibration import (
    AttributionCalibrationReport,
    AttributionFigures,
    AttributionRun,
    AttributorAgreement,
    calibrate_attribution,
)
from trailcheck.judge.attribution_labels import (
    AttributionLabel,
    load_attribution_labels,
    who_and_when_labels,
)
from trailcheck.judge.attributors import (
    Attributor,
    DeterministicAttributor,
    RecordedAttribution,
    ReplayAttributor,
    attribute_labelled,
)
from trailcheck.judge.calibration import (
    CalibrationReport,
    calibrate,
    calibration_gate,
    load_calibration_report,
)
from trailcheck.judge.comparison import CandidateComparison, compare_judges
from trailcheck.judge.figures import AgreementFigures, CalibrationOptions, JudgeRun, SplitFigures
from trailcheck.judge.groundedness import (
    Groundedness,
    GroundednessJudge,
    SentenceJudgment,
    SentenceJudgments,
)
from trailcheck.judge.judge import Judge
from trailcheck.judge.labels import (
    HumanLabel,
    LabelsFileError,
    RecordedVerdict,
    load_labels,
    load_verdicts,
)
from trailcheck.judge.lint import RubricProblem, RubricProblemKind, lint_rubric
from trailcheck.judge.order import OrderSensitivity, order_sensitivity
from trailcheck.judge.pairwise import (
    OrderCheck,
    PairwiseJudge,
    PairwiseJudging,
    PairwiseVerdict,
    Preference,
)
from trailcheck.judge.panel import Ballot, PanelJudge, PanelRule, SampledJudge
from trailcheck.judge.pinning import describe_model, judge_version
from trailcheck.judge.reference import ReferenceJudge
from trailcheck.judge.render import TOOL_DECLARATIONS_KEY, render_evidence
from trailcheck.judge.replay import ReplayJudge, replay_judge_from_spec
from trailcheck.judge.rubric import RubricJudge
from trailcheck.judge.run_judge import judge_labelled, load_items
from trailcheck.judge.sentences import split_sentences
from trailcheck.judge.structured import Asked, ask_structured, ask_verdict, strict_json_schema
from trailcheck.judge.task_completion import TaskCompletionJudge
from trailcheck.judge.untrusted import delimit, new_boundary, untrusted_notice
from trailcheck.judge.verdict import (
    JudgeItem,
    Judging,
    JudgingStatus,
    Verdict,
    verdict_json_schema,
)

__all__ = [
    "TOOL_DECLARATIONS_KEY",
    "AgreementFigures",
    "AgreementRates",
    "Asked",
    "AttributionCalibrationReport",
    "AttributionFigures",
    "AttributionJudge",
    "AttributionJudging",
    "AttributionLabel",
    "AttributionRun",
    "AttributionStrategy",
    "Attributor",
    "AttributorAgreement",
    "Ballot",
    "CalibrationOptions",
    "CalibrationReport",
    "CandidateComparison",
    "Confusion",
    "DeterministicAttributor",
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
    "RecordedAttribution",
    "RecordedVerdict",
    "ReferenceJudge",
    "ReplayAttributor",
    "ReplayJudge",
    "RubricJudge",
    "RubricProblem",
    "RubricProblemKind",
    "SampledJudge",
    "SentenceJudgment",
    "SentenceJudgments",
    "SplitFigures",
    "TaskCompletionJudge",
    "Verdict",
    "agreement_rates",
    "ask_structured",
    "ask_verdict",
    "attribute_labelled",
    "calibrate",
    "calibrate_attribution",
    "calibration_gate",
    "cohen_kappa",
    "compare_judges",
    "confusion",
    "delimit",
    "describe_model",
    "judge_labelled",
    "judge_version",
    "lint_rubric",
    "load_attribution_labels",
    "load_calibration_report",
    "load_items",
    "load_labels",
    "load_verdicts",
    "new_boundary",
    "order_sensitivity",
    "render_evidence",
    "replay_judge_from_spec",
    "split_sentences",
    "strict_json_schema",
    "untrusted_notice",
    "verdict_json_schema",
    "who_and_when_labels",
]
