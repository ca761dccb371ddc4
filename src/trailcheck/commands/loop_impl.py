"""What ``trailcheck detect``, ``clusters``, ``promote`` and ``review`` do (their options and
exit codes: :mod:`trailcheck.commands.loop`). Each opens the store (only the CLI does), calls
:mod:`trailcheck.loop`, renders.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import click
import orjson
import typer
from rich.table import Table

from trailcheck.bulk import default_workers
from trailcheck.bulk.detection import detect_pages
from trailcheck.cases import Case, Dataset, dump_dataset, load_dataset
from trailcheck.cases.yaml_core import dump_yaml
from trailcheck.commands.executor_options import Executor, executor_kind
from trailcheck.commands.loop import ClustersRequest, DetectRequest, PromoteRequest, ReviewRequest
from trailcheck.commands.output import stderr, stdout
from trailcheck.commands.store_commands_impl import open_store
from trailcheck.errors import EXIT_FAILED, TrailcheckError, UsageError
from trailcheck.extras import needs_extra, require_extra
from trailcheck.loop import (
    DID_NOT_GENERALISE,
    Cluster,
    PolicyRule,
    Rule,
    builtin_rules,
    cluster_occurrences,
    combined_rules,
    load_rules,
    occurrence,
    promote,
    regressed_members,
)
from trailcheck.loop import add_candidate as add_candidate_to
from trailcheck.loop import approve as approve_case
from trailcheck.loop import reject as reject_case
from trailcheck.loop.promote import CLUSTER_KEY
from trailcheck.loop.review import edit_proposals, find_case, proposals_text, proposed
from trailcheck.loop.synthetic import draft_lines
from trailcheck.report import render_trace
from trailcheck.store import DB_ENV, DEFAULT_DB_PATH, ClusterRecord, Store, UnknownTraceError
from trailcheck.trace import Finding
from trailcheck.trace.content_gap import GapTally

# Findings written to the store at once while detection streams.
FINDINGS_BATCH = 500


def chosen_rules(files: Sequence[Path], *, builtin: bool = True) -> list[Rule]:
    """The built-in rules (unless turned off) and those of ``files``; names must not repeat."""
    return combined_rules(builtin_rules() if builtin else (), *(load_rules(f) for f in files))


def _batches(findings: Iterator[Finding], size: int) -> Iterator[list[Finding]]:
    batch: list[Finding] = []
    for finding in findings:
        batch.append(finding)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def detect_command(request: DetectRequest) -> None:
    """The body of :func:`trailcheck.commands.loop.detect_command`: the rules run over
    ``--workers`` processes (default: every core), or as Ray tasks."""
    address, num_cpus, as_json = request.address, request.num_cpus, request.as_json
    where = executor_kind(request.executor, address, num_cpus)
    chosen = chosen_rules(request.rules or [], builtin=request.builtin)
    if not chosen:
        raise UsageError("no rules to run: give --rules FILE or leave the built-in rules on")
    counts: dict[str, int] = {}
    # Findings come in trace order, so traces are counted without remembering them.
    traces, last_trace = 0, None
    gaps = GapTally()
    with open_store(request.db) as store:
        found = _findings(store, chosen, gaps, request.workers, where, address, num_cpus)
        for batch in _batches(found, FINDINGS_BATCH):
            store.add_findings(batch)
            for finding in batch:
                counts[finding.label] = counts.get(finding.label, 0) + 1
                traces += finding.trace_id != last_trace
                last_trace = finding.trace_id
                if as_json:
                    typer.echo(orjson.dumps(finding.model_dump(mode="json")).decode())
    if not as_json:
        table = Table("label", "findings")
        for label in sorted(counts):
            table.add_row(label, str(counts[label]))
        stdout.print(table)
    total = sum(counts.values())
    stderr.print(f"{total} finding(s) on {traces} trace(s) by {len(chosen)} rules")
    for line in gaps.warnings("; the rules that read content were not run on them"):
        stderr.print(line, markup=False, highlight=False)


def _findings(
    store: Store,
    rules: Sequence[Rule],
    gaps: GapTally,
    workers: int | None,
    where: Executor,
    address: str | None,
    num_cpus: float | None,
) -> Iterator[Finding]:
    """The rules' findings on the stored traces: over this machine's processes, or as Ray
    tasks; this process reads the store either way."""
    if where == "local":
        yield from detect_pages(
            store.content_pages(), rules, gaps, workers=workers or default_workers()
        )
        return
    with needs_extra("ray", "trailcheck detect --executor ray"):
        from trailcheck.distributed import cluster_workers, detect_pages_on_ray, ray_session
    task_cpus = 1.0 if num_cpus is None else num_cpus
    with ray_session(address):
        yield from detect_pages_on_ray(
            store.content_pages(),
            rules,
            gaps,
            workers=workers or cluster_workers(task_cpus),
            num_cpus=task_cpus,
        )


def _record(cluster: Cluster) -> ClusterRecord:
    return ClusterRecord(
        cluster_id=cluster.cluster_id,
        label=cluster.label,
        signature=cluster.signature,
        representative_trace_id=cluster.representative_trace_id,
        member_trace_ids=cluster.member_trace_ids,
        first_seen_ns=cluster.first_seen_ns or 0,
        last_seen_ns=cluster.last_seen_ns or 0,
    )


def recluster(store: Store, label: str | None, threshold: float) -> list[Cluster]:
    """Cluster the stored findings (of ``label``, or all) and save each label's clustering."""
    findings = store.findings(label=label)
    by_trace: dict[str, list[Finding]] = {}
    for finding in findings:
        by_trace.setdefault(finding.trace_id, []).append(finding)
    occurrences = []
    for trace_id in sorted(by_trace):
        trace = store.get_trace(trace_id)  # one trace at a time: only its occurrence is kept
        occurrences += [occurrence(finding, trace) for finding in by_trace[trace_id]]
    clusters = cluster_occurrences(occurrences, threshold=threshold)
    labels = {label} if label is not None else {finding.label for finding in findings}
    for each in sorted(labels):
        store.save_clusters(each, [_record(c) for c in clusters if c.label == each])
    return clusters


