"""The loop's commands against a real SQLite store: detect, clusters, promote, review."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from trailcheck.cases import load_dataset
from trailcheck.commands import loop_impl as loop_commands
from trailcheck.commands.loop import (
    clusters_command,
    detect_command,
    promote_command,
    review_command,
)
from trailcheck.store import Retention, Store
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

pytestmark = pytest.mark.live

app = typer.Typer()
app.command("detect")(detect_command)
app.command("clusters")(clusters_command)
app.command("promote")(promote_command)
app.command("review")(review_command)
runner = CliRunner()


def _refund(trace_id: str, text: str, *, start_s: int = 0) -> Trace:
    trace = (
        TraceBuilder(trace_id, input=text)
        .tool("lookup_order", {"order_id": "A-1"}, result={"total": 20})
        .tool("issue_refund", {"order_id": "A-1"}, result={"refund_id": "r"})
        .output("Your refund has been issued.")
        .build()
    )
    shift = start_s * 1_000_000_000
    spans = [
        s.model_copy(update={"start_ns": s.start_ns + shift, "end_ns": (s.end_ns or 0) + shift})
        for s in trace.spans
    ]
    return trace.model_copy(update={"spans": spans})


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    with Store.open(url) as store:
        store.ingest(
            [
                _refund("t1", "Refund order A-1001 please, ann@example.com"),
                _refund("t2", "Please refund my order A-2002"),
                TraceBuilder("t3", input="Where is my order?")
                .tool("lookup_order", {"order_id": "A-3"}, result={"status": "shipped"})
                .output("It has shipped.")
                .build(),
            ]
        )
    return url


def _invoke(*args: str, input: str | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), input=input)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def test_the_loop_end_to_end(db: str, tmp_path: Path) -> None:
    code, out = _invoke("detect", "--db", db, "--json")
    assert code == 0
    found = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert {(f["trace_id"], f["label"]) for f in found} == {
        ("t1", "refund_without_identity_check"),
        ("t2", "refund_without_identity_check"),
    }
    with Store.open(db) as store:
        assert len(store.findings()) == 2

    code, out = _invoke("clusters", "--db", db, "--json")
    assert code == 0
    (cluster,) = json.loads(out)
    assert cluster["size"] == 2
    assert cluster["did_not_generalise"] is False

    dataset = tmp_path / "candidates.yaml"
    code, out = _invoke("promote", cluster["cluster_id"], "--db", db, "--dataset", str(dataset))
    assert code == 0, out
    assert "redacted email at input" in out
    (case,) = load_dataset(dataset).cases
    assert case.review_status == "candidate"
    assert "ann@example.com" not in dataset.read_text(encoding="utf-8")
    # The rule that found the label proposes its policy.
    assert case.metadata["proposed"]["policies"][0]["before"] == "issue_refund"  # type: ignore[index,call-overload]

    before = load_dataset(dataset).version
    code, out = _invoke(
        "review", str(dataset), "--approve", case.id, "--reviewer", "ana", "--db", db
    )
    assert code == 0, out
    approved = load_dataset(dataset)
    assert approved.cases[0].review_status == "approved"
    assert approved.cases[0].reviewed_by == "ana"
    assert approved.version != before
    assert f"{before} -> {approved.version}" in out

    # A new trace of the same failure, seen after the approval: the case did not generalise.
    with Store.open(db) as store:
        store.ingest([_refund("t4", "refund my order A-4004 please", start_s=10**9 * 3)])
    assert _invoke("detect", "--db", db)[0] == 0
    code, out = _invoke("clusters", "--db", db, "--json")
    assert code == 1
    (regressed,) = json.loads(out)
    assert regressed["case_id"] == case.id
    assert regressed["new_since_approval"] == ["t4"]
    code, out = _invoke("clusters", "--db", db)
    assert code == 1
    assert (
        f"{regressed['cluster_id']} (refund_without_identity_check): the regression case did"
        f" not generalise: 1 new since case {case.id} was approved: t4"
    ) in out


def test_reject_and_usage_errors(db: str, tmp_path: Path) -> None:
    _invoke("detect", "--db", db)
    _, out = _invoke("clusters", "--db", db, "--json")
    cluster_id = json.loads(out)[0]["cluster_id"]
    dataset = tmp_path / "d.yaml"
    _invoke("promote", cluster_id, "--db", db, "--dataset", str(dataset))
    case_id = load_dataset(dataset).cases[0].id
    result = runner.invoke(app, ["review", str(dataset), "--approve", case_id])
    assert "needs --reviewer" in str(result.exception)
    result = runner.invoke(app, ["promote", "cl-nope", "--db", db, "--dataset", str(dataset)])
    assert "no cluster 'cl-nope'" in str(result.exception)
    code, _ = _invoke("review", str(dataset), "--reject", case_id, "--reason", "duplicate")
    assert code == 0
    rejected = load_dataset(dataset).cases[0]
    assert rejected.review_status == "rejected"
    assert rejected.notes is not None
    assert rejected.notes.endswith("rejected: duplicate")


def test_interactive_review_edits_then_approves(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _invoke("detect", "--db", db)
    _, out = _invoke("clusters", "--db", db, "--json")
    dataset = tmp_path / "d.yaml"
    _invoke("promote", json.loads(out)[0]["cluster_id"], "--db", db, "--dataset", str(dataset))
    monkeypatch.setattr(
        loop_commands, "_edit", lambda text: "expected_tools: [verify_identity, issue_refund]\n"
    )
    code, out = _invoke("review", str(dataset), "--db", db, input="bo\ne\na\n")
    assert code == 0, out
    assert "invoke_agent" in out  # the source trace, from the store
    (case,) = load_dataset(dataset).cases
    assert case.review_status == "approved"
    assert case.reviewed_by == "bo"
    assert case.expected_tools == ["verify_identity", "issue_refund"]


def test_detect_with_a_bad_rule_file(db: str, tmp_path: Path) -> None:
    rules = tmp_path / "r.yaml"
    rules.write_text("rules:\n  - {name: x, label: x, severity: low, kind: nope}\n", "utf-8")
    result = runner.invoke(app, ["detect", "--db", db, "--rules", str(rules)])
    assert "r.yaml:2" in str(result.exception)
    assert "unknown rule kind 'nope'" in str(result.exception)


def test_interactive_review_survives_a_bad_edit_and_takes_tools_by_prompt(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _invoke("detect", "--db", db)
    _, out = _invoke("clusters", "--db", db, "--json")
    dataset = tmp_path / "d.yaml"
    _invoke("promote", json.loads(out)[0]["cluster_id"], "--db", db, "--dataset", str(dataset))
    monkeypatch.setattr(loop_commands, "_edit", lambda text: "expected_tools: 3\n")
    typed = "verify_identity, issue_refund"
    code, out = _invoke("review", str(dataset), "--reviewer", "cy", input=f"e\nt\n{typed}\na\n")
    assert code == 0, out
    (case,) = load_dataset(dataset).cases
    assert case.review_status == "approved"
    assert case.reviewed_by == "cy"
    assert case.expected_tools == ["verify_identity", "issue_refund"]
    # The proposed arguments and policy survive the typed tools.
    assert [invocation.tool for invocation in case.expected_arguments] == [
        "lookup_order",
        "issue_refund",
    ]
    assert case.policies[0].tool == "verify_identity"


def test_detect_over_several_processes_finds_and_stores_what_one_does(store_url: str) -> None:
    # More than two pages of the store (200 rows each), so the pages go to worker processes;
    # on PostgreSQL too, whose connection stays in the parent (the workers are forked).
    traces = [
        _refund(f"r{n}", f"Refund order A-{n} please")
        if n % 3 == 0
        else TraceBuilder(f"q{n}", input="Where is my order?")
        .tool("lookup_order", {"order_id": f"A-{n}"}, result={"status": "shipped"})
        .output(None if n % 7 == 0 else "It has shipped.")
        .build()
        for n in range(450)
    ]
    with Store.open(store_url) as store:
        store.ingest(traces)
    printed, stored = [], []
    for workers in ("2", "1", "2"):  # findings are stored once: the later runs add none
        code, out = _invoke("detect", "--db", store_url, "--json", "--workers", workers)
        assert code == 0, out
        printed.append([line for line in out.splitlines() if line.startswith("{")])
        with Store.open(store_url) as store:
            stored.append([finding.model_dump() for finding in store.findings()])
    assert printed[0] == printed[1] == printed[2]
    assert stored[0] == stored[1] == stored[2]
    found = [json.loads(line) for line in printed[0]]
    # In trace order: each refund lacks its identity check, each seventh lookup its answer.
    assert [(f["trace_id"], f["label"]) for f in found][:3] == [
        ("r0", "refund_without_identity_check"),
        ("r3", "refund_without_identity_check"),
        ("r6", "refund_without_identity_check"),
    ]
    assert sum(f["label"] == "refund_without_identity_check" for f in found) == 150
    assert sum(f["label"] == "no_final_answer" for f in found) == len(
        [n for n in range(450) if n % 3 and n % 7 == 0]
    )
    assert len(stored[0]) == len(found)


def test_promotion_and_review_record_the_dataset_so_a_prune_keeps_its_sources(
    db: str, tmp_path: Path
) -> None:
    """A candidate's sources are held from pruning once promoted (the store records the
    dataset), and released once the case is rejected."""
    _invoke("detect", "--db", db)
    _, out = _invoke("clusters", "--db", db, "--json")
    dataset = tmp_path / "d.yaml"
    _invoke("promote", json.loads(out)[0]["cluster_id"], "--db", db, "--dataset", str(dataset))
    case_id = load_dataset(dataset).cases[0].id
    retention = Retention("1d")  # the builder's traces started in 2023
    with Store.open(db) as store:
        kept = store.prune(retention)
        assert (kept.deleted, kept.kept) == (1, {"cited_by_case": 2})  # t3 went
    code, _ = _invoke("review", str(dataset), "--reject", case_id, "--db", db)
    assert code == 0
    with Store.open(db) as store:
        assert store.prune(retention).deleted == 2
        assert store.list_traces() == []
