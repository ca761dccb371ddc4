"""The shipped synthetic shop sample, loaded once for the route tests."""

from __future__ import annotations

from functools import cache

from trailcheck.route import (
    RouteGate,
    Tool,
    TrainingExample,
    build_gate,
    load_catalog,
    load_taxonomy,
    load_training,
    sample_path,
)
from trailcheck.route.taxonomy import TaxonomyEntry


@cache
def catalog() -> tuple[Tool, ...]:
    return load_catalog(sample_path("catalog"))


@cache
def taxonomy() -> dict[str, TaxonomyEntry]:
    return load_taxonomy(sample_path("taxonomy"))


@cache
def training() -> tuple[TrainingExample, ...]:
    return tuple(load_training(sample_path("train")))


@cache
def gate() -> RouteGate:
    return build_gate(catalog(), taxonomy(), training())
