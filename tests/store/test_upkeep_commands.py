"""``trailcheck store prune``, ``delete`` and ``deletions`` through the CLI: the files that hold
traces, what is printed, the usage errors, and the dataset file flagged."""

from __future__ import annotations

import time
from pathlib import Path

import orjson
import pytest

from tests.store.owned_builders import DAY_S, ORIGIN_NS, aged_trace, case, dataset
from trailcheck.cases import dump_dataset, load_dataset
from trailcheck.cli import run_cli
from trailcheck.loop.case_sources import DELETED_SOURCES_KEY
from trailcheck.run.results import CaseResult, RunReport, TrialResult, dump_report
from trailcheck.run.stats import summarize_outcomes
from trailcheck.store import Store

# The traces' day 0 is the builder's origin, long past; "today" is the day now is in.
TODAY = (time.time_ns() - ORIGIN_NS) // (DAY_S * 10**9)


def _store(tmp_path: Path) -> str:
    db = f"sqlite:///{tmp_path / 'store.db'}"
    with Store.open(db) as store:
        store.ingest([aged_trace(f"old-{n}", n) for n in range(5)])
        store.ingest([aged_trace("recent", TODAY, conversation_id="conv-1")])
        store.add_note("old-0", "looks wrong", "ana")
    return db


def _report(path: Path, trace_id: str) -> Path:
    trial = TrialResult(case_id="c", attempt=1, status="passed", reason="ok", duration_ms=1.0)
    trial = trial.model_copy(update={"trace_id": trace_id})
    report = RunReport(
        manifest={},
        summary=summarize_outcomes({"c": ["passed"]}, k=1),
        review_statuses={"approved": 1},
        cases=[CaseResult(id="c", split="regression", review_status="approved", trials=[trial])],
    )
    path.write_bytes(dump_report(report))
    return path


def test_prune_keeps_what_files_and_people_hold_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _store(tmp_path)
    shop = tmp_path / "shop.yaml"
    dump_dataset(dataset("shop", [case("c1", ["old-1"]), case("c2", ["old-2"], "rejected")]), shop)
    report = _report(tmp_path / "report.json", "old-3")
    args = ["store", "prune", "--older-than", "30d", "--db", db, "--json"]
    args += ["--keep-dataset", str(shop), "--keep-report", str(report)]
    assert run_cli([*args, "--dry-run"]) == 0
    dry = orjson.loads(capsys.readouterr().out)
    assert run_cli(args) == 0
    done = orjson.loads(capsys.readouterr().out)
    assert (dry["deleted"], dry["dry_run"], done["dry_run"]) == (2, True, False)
    assert dry["rows"] == done["rows"]
    assert dry["rows"]["traces"] == 2
    assert done["kept"] == {"cited_by_case": 1, "referenced_by_run": 1, "noted": 1}
    with Store.open(db) as store:
        left = sorted(row.trace_id for row in store.list_traces())
    assert left == ["old-0", "old-1", "old-3", "recent"]
    assert run_cli(["store", "prune", "--older-than", "30d", "--db", db, "--prune-labelled"]) == 0
    shown = capsys.readouterr()  # no files this time, and the note holds nothing
    out = shown.out
    assert "logged as deletion 2 (trailcheck store deletions)" in shown.err
    assert "deleted 3 trace(s) started before" in out
    assert "rows: notes 1, spans 6, traces 3" in out
    assert "kept 0 trace(s) past the age" in out


def test_prune_refuses_a_bad_age_and_an_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _store(tmp_path)
    assert run_cli(["store", "prune", "--older-than", "30 days", "--db", db]) == 2
    assert "a whole number above 0 and a unit" in capsys.readouterr().err
    missing = str(tmp_path / "missing.json")
    assert (
        run_cli(["store", "prune", "--older-than", "1d", "--db", db, "--keep-report", missing]) == 2
    )
    assert "cannot read the report" in capsys.readouterr().err
    with Store.open(db) as store:
        assert len(store.list_traces()) == 6  # nothing was deleted


def test_delete_a_session_flags_the_dataset_file_and_logs_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _store(tmp_path)
    shop = tmp_path / "shop.yaml"
    dump_dataset(dataset("shop", [case("c1", ["recent", "old-1"]), case("c2", ["old-2"])]), shop)
    before = shop.read_text()
    args = ["store", "delete", "--session", "conv-1", "--db", db, "--dataset", str(shop)]
    assert run_cli([*args, "--dry-run"]) == 0
    assert "would delete 1 trace(s) of this session" in capsys.readouterr().out
    assert shop.read_text() == before
    assert run_cli(args) == 0
    out = capsys.readouterr().out
    assert "deleted 1 trace(s) of this session" in out
    assert f"flagged in {shop}: c1" in out
    [flagged, untouched] = load_dataset(shop).cases
    assert flagged.metadata[DELETED_SOURCES_KEY] == ["recent"]
    assert flagged.source_trace_ids == ["recent", "old-1"]
    assert DELETED_SOURCES_KEY not in untouched.metadata
    assert run_cli(["store", "deletions", "--db", db, "--json"]) == 0
    [logged] = orjson.loads(capsys.readouterr().out)
    assert (logged["action"], logged["selector"], logged["traces"]) == ("delete", "session", 1)
    assert "conv-1" not in orjson.dumps(logged).decode()
    assert run_cli(["store", "deletions", "--db", db]) == 0
    assert "delete session sha256:" in capsys.readouterr().out


def test_delete_names_exactly_one_selector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _store(tmp_path)
    assert run_cli(["store", "delete", "--db", db]) == 2
    assert "exactly one of --session" in capsys.readouterr().err
    assert run_cli(["store", "delete", "--db", db, "--user", "u", "--trace", "t"]) == 2
    assert run_cli(["store", "delete", "--db", db, "--trace", "t", "--user-attribute", "k"]) == 2
    assert "--user-attribute goes with --user" in capsys.readouterr().err
    assert run_cli(["store", "delete", "--db", db, "--user", "nobody"]) == 0
    assert "nothing deleted" in capsys.readouterr().out
    with Store.open(db) as store:
        assert len(store.list_traces()) == 6
