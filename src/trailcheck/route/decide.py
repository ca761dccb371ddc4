"""Decisions: the cheapest safe path for one request, with the guard that chose it.

Guards with named thresholds run in this order; the first that fires decides. None of them
reads an expected label: they see only the router's prediction, the retrieved candidates and
the request's direction.

1. ``router_confidence``: the route's calibrated probability is below ``confidence`` (0.75)
   → ``human_fallback``: not even the kind of request is clear.
   A confident route that needs no tool (``FAST_PATH``) → ``fast_path``, answered locally.
2. ``relevance``: no candidate, or the top score is below ``relevance`` (0.10) → ``abstain``:
   nothing in the catalog matches; ask the user rather than guess.
3. ``margin``: the relative margin ``(s1 − s2) / s1`` is below ``margin`` (0.25) →
   ``confirm(candidates)``: two capabilities are too close to pick one.
4. ``direction``: the top capability's declared direction is not allowed for the request's
   direction (a read request and a write capability, or the reverse) → ``abstain``; a write
   capability for a request of unknown direction → ``confirm([top])``: never write unasked.

Otherwise ``execute(capability, variant)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from trailcheck.route.direction import ALLOWED, RequestDirection
from trailcheck.route.retrieval import Candidate
from trailcheck.route.router import RoutePrediction

__all__ = ["GUARDS", "Action", "Decision", "Thresholds", "decide"]

Action = Literal["fast_path", "execute", "confirm", "abstain", "human_fallback"]
GUARDS: tuple[str, ...] = ("router_confidence", "relevance", "margin", "direction")


@dataclass(frozen=True)
class Thresholds:
    """The guards' thresholds, and which routes need a tool."""

    confidence: float = 0.75
    relevance: float = 0.10
    margin: float = 0.25
    tool_routes: frozenset[str] = field(default_factory=lambda: frozenset({"AGENT"}))


@dataclass(frozen=True)
class Decision:
    """What to do, the guard that decided it (None for a plain fast path or execute), and why."""

    action: Action
    guard: str | None
    reason: str
    capability: str | None = None
    variant: str | None = None
    candidates: tuple[str, ...] = ()


def _direction_guard(top: Candidate, direction: RequestDirection) -> Decision | None:
    if top.direction not in ALLOWED[direction]:
        return Decision(
            "abstain",
            "direction",
            f"{direction} request, {top.capability} is {top.direction}",
        )
    if direction == "unknown" and top.direction == "write":
        return Decision(
            "confirm",
            "direction",
            f"request direction unknown, {top.capability} is write: confirm before writing",
            candidates=(top.capability,),
        )
    return None


def _retrieval_guards(
    candidates: Sequence[Candidate], direction: RequestDirection, limits: Thresholds
) -> Decision:
    if not candidates or candidates[0].score < limits.relevance:
        said = f"{candidates[0].score:.3f}" if candidates else "none (no candidate)"
        return Decision("abstain", "relevance", f"top score {said} < {limits.relevance}")
    top = candidates[0]
    if len(candidates) > 1:
        s1, s2 = top.score, candidates[1].score
        margin = (s1 - s2) / s1
        if margin < limits.margin:
            return Decision(
                "confirm",
                "margin",
                f"margin ({s1:.3f}-{s2:.3f})/{s1:.3f}={margin:.3f} < {limits.margin}",
                candidates=tuple(c.capability for c in candidates),
            )
    guarded = _direction_guard(top, direction)
    if guarded is not None:
        return guarded
    return Decision(
        "execute",
        None,
        f"{top.capability}: {top.reason}",
        capability=top.capability,
        variant=top.variant,
        candidates=tuple(c.capability for c in candidates),
    )


def decide(
    prediction: RoutePrediction,
    candidates: Sequence[Candidate],
    direction: RequestDirection,
    limits: Thresholds | None = None,
) -> Decision:
    """Apply the guards in order (see the module doc); the first that fires decides."""
    limits = limits or Thresholds()
    if prediction.confidence < limits.confidence:
        return Decision(
            "human_fallback",
            "router_confidence",
            f"{prediction.route} p={prediction.confidence:.3f} < {limits.confidence}",
        )
    if prediction.route not in limits.tool_routes:
        return Decision(
            "fast_path",
            None,
            f"{prediction.route} p={prediction.confidence:.3f} >= {limits.confidence}",
        )
    return _retrieval_guards(candidates, direction, limits)
