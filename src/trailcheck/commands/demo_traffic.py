"""The demo's improvement loop: v1's production traffic into a store, then detect, cluster and
promote, ending at candidate cases that wait for a person (approval is never automatic).

The store is a fresh SQLite file in the demo's folder, so a second demo starts from nothing
rather than piling the same traffic up under new trace ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from trailcheck.cases import Case
from trailcheck.commands.loop_impl import recluster
from trailcheck.demo.support.traffic import record_v1_traffic
from trailcheck.loop import SIMILARITY_THRESHOLD, Cluster, add_candidate, builtin_rules, detect
from trailcheck.loop import promote as promote_cluster
from trailcheck.store import Store

STORE_FILE = "traffic.db"
CANDIDATES_FILE = "candidates.yaml"


@dataclass(frozen=True, slots=True)
class TrafficLoop:
    """What the loop found: the traces stored, the clusters, and a candidate per cluster."""

    store: Path
    traces: int
    findings: int
    clusters: list[Cluster]
    candidates: list[Case]
    candidates_file: Path


def run_traffic_loop(out: Path) -> TrafficLoop:
    """Record v1's traffic, store it, detect, cluster, and promote each cluster's
    representative to a candidate in ``out/candidates.yaml``."""
    out.mkdir(parents=True, exist_ok=True)
    database, candidates_file = out / STORE_FILE, out / CANDIDATES_FILE
    for stale in (database, candidates_file):
        stale.unlink(missing_ok=True)
    rules = builtin_rules()
    with Store.open(f"sqlite:///{database}") as store:
        summary = store.ingest(record_v1_traffic())
        findings = store.add_findings(detect(store.iter_traces(), rules))
        clusters = recluster(store, None, SIMILARITY_THRESHOLD)
        candidates = []
        for cluster in clusters:
            trace = store.get_trace(cluster.representative_trace_id)
            promotion = promote_cluster(cluster, trace)
            add_candidate(candidates_file, promotion.case)
            candidates.append(promotion.case)
    return TrafficLoop(
        store=database,
        traces=summary.stored,
        findings=findings,
        clusters=clusters,
        candidates=candidates,
        candidates_file=candidates_file,
    )


def render_traffic_loop(loop: TrafficLoop) -> Table:
    """One row per candidate: the failure it stands for and how many traces showed it."""
    title = (
        f"v1 traffic: {loop.traces} traces, {loop.findings} findings,"
        f" {len(loop.clusters)} clusters -> {len(loop.candidates)} candidates (to review)"
    )
    table = Table(title=title, title_justify="left")
    for column in ("candidate", "failure mode", "traces", "input"):
        table.add_column(column, overflow="fold")
    for cluster, case in zip(loop.clusters, loop.candidates, strict=True):
        table.add_row(case.id, cluster.label, str(cluster.size), case.input_text())
    return table