def _cluster_json(cluster: Cluster, record: ClusterRecord | None) -> dict[str, object]:
    approved = record.approved_ns if record else None
    regressed = regressed_members(cluster, approved)
    return {
        "cluster_id": cluster.cluster_id,
        "label": cluster.label,
        "size": cluster.size,
        "signature": cluster.signature,
        "representative_trace_id": cluster.representative_trace_id,
        "member_trace_ids": list(cluster.member_trace_ids),
        "first_seen_ns": cluster.first_seen_ns,
        "last_seen_ns": cluster.last_seen_ns,
        "case_id": record.case_id if record else None,
        "approved_ns": approved,
        "new_since_approval": list(regressed),
        "did_not_generalise": bool(regressed),
    }


def _print_clusters(rows: Sequence[dict[str, object]]) -> None:
    """A table of the clusters, then one line per cluster whose case did not generalise."""
    table = Table("cluster", "label", "size", "representative", "case")
    for row in rows:
        cells = ("cluster_id", "label", "size", "representative_trace_id", "case_id")
        style = "red" if row["did_not_generalise"] else None
        table.add_row(*(str(row[cell] or "-") for cell in cells), style=style)
    stdout.print(table)
    for row in rows:
        new = row["new_since_approval"]
        if row["did_not_generalise"] and isinstance(new, list):
            stdout.print(
                f"{row['cluster_id']} ({row['label']}): {DID_NOT_GENERALISE}:"
                f" {len(new)} new since case {row['case_id']} was approved: {', '.join(new)}",
                style="red",
                markup=False,
                soft_wrap=True,
            )


def clusters_command(request: ClustersRequest) -> None:
    """The body of :func:`trailcheck.commands.loop.clusters_command`."""
    require_extra("loop", "trailcheck clusters")  # before the store is opened
    label, threshold = request.label, request.threshold
    if not 0.0 < threshold <= 1.0:
        raise UsageError(f"--threshold is in (0, 1], not {threshold}")
    with open_store(request.db) as store:
        clusters = recluster(store, label, threshold)
        records = {record.cluster_id: record for record in store.clusters(label)}
    rows = [_cluster_json(c, records.get(c.cluster_id)) for c in clusters]
    if request.as_json:
        typer.echo(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())
    else:
        _print_clusters(rows)
    if any(row["did_not_generalise"] for row in rows):
        raise typer.Exit(EXIT_FAILED)


def _policies(rules: Sequence[Rule], label: str) -> list[PolicyRule]:
    return [rule for rule in rules if isinstance(rule, PolicyRule) and rule.label == label]


def promote_command(request: PromoteRequest) -> None:
    """The body of :func:`trailcheck.commands.loop.promote_command`."""
    cluster_id, dataset = request.cluster_id, request.dataset
    with open_store(request.db) as store:
        record = next((r for r in store.clusters() if r.cluster_id == cluster_id), None)
        if record is None:
            raise UsageError(f"no cluster {cluster_id!r} in {store.url}; run 'trailcheck clusters'")
        trace = store.get_trace(record.representative_trace_id)
    policy_rules = _policies(chosen_rules(request.rules or []), record.label)
    promotion = promote(record, trace, policies=[rule.policy for rule in policy_rules])
    written = add_candidate_to(dataset, promotion.case)
    with open_store(request.db) as store:
        store.save_dataset(written)  # its sources are held from pruning (docs/store.md)
    stdout.print(f"candidate {promotion.case.id} added to {dataset} ({written.version})")
    for redaction in promotion.redactions:
        stdout.print(f"  redacted {redaction}", markup=False)


# --- review -------------------------------------------------------------------------------


def _store_url(db: str | None) -> str | None:
    """The store to read traces from and link approvals in, when there is one."""
    if db or os.environ.get(DB_ENV):
        return db
    return "" if DEFAULT_DB_PATH.exists() else None


