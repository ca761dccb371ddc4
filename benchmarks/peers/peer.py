"""A peer as the scoring benchmark sees it: a name, what it computes, and a line grader.

Each adapter module defines one :class:`Peer` whose ``build`` imports the peer library, so the
benchmark runs, and names the missing peers, in an environment without them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from trailcheck.cases import Case

LineGrader = Callable[[bytes], bool]
"""Grades one raw JSONL line end to end (parse, build the peer's objects, score); returns
whether the peer's verdict is a pass."""


@dataclass(frozen=True)
class Peer:
    """One peer evaluator, and how to run it on trailcheck JSONL lines."""

    label: str
    distribution: str
    """The PyPI distribution, for its version."""
    module: str
    """Importable when the peer is installed."""
    computes: str
    """Which evaluator, in which mode, over which objects: one line for the report."""
    build: Callable[[Mapping[str, Case]], LineGrader]
    """Prepares the per-case expectations once (as trailcheck loads its cases once) and returns
    the line grader."""
