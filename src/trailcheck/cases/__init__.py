"""Cases and datasets: golden cases, dataset files (YAML or JSON) with every problem reported at
once, versions that hash the canonical content, and the published JSON Schema."""

from trailcheck.cases.awkward import AWKWARD_DESCRIPTIONS, AWKWARD_KINDS, AwkwardKind
from trailcheck.cases.case import (
    Case,
    CaseInput,
    ExpectedInvocation,
    RelevantChunks,
    ReviewStatus,
    Split,
    ToolMatch,
)
from trailcheck.cases.comparators import (
    COMPARATOR_NAMES,
    COMPARE_KEY,
    AbsentComparator,
    Comparator,
    DateComparator,
    DatetimeComparator,
    ExactComparator,
    NumberComparator,
    OneOfComparator,
    PresentComparator,
    RegexComparator,
    SubsetComparator,
    TextComparator,
)
from trailcheck.cases.dataset import Dataset
from trailcheck.cases.dump import dump_dataset, serialize_dataset
from trailcheck.cases.faults import ToolFault, awkward_kinds
from trailcheck.cases.formats import DatasetFormat
from trailcheck.cases.gate import GateSpec
from trailcheck.cases.load import load_dataset, parse_dataset
from trailcheck.cases.problems import DatasetError, Problem
from trailcheck.cases.resources import TrialResources, trial_num_cpus
from trailcheck.cases.review import REVIEW_STATUSES, release_cases, status_counts
from trailcheck.cases.schema import dataset_json_schema
from trailcheck.cases.scorer_specs import (
    BUILTIN_SCORER_NAMES,
    BUILTIN_SCORER_ORDER,
    SCORER_ENTRY_POINT_GROUP,
    ScorerSpec,
    known_scorer_names,
)
from trailcheck.cases.simulated_user import SimulatedUser, StopCondition
from trailcheck.cases.version import canonical_form, dataset_digest, dataset_version

__all__ = [
    "AWKWARD_DESCRIPTIONS",
    "AWKWARD_KINDS",
    "BUILTIN_SCORER_NAMES",
    "BUILTIN_SCORER_ORDER",
    "COMPARATOR_NAMES",
    "COMPARE_KEY",
    "REVIEW_STATUSES",
    "SCORER_ENTRY_POINT_GROUP",
    "AbsentComparator",
    "AwkwardKind",
    "Case",
    "CaseInput",
    "Comparator",
    "Dataset",
    "DatasetError",
    "DatasetFormat",
    "DateComparator",
    "DatetimeComparator",
    "ExactComparator",
    "ExpectedInvocation",
    "GateSpec",
    "NumberComparator",
    "OneOfComparator",
    "PresentComparator",
    "Problem",
    "RegexComparator",
    "RelevantChunks",
    "ReviewStatus",
    "ScorerSpec",
    "SimulatedUser",
    "Split",
    "StopCondition",
    "SubsetComparator",
    "TextComparator",
    "ToolFault",
    "ToolMatch",
    "TrialResources",
    "awkward_kinds",
    "canonical_form",
    "dataset_digest",
    "dataset_json_schema",
    "dataset_version",
    "dump_dataset",
    "known_scorer_names",
    "load_dataset",
    "parse_dataset",
    "release_cases",
    "serialize_dataset",
    "status_counts",
    "trial_num_cpus",
]
