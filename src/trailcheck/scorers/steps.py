"""A trace's steps, as failure attribution counts them, and the agent that took each.

The steps of a trace are its spans other than the root, in the order they started (then by span
id): the trajectory as the report and the web UI list it. Step numbers count from 1, as
:class:`~trailcheck.scorers.attribution.Attribution` records them.

The agent of a step is the nearest ``agent`` span at or above it: its ``gen_ai.agent.name``
when it records one, else its name. In a multi-agent trace that names the sub-agent that took
the step; in a single-agent trace, the one agent (the root); a trace with no agent span has
none.
"""

from __future__ import annotations

from trailcheck.trace import Span, Trace
from trailcheck.trace.semconv import GEN_AI_AGENT_NAME

__all__ = ["same_agent", "step_agent", "trace_steps"]


def trace_steps(trace: Trace) -> list[Span]:
    """The steps of ``trace`` in order (see the module); step *n* is ``trace_steps(trace)[n-1]``."""
    root = trace.tree.root
    steps = [span for span in trace.spans if root is None or span.span_id != root.span_id]
    return sorted(steps, key=lambda span: (span.start_ns, span.span_id))


def step_agent(trace: Trace, span: Span) -> str | None:
    """The agent that took ``span``: the nearest agent span at or above it (see the module)."""
    tree = trace.tree
    current: Span | None = span
    while current is not None:
        if current.kind == "agent":
            named = current.attributes.get(GEN_AI_AGENT_NAME)
            return named if isinstance(named, str) and named.strip() else current.name
        current = tree.parent(current.span_id)
    return None


def same_agent(one: str | None, other: str | None) -> bool:
    """Whether two agent names name the same agent: equal ignoring case and surrounding space
    (published labels write ``Websurfer`` for the ``WebSurfer`` agent). None matches nothing."""
    if one is None or other is None:
        return False
    return one.strip().casefold() == other.strip().casefold()
