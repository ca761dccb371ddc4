"""What ``trailcheck store prune``, ``delete`` and ``deletions`` do (their options:
:mod:`trailcheck.commands.store`).

Each opens the store named by ``--db`` (else ``$TRAILCHECK_DB``, else
``.trailcheck/trailcheck.db``), never creating one, calls it, renders and exits: 0 done, 2 for
usage and input errors (an age that is not one, a dataset or report file that cannot be read,
not exactly one of ``--session``, ``--user`` and ``--trace``). The files are read before the
store is opened, so a bad one changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from trailcheck.cases import dump_dataset, load_dataset
from trailcheck.commands.output import print_json, stderr, stdout
from trailcheck.commands.store import (
    DEFAULT_USER_KEYS,
    DeleteRequest,
    DeletionsRequest,
    PruneRequest,
)
from trailcheck.commands.store_commands_impl import open_store
from trailcheck.errors import UsageError
from trailcheck.loop.case_sources import flag_deleted_sources, kept_sources
from trailcheck.redaction import load_redactor
from trailcheck.run import load_report
from trailcheck.store import (
    DeletionEntry,
    Erasure,
    ErasureSummary,
    Holds,
    PruneSummary,
    Retention,
    parse_age,
)

HOLD_WORDS: Mapping[str, str] = {
    "cited_by_case": "cited by a case",
    "referenced_by_run": "referenced by a run",
    "noted": "noted by a person",
    "labelled": "labelled by a person",
    "being_scored": "being scored online",
}


def _iso(ns: int) -> str:
    moment = datetime.fromtimestamp(ns / 1e9, tz=UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _rows_words(rows: Mapping[str, int]) -> str:
    return ", ".join(f"{table} {count:,}" for table, count in sorted(rows.items())) or "none"


# --- prune --------------------------------------------------------------------------------


def _holds_from_files(request: PruneRequest) -> Holds:
    """The traces the given dataset and report files hold, read before the store is opened."""
    cited: set[str] = set()
    for path in request.datasets or []:
        cited |= kept_sources(load_dataset(path))
    referenced = {
        trial.trace_id
        for path in request.reports or []
        for trial in load_report(path).trials()
        if trial.trace_id is not None
    }
    return Holds(
        cited=frozenset(cited),
        referenced=frozenset(referenced),
        keep_labelled=request.keep_labelled,
    )


def prune_json(summary: PruneSummary, retention: Retention) -> dict[str, object]:
    """A prune's summary as ``--json`` prints it (and ``serve --retention`` logs it)."""
    return {
        "older_than": retention.older_than,
        "cutoff": _iso(summary.cutoff_ns),
        "dry_run": summary.dry_run,
        "deleted": summary.deleted,
        "rows": summary.rows,
        "kept": summary.kept,
        "batches": summary.batches,
        "stopped": summary.stopped,
        "deletion_id": summary.deletion_id,
    }


def prune_words(summary: PruneSummary, retention: Retention) -> list[str]:
    """A prune's summary as lines: what it deleted per table, what it kept and why."""
    verb = "would delete" if summary.dry_run else "deleted"
    lines = [
        f"{verb} {summary.deleted:,} trace(s) started before {_iso(summary.cutoff_ns)}"
        f" (older than {retention.older_than}) in {summary.batches} batch(es)"
        + (", stopped before the end" if summary.stopped else ""),
        f"  rows: {_rows_words(summary.rows)}",
    ]
    kept = ", ".join(
        f"{summary.kept[reason]:,} {HOLD_WORDS[reason]}"
        for reason in HOLD_WORDS
        if reason in summary.kept
    )
    lines.append(
        f"kept {summary.kept_total:,} trace(s) past the age" + (f": {kept}" if kept else "")
    )
    return lines


def store_prune(request: PruneRequest) -> None:
    """The body of :func:`trailcheck.commands.store.store_prune`."""
    parse_age(request.older_than)  # a bad age is a usage error before anything is read
    retention = Retention(request.older_than, _holds_from_files(request))
    with open_store(request.db, must_exist=True) as store:
        summary = store.prune(retention, batch_size=request.batch_size, dry_run=request.dry_run)
    if request.as_json:
        print_json(prune_json(summary, retention))
        return
    for line in prune_words(summary, retention):
        stdout.print(line, markup=False, highlight=False, soft_wrap=True)
    if summary.deletion_id is not None:
        stderr.print(f"logged as deletion {summary.deletion_id} (trailcheck store deletions)")


# --- delete -------------------------------------------------------------------------------


