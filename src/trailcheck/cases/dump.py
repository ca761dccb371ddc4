"""Writing a dataset as YAML or JSON, in the form people write: defaults left out, exact
comparisons as plain values. What is written loads back equal (and so with the same version)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from trailcheck.cases.dataset import Dataset
from trailcheck.cases.formats import SUFFIXES, DatasetFormat, format_of
from trailcheck.cases.yaml_core import dump_yaml
from trailcheck.errors import UsageError


def dataset_data(dataset: Dataset) -> dict[str, Any]:
    """The dataset as the JSON data of its file, fields at their default left out."""
    data: dict[str, Any] = dataset.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    return data


def serialize_dataset(dataset: Dataset, format: DatasetFormat) -> str:
    """The text of the dataset's file in ``format``."""
    data = dataset_data(dataset)
    if format == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return dump_yaml(data)


def dump_dataset(dataset: Dataset, path: str | os.PathLike[str]) -> None:
    """Write the dataset to ``path``, as YAML or JSON by the suffix."""
    dataset_format = format_of(path)
    if dataset_format is None:
        raise UsageError(f"{os.fspath(path)}: name a dataset file {', '.join(SUFFIXES)}")
    Path(path).write_text(serialize_dataset(dataset, dataset_format), encoding="utf-8")
