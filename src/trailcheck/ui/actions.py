"""What the UI's buttons do, through the same library functions as the terminal commands, so
both write the same store rows and the same dataset file: promotion is
:func:`trailcheck.loop.promote` then :func:`trailcheck.loop.add_candidate` (``trailcheck
promote``), a decision is :mod:`trailcheck.loop.review`'s ``approve``, ``reject`` or
``edit_proposals`` then :func:`trailcheck.cases.dump_dataset` (``trailcheck review``), and an
approval links the case to its cluster in the store, as ``trailcheck review`` does.

Each returns the line to show after the redirect; a refused action raises the library's
:class:`~trailcheck.errors.TrailcheckError`, whose message the page shows. A lock makes this
process's reads and writes of the dataset file take turns, so two reviewers clicking at once
do not lose a decision.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from trailcheck.cases import Dataset, dump_dataset, load_dataset
from trailcheck.errors import UsageError
from trailcheck.loop import PolicyRule, add_candidate, approve, builtin_rules, promote, reject
from trailcheck.loop.promote import CLUSTER_KEY
from trailcheck.loop.review import edit_proposals, find_case
from trailcheck.store import Store
from trailcheck.ui.forms import required

__all__ = ["DatasetFile", "promote_cluster"]


def promote_cluster(store: Store, cluster_id: str, dataset: DatasetFile) -> str:
    """``trailcheck promote CLUSTER --dataset FILE`` with the built-in rules' policies."""
    record = next((r for r in store.clusters() if r.cluster_id == cluster_id), None)
    if record is None:
        raise UsageError(f"no cluster {cluster_id!r}; run trailcheck clusters")
    trace = store.get_trace(record.representative_trace_id)
    policies = [
        rule.policy
        for rule in builtin_rules()
        if isinstance(rule, PolicyRule) and rule.label == record.label
    ]
    promotion = promote(record, trace, policies=policies)
    with dataset.lock:
        written = add_candidate(dataset.path, promotion.case)
    store.save_dataset(written)  # its sources are held from pruning, as by trailcheck promote
    redactions = f", {len(promotion.redactions)} redaction(s)" if promotion.redactions else ""
    return f"candidate {promotion.case.id} added to {dataset.path} ({written.version}{redactions})"


@dataclass
class DatasetFile:
    """The dataset file the review queue reads and writes (``trailcheck review FILE``)."""

    path: Path
    lock: threading.Lock = field(default_factory=threading.Lock)

    def read(self) -> Dataset | None:
        """The dataset, or None while no candidate was promoted into it."""
        return load_dataset(self.path) if self.path.exists() else None

    def decide(self, store: Store, case_id: str, decision: str, form: Mapping[str, str]) -> str:
        """Approve, reject or edit the proposals of ``case_id``; the line to show."""
        with self.lock:
            before = load_dataset(self.path)
            if decision == "approve":
                after = approve(before, case_id, reviewer=required(form, "reviewer"))
            elif decision == "reject":
                reason = form.get("reason", "").strip() or None
                after = reject(before, case_id, reviewer=required(form, "reviewer"), reason=reason)
            elif decision == "edit":
                after = edit_proposals(before, case_id, form.get("proposals", ""))
            else:
                raise UsageError(f"no decision {decision!r}: approve, reject or edit")
            dump_dataset(after, self.path)
        if decision in ("approve", "reject"):
            store.save_dataset(after)  # as trailcheck review records it
        said = f"{case_id}: {decision} saved to {self.path} ({before.version} -> {after.version})"
        if decision == "approve":
            said += _link_approval(store, after, case_id)
        return said


def _link_approval(store: Store, dataset: Dataset, case_id: str) -> str:
    cluster_id = find_case(dataset, case_id).metadata.get(CLUSTER_KEY)
    if not isinstance(cluster_id, str):
        return ""
    try:
        store.link_cluster_case(cluster_id, case_id, time.time_ns())
    except UsageError as error:  # re-clustered away since: the case stands, unlinked
        return f"; not linked to cluster {cluster_id}: {error}"
    return f"; linked to cluster {cluster_id}"
