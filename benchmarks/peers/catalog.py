"""The peers the scoring benchmark compares trailcheck with, in the order it reports them."""

from __future__ import annotations

from peers import adk_trajectory, agentevals_match, deepeval_metric, pydantic_evals_span_tree
from peers.peer import Peer

PEERS: tuple[Peer, ...] = (
    pydantic_evals_span_tree.PEER,
    deepeval_metric.PEER,
    adk_trajectory.PEER,
    agentevals_match.PEER,
)
