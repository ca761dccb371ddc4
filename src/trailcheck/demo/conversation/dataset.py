"""The shipped ``support-conversations`` dataset, read from the package (it ships as data)."""

from __future__ import annotations

from importlib.resources import files

from trailcheck.cases import Dataset, parse_dataset

__all__ = ["DATASET_FILE", "conversation_dataset"]

DATASET_FILE = "conversation.yaml"


def conversation_dataset() -> Dataset:
    """The refund conversations, each case's customer a simulated user."""
    resource = files("trailcheck.demo.conversation") / DATASET_FILE
    return parse_dataset(
        resource.read_bytes(), format="yaml", source=f"trailcheck/demo/conversation/{DATASET_FILE}"
    )
