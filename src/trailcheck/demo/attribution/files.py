"""Where the five-span refund run's files are: package data, read where the package is."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Literal

TRACE_FILE = "refund-run.jsonl"
"""The run as trailcheck JSONL (one line: ``dump_trace(refund_run())``)."""
DATASET_FILE = "refund.yaml"
"""The dataset of its one case."""

ShippedFile = Literal["trace", "dataset"]


def shipped_path(which: ShippedFile) -> Path:
    """The path of the shipped trace file or dataset."""
    name = TRACE_FILE if which == "trace" else DATASET_FILE
    return Path(str(files("trailcheck.demo.attribution") / name))