def _erasure(request: DeleteRequest) -> Erasure:
    named = [
        (kind, value)
        for kind, value in (
            ("session", request.session),
            ("user", request.user),
            ("trace", request.trace),
        )
        if value is not None
    ]
    if len(named) != 1:
        raise UsageError("name exactly one of --session ID, --user ID and --trace ID")
    [(kind, value)] = named
    if request.user_keys and kind != "user":
        raise UsageError("--user-attribute goes with --user")
    if request.redact is not None and kind == "trace":
        raise UsageError("--redact goes with --session or --user: a trace id is never hashed")
    keys = tuple(request.user_keys or DEFAULT_USER_KEYS)
    # A store redacted at intake may hold the id hashed: it is looked for in that form too.
    forms = load_redactor(request.redact).stored_forms(value) if request.redact else (value,)
    if kind == "session":
        return Erasure("session", value, also_stored_as=forms[1:])
    if kind == "user":
        return Erasure("user", value, keys, also_stored_as=forms[1:])
    return Erasure("trace", value)


def _flag_files(
    paths: Sequence[Path], deleted: Sequence[str], dry_run: bool
) -> dict[str, list[str]]:
    """Flag the cases of each dataset file that cite a deleted trace (written back unless
    dry); the case ids flagged, by file."""
    flagged: dict[str, list[str]] = {}
    for path in paths:
        dataset, cases = flag_deleted_sources(load_dataset(path), deleted)
        if cases:
            flagged[str(path)] = cases
            if not dry_run:
                dump_dataset(dataset, path)
    return flagged


def _delete_json(summary: ErasureSummary, flagged: Mapping[str, list[str]]) -> dict[str, object]:
    return {
        "selector": summary.erasure.selector,
        "dry_run": summary.dry_run,
        "traces": summary.traces,
        "trace_ids": summary.trace_ids,
        "rows": summary.rows,
        "cited_by": [
            {"dataset": c.dataset, "version": c.version, "case_id": c.case_id}
            for c in summary.cited_by
        ],
        "flagged": flagged,
        "deletion_id": summary.deletion_id,
    }


def store_delete(request: DeleteRequest) -> None:
    """The body of :func:`trailcheck.commands.store.store_delete`."""
    erasure = _erasure(request)
    paths = request.datasets or []
    for path in paths:
        load_dataset(path)  # a file that cannot be flagged stops the command before it deletes
    with open_store(request.db, must_exist=True) as store:
        summary = store.erase(erasure, dry_run=request.dry_run)
    flagged = _flag_files(paths, summary.trace_ids, request.dry_run)
    if request.as_json:
        print_json(_delete_json(summary, flagged))
        return
    verb = "would delete" if request.dry_run else "deleted"
    if not summary.rows:
        stdout.print(
            f"no stored trace of this {erasure.kind}: nothing deleted", markup=False, soft_wrap=True
        )
        return
    stdout.print(
        f"{verb} {summary.traces:,} trace(s) of this {erasure.kind}", markup=False, soft_wrap=True
    )
    stdout.print(
        f"  rows: {_rows_words(summary.rows)}", markup=False, highlight=False, soft_wrap=True
    )
    for cited in summary.cited_by:
        stdout.print(
            f"  cited by case {cited.case_id} of {cited.version} (it keeps its copy)",
            markup=False,
            soft_wrap=True,
        )
    for file, cases in flagged.items():
        stdout.print(f"  flagged in {file}: {', '.join(cases)}", markup=False, soft_wrap=True)
    if summary.deletion_id is not None:
        stderr.print(f"logged as deletion {summary.deletion_id} (trailcheck store deletions)")


# --- deletions ----------------------------------------------------------------------------


def _entry_json(entry: DeletionEntry) -> dict[str, object]:
    return {
        "id": entry.deletion_id,
        "action": entry.action,
        "selector": entry.selector,
        "selector_sha256": entry.selector_digest,
        "started": _iso(entry.started_ns),
        "updated": _iso(entry.updated_ns),
        "traces": entry.traces,
        "rows": dict(entry.rows),
        "kept": dict(entry.kept),
        "cited_by": list(entry.cited_by),
    }


def store_deletions(request: DeletionsRequest) -> None:
    """The body of :func:`trailcheck.commands.store.store_deletions`."""
    with open_store(request.db, must_exist=True) as store:
        entries = store.deletions(limit=request.limit)
    if request.as_json:
        print_json([_entry_json(entry) for entry in entries])
        return
    for entry in entries:
        digest = f" sha256:{entry.selector_digest[:16]}" if entry.selector_digest else ""
        stdout.print(
            f"{entry.deletion_id} {_iso(entry.started_ns)} {entry.action} {entry.selector}"
            f"{digest}: {entry.traces:,} trace(s); rows: {_rows_words(entry.rows)}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        if entry.kept:
            stdout.print(
                f"  kept: {_rows_words(entry.kept)}", markup=False, highlight=False, soft_wrap=True
            )
        if entry.cited_by:
            stdout.print(f"  cited by: {', '.join(entry.cited_by)}", markup=False, soft_wrap=True)
    stderr.print(f"{len(entries)} deletion(s)", markup=False, soft_wrap=True)
