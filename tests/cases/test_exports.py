"""The public surface of trailcheck.cases is exactly this list."""

from __future__ import annotations

import trailcheck.cases


def test_exported_names_are_pinned() -> None:
    assert sorted(trailcheck.cases.__all__) == sorted(
        [
            "BUILTIN_SCORER_NAMES",
            "BUILTIN_SCORER_ORDER",
            "COMPARATOR_NAMES",
            "COMPARE_KEY",
            "REVIEW_STATUSES",
            "SCORER_ENTRY_POINT_GROUP",
            "AbsentComparator",
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
            "ReviewStatus",
            "ScorerSpec",
            "Split",
            "SubsetComparator",
            "TextComparator",
            "ToolFault",
            "ToolMatch",
            "TrialResources",
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
    )
    for name in trailcheck.cases.__all__:
        assert hasattr(trailcheck.cases, name), name
