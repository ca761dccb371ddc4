"""The shipped ``pitwall`` and ``pitwall-guardrails`` datasets, read from the package.

Two datasets, as the seed found necessary: the answers (``pitwall``: trajectory, reference and
groundedness) and the refusals (``pitwall-guardrails``: no tool may be called), because one
gate over both would let a refusal's pass hide an answer's fail.
"""

from __future__ import annotations

from importlib.resources import files

from trailcheck.cases import Dataset, parse_dataset

__all__ = [
    "GUARDRAILS_FILE",
    "PITWALL_FILE",
    "guardrails_dataset",
    "pitwall_dataset",
    "shipped_dataset",
]

PITWALL_FILE = "pitwall.yaml"
GUARDRAILS_FILE = "pitwall-guardrails.yaml"


def shipped_dataset(name: str) -> Dataset:
    """The dataset file ``name`` shipped in this package (:data:`PITWALL_FILE`, ...)."""
    resource = files("trailcheck.demo.pitwall") / name
    return parse_dataset(
        resource.read_bytes(), format="yaml", source=f"trailcheck/demo/pitwall/{name}"
    )


def pitwall_dataset() -> Dataset:
    """The answers: winner, classification and final-stint pace."""
    return shipped_dataset(PITWALL_FILE)


def guardrails_dataset() -> Dataset:
    """The refusals: a missing season and an out-of-scope question."""
    return shipped_dataset(GUARDRAILS_FILE)
