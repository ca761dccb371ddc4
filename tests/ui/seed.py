"""A small store with something on every page: traces over three days (one hostile), findings,
a cluster, a candidate dataset and two run reports whose failed trial names a stored trace."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from sqlalchemy import insert

from trailcheck.loop import add_candidate, promote
from trailcheck.online import Evaluator
from trailcheck.run.compare import compare_outcomes
from trailcheck.run.results import CaseResult, RunReport, TrialResult, dump_report
from trailcheck.run.stats import summarize_outcomes
from trailcheck.store import ClusterRecord, Store, schema
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Finding, Trace

HOSTILE: Final = '<script>document.title="owned"</script><img src=x onerror=alert(1)>'
LABEL: Final = "refund_without_identity_check"
CLUSTER_ID: Final = "cl-0001"
DAY_NS: Final = 86_400 * 1_000_000_000


def shifted(trace: Trace, days: int) -> Trace:
    """``trace`` with every span moved ``days`` later."""
    return moved(trace, days * DAY_NS)


def moved(trace: Trace, offset: int) -> Trace:
    """``trace`` with every span moved ``offset`` nanoseconds later."""
    spans = [
        span.model_copy(
            update={
                "start_ns": span.start_ns + offset,
                "end_ns": None if span.end_ns is None else span.end_ns + offset,
            }
        )
        for span in trace.spans
    ]
    return trace.model_copy(update={"spans": spans})


def refund(trace_id: str, days: int) -> Trace:
    built = (
        TraceBuilder(trace_id, input=f"refund order A-{days} please, email me at a@b.example")
        .tool("lookup_order", {"order_id": f"A-{days}"}, result={"total": 129})
        .tool("issue_refund", {"order_id": f"A-{days}"}, result="ok")
        .output("Your refund has been issued.")
        .metadata(session_id="s-refunds")
        .build()
    )
    return shifted(built, days)


def hostile() -> Trace:
    built = (
        TraceBuilder("t-hostile", input=f"show this: {HOSTILE}")
        .tool("search_docs", {"query": HOSTILE}, result=HOSTILE, error=f"failed {HOSTILE}")
        .llm("thinking", input_tokens=120, output_tokens=30)
        .output(HOSTILE)
        .build()
    )
    return shifted(built, 1)


def plain(trace_id: str, days: int) -> Trace:
    built = (
        TraceBuilder(trace_id, input=f"what are your opening hours? ({trace_id})")
        .tool("store_hours", {})
        .output("9 to 5")
        .build()
    )
    return shifted(built, days)


TRACES: Final = (
    refund("t-refund-1", 0),
    refund("t-refund-2", 1),
    hostile(),
    plain("t-hours-1", 0),
    plain("t-hours-2", 2),
    plain("t-hours-3", 2),
)


# Where the seeded failures began: the refund call, before any identity check.
# Where the in-process test client says it sends its requests: a tokenless UI answers only
# requests whose Host names loopback (trailcheck.serve.security.loopback_host_header).
LOOPBACK_URL = "http://127.0.0.1:8765"

FAILURE_BEGAN = {
    "span_id": "span-002",
    "step": 2,
    "name": "execute_tool issue_refund",
    "category": "policy_breach",
    "evidence": "issue_refund called before verify_identity",
}


def _report(statuses: dict[str, list[str]], trace_of_failure: str | None) -> RunReport:
    cases = [
        CaseResult(
            id=case_id,
            split="regression",
            review_status="approved",
            trials=[
                TrialResult.model_validate(
                    {
                        "case_id": case_id,
                        "attempt": attempt,
                        "status": status,
                        "reason": "issue_refund called before verify_identity"
                        if status == "failed"
                        else "all scorers passed",
                        "duration_ms": 10.0,
                        "trace_id": trace_of_failure if status == "failed" else None,
                        "attribution": FAILURE_BEGAN if status == "failed" else None,
                    }
                )
                for attempt, status in enumerate(trials, start=1)
            ],
        )
        for case_id, trials in statuses.items()
    ]
    outcomes = {case.id: [t.status for t in case.trials] for case in cases}
    return RunReport(
        manifest={"dataset": {"version": "shop@1"}, "agent": {"reference": "shop:make"}},
        summary=summarize_outcomes(outcomes, k=2),
        review_statuses={"approved": len(cases)},
        cases=cases,
    )


def write_runs(folder: Path) -> tuple[RunReport, RunReport]:
    """``v1.json`` (every trial passed) and ``v2.json`` (refund-1 failed, both trials)."""
    folder.mkdir(parents=True, exist_ok=True)
    v1 = _report({"refund-1": ["passed", "passed"], "hours-1": ["passed", "passed"]}, None)
    v2 = _report({"refund-1": ["failed", "failed"], "hours-1": ["passed", "passed"]}, "t-refund-1")
    v2 = v2.model_copy(update={"comparison": compare_outcomes(v2.outcomes(), v1.outcomes())})
    (folder / "v1.json").write_bytes(dump_report(v1))
    (folder / "v2.json").write_bytes(dump_report(v2))
    return v1, v2


def seed_store(store: Store) -> None:
    store.ingest(TRACES)
    store.add_findings(
        Finding(
            trace_id=trace_id,
            label=LABEL,
            severity="high",
            reason="issue_refund without verify_identity",
            source="rule:refund_needs_identity",
        )
        for trace_id in ("t-refund-1", "t-refund-2")
    )
    store.save_clusters(
        LABEL,
        [
            ClusterRecord(
                cluster_id=CLUSTER_ID,
                label=LABEL,
                signature="lookup_order -> issue_refund",
                representative_trace_id="t-refund-1",
                member_trace_ids=("t-refund-1", "t-refund-2"),
                first_seen_ns=1,
                last_seen_ns=2,
            )
        ],
    )


def write_candidates(store: Store, path: Path) -> str:
    """Promote the cluster into ``path`` as ``trailcheck promote`` does; the candidate's id."""
    record = store.clusters(LABEL)[0]
    promotion = promote(record, store.get_trace(record.representative_trace_id))
    add_candidate(path, promotion.case)
    return promotion.case.id


def fire_alert(
    store: Store, alert: str, evaluator: Evaluator, window: tuple[int, int], notice: str
) -> None:
    """A row of ``online_alerts`` as the worker writes one when ``alert`` fires over
    ``window`` (start and end, in ns): fired as the window ends, with ``notice`` as its JSON."""
    start, end = window
    with store.engine.begin() as connection:
        connection.execute(
            insert(schema.online_alerts).values(
                alert=alert,
                name=evaluator.name,
                version=evaluator.version,
                window_start_ns=start,
                window_end_ns=end,
                fired_ns=end,
                notice=notice,
                deliveries="[]",
            )
        )
