"""The shipped ``support`` dataset, read from the package (it ships as package data)."""

from __future__ import annotations

from importlib.resources import files

from trailcheck.cases import Dataset, parse_dataset

DATASET_FILE = "support.yaml"


def support_dataset() -> Dataset:
    """The ``support`` dataset: the approved cases that tell the v1 agent from v2."""
    resource = files("trailcheck.demo.support") / DATASET_FILE
    return parse_dataset(
        resource.read_bytes(), format="yaml", source=f"trailcheck/demo/support/{DATASET_FILE}"
    )
