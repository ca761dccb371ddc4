"""Resource hints in a dataset file: where a trial's CPUs come from, and what is refused."""

from __future__ import annotations

import pytest

from trailcheck.cases import DatasetError, TrialResources, parse_dataset, trial_num_cpus

DATASET = """\
name: hints
resources: {num_cpus: 0.5}
cases:
  - id: own
    input: hi
    resources: {num_cpus: 2}
  - id: default
    input: hi
"""


def test_a_cases_hint_wins_over_the_command_line_which_wins_over_the_datasets() -> None:
    dataset = parse_dataset(DATASET, format="yaml")
    own, default = dataset.cases
    assert [trial_num_cpus(case.resources, None, dataset.resources) for case in (own, default)] == [
        2.0,
        0.5,
    ]
    assert [trial_num_cpus(case.resources, 0.25, dataset.resources) for case in (own, default)] == [
        2.0,
        0.25,
    ]
    assert trial_num_cpus(None, None, None) == 1.0
    assert trial_num_cpus(None, None, TrialResources()) == 1.0


def test_hints_change_the_version_and_their_absence_changes_none() -> None:
    with_hints = parse_dataset(DATASET, format="yaml")
    without = parse_dataset(
        DATASET.replace("resources: {num_cpus: 0.5}\n", "").replace(
            "    resources: {num_cpus: 2}\n", ""
        ),
        format="yaml",
    )
    plain = parse_dataset(
        "name: hints\ncases:\n  - id: own\n    input: hi\n  - id: default\n    input: hi\n",
        format="yaml",
    )
    assert without.version == plain.version
    assert with_hints.version != plain.version


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "greater than or equal to 0.0001"),
        ("0.00001", "greater than or equal to 0.0001"),
        (".inf", "not a finite number"),
        ("'2'", "valid number"),
    ],
)
def test_a_hint_ray_would_refuse_is_refused_naming_file_line_and_field(
    value: str, message: str
) -> None:
    text = DATASET.replace("num_cpus: 2}", f"num_cpus: {value}}}")
    with pytest.raises(DatasetError) as raised:
        parse_dataset(text, format="yaml", source="hints.yaml")
    assert "hints.yaml:6: case 'own': field 'resources.num_cpus'" in str(raised.value)
    assert message in str(raised.value)