def _record_decision(db: str | None, dataset: Dataset, case: Case) -> None:
    """Record the decided dataset in the store, when there is one: an approved case's sources
    are held from pruning, a rejected one's no more (docs/store.md); and link an approved
    case to its cluster."""
    url = _store_url(db)
    if url is None:
        return
    cluster_id = case.metadata.get(CLUSTER_KEY)
    with open_store(url or None) as store:
        store.save_dataset(dataset)
        if case.review_status != "approved" or not isinstance(cluster_id, str):
            return
        try:
            store.link_cluster_case(cluster_id, case.id, time.time_ns())
        except UsageError as error:  # the cluster was re-clustered away: the case still stands
            stderr.print(f"warning: not linked to cluster {cluster_id}: {error}", markup=False)


def _save(path: Path, before: Dataset, after: Dataset) -> None:
    dump_dataset(after, path)
    stdout.print(f"{path}: {before.version} -> {after.version}", markup=False)


def _show(case: Case, db: str | None) -> None:
    stdout.rule(f"{case.id} ({case.review_status}, {case.split})")
    stdout.print(f"input: {case.input_text()}", markup=False)
    stdout.print(f"failure modes: {', '.join(case.failure_modes) or '-'}", markup=False)
    for line in draft_lines(case):  # a synthetic draft: its clause, scenario and reference path
        stdout.print(line, markup=False, soft_wrap=True)
    if case.notes:
        stdout.print(case.notes, markup=False)
    stdout.print("proposed expectations:", style="bold")
    stdout.print(proposals_text(case), markup=False)
    url = _store_url(db)
    if url is None or not case.source_trace_ids:
        return
    with open_store(url or None) as store:
        try:
            stdout.print(render_trace(store.get_trace(case.source_trace_ids[0])))
        except UnknownTraceError:
            stdout.print("(its source trace is not in the store)")


def _edit(text: str) -> str | None:
    """The text edited in $EDITOR (``None`` when left unsaved)."""
    edited = click.edit(text, extension=".yaml")
    return edited if isinstance(edited, str) else None


def _edited_proposals(case: Case, choice: str) -> str | None:
    """The proposals as the reviewer rewrote them: in $EDITOR (``e``) or by a prompt (``t``)."""
    if choice == "e":
        return _edit(proposals_text(case))
    tools = typer.prompt("expected tools, in order, comma-separated (empty: none may be called)")
    names = [name.strip() for name in tools.split(",") if name.strip()]
    return dump_yaml({**proposed(case), "expected_tools": names})


def _decide(dataset: Dataset, case: Case, choice: str, reviewer: str) -> Dataset | None:
    """The dataset after ``choice`` (``None`` for a choice that is not a decision)."""
    if choice in ("e", "t"):
        edited = _edited_proposals(case, choice)
        return None if edited is None else edit_proposals(dataset, case.id, edited)
    if choice == "a":
        return approve_case(dataset, case.id, reviewer=reviewer)
    if choice == "r":
        reason = typer.prompt("reason", default="not a real failure")
        return reject_case(dataset, case.id, reviewer=reviewer, reason=reason)
    return None


def _review_one(
    path: Path, dataset: Dataset, case: Case, reviewer: str, db: str | None
) -> Dataset | None:
    """One candidate, interactively; the dataset after the decision, or ``None`` to stop."""
    while True:
        _show(case, db)
        choice = typer.prompt(
            "[a]pprove, [r]eject, [e]dit proposals, [t]ype expected tools, [s]kip, [q]uit",
            default="s",
        )
        if choice in ("q", "s"):
            return None if choice == "q" else dataset
        try:
            updated = _decide(dataset, case, choice, reviewer)
        except TrailcheckError as error:  # a bad edit or an approval refused: say so, ask again
            stderr.print(f"error: {error}", style="red", markup=False)
            continue
        if updated is None:
            continue
        _save(path, dataset, updated)
        if choice in ("a", "r"):
            _record_decision(db, updated, find_case(updated, case.id))
            return updated
        dataset, case = updated, find_case(updated, case.id)


def review_command(request: ReviewRequest) -> None:
    """The body of :func:`trailcheck.commands.loop.review_command`."""
    dataset_path, approve, reject = request.dataset_path, request.approve, request.reject
    reviewer, db = request.reviewer, request.db
    dataset = load_dataset(dataset_path)
    if approve is not None and reject is not None:
        raise UsageError("--approve and --reject: give one")
    if approve is not None:
        if not reviewer:
            raise UsageError("--approve needs --reviewer NAME")
        approved = approve_case(dataset, approve, reviewer=reviewer)
        _save(dataset_path, dataset, approved)
        _record_decision(db, approved, find_case(approved, approve))
        return
    if reject is not None:
        rejected = reject_case(dataset, reject, reviewer=reviewer, reason=request.reason)
        _save(dataset_path, dataset, rejected)
        _record_decision(db, rejected, find_case(rejected, reject))
        return
    name = reviewer or typer.prompt("reviewer name")
    for case_id in [case.id for case in dataset.cases if case.review_status == "candidate"]:
        after = _review_one(dataset_path, dataset, find_case(dataset, case_id), name, db)
        if after is None:
            return
        dataset = after
