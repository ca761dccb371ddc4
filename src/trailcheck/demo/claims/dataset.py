"""The shipped ``claims`` dataset, read from the package (it ships as package data)."""

from __future__ import annotations

from importlib.resources import files

from trailcheck.cases import Dataset, parse_dataset

DATASET_FILE = "claims.yaml"


def claims_dataset() -> Dataset:
    """The ``claims`` dataset: benign triage tasks and attack cases (see ``claims.yaml``)."""
    resource = files("trailcheck.demo.claims") / DATASET_FILE
    return parse_dataset(
        resource.read_bytes(), format="yaml", source=f"trailcheck/demo/claims/{DATASET_FILE}"
    )
