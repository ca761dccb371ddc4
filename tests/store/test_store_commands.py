"""The store's commands, through the trailcheck CLI: ingest, traces list/sessions/show, note(s),
label."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.store.builders import lookup_trace, refund_trace, turn
from trailcheck.cli import run_cli
from trailcheck.store import Store
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace


def _jsonl(path: Path, traces: list[Trace], extra: bytes = b"") -> Path:
    path.write_bytes(b"".join(dump_trace(trace) + b"\n" for trace in traces) + extra)
    return path


def test_ingest_counts_imported_unchanged_conflicts_and_rejected(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _jsonl(tmp_path / "a.jsonl", [refund_trace("t1"), lookup_trace("t2")])
    assert run_cli(["ingest", str(first), "--db", store_url]) == 0
    assert (
        "read 6 spans in 1 file (trailcheck) → 2 traces imported, 0 unchanged, 0 conflicts,"
        " 0 rejected"
    ) in capsys.readouterr().err
    second = _jsonl(
        tmp_path / "b.jsonl",
        [refund_trace("t1"), lookup_trace("t3"), refund_trace("t2", answer="x")],
        extra=b'{"trace_id": "bad", "spans": 3}\n',
    )
    assert run_cli(["ingest", str(second), "--db", store_url]) == 1
    err = capsys.readouterr().err
    assert "→ 1 trace imported, 1 unchanged, 1 conflicts, 1 rejected" in err
    assert "conflict: trace 't2': refused" in err
    assert "b.jsonl:4" in err  # the rejected record, by file and line
    with Store.open(store_url) as store:
        assert [row.trace_id for row in store.list_traces()] == ["t1", "t2", "t3"]
        assert store.get_trace("t2") == lookup_trace("t2")


def test_traces_list_filters_and_prints_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    source = _jsonl(tmp_path / "a.jsonl", [refund_trace("t1"), lookup_trace("t2")])
    assert run_cli(["ingest", str(source), "--db", db]) == 0
    assert run_cli(["label", "t2", "tool_call_loop", "--who", "ana", "--db", db]) == 0
    capsys.readouterr()
    assert run_cli(["traces", "list", "--db", db, "--json", "--tool", "issue_refund"]) == 0
    [row] = orjson.loads(capsys.readouterr().out)
    assert (row["trace_id"], row["tools"]) == ("t1", ["lookup_order", "issue_refund"])
    assert run_cli(["traces", "list", "--db", db, "--json", "--label", "tool_call_loop"]) == 0
    [row] = orjson.loads(capsys.readouterr().out)
    assert (row["trace_id"], row["labels"]) == ("t2", ["tool_call_loop"])
    assert run_cli(["traces", "list", "--db", db, "--json", "--since", "2099-01-01"]) == 0
    assert orjson.loads(capsys.readouterr().out) == []
    assert run_cli(["traces", "list", "--db", db]) == 0
    out = capsys.readouterr()
    assert "t1" in out.out
    assert "2 trace(s)" in out.err


def test_traces_list_until_is_exclusive_and_meets_since(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    traffic = [turn("a", 0), turn("b", 60), turn("c", 120)]  # from 2023-11-14T22:13:20Z
    assert run_cli(["ingest", str(_jsonl(tmp_path / "a.jsonl", traffic)), "--db", db]) == 0
    capsys.readouterr()

    def listed(*options: str) -> list[str]:
        assert run_cli(["traces", "list", "--db", db, "--json", *options]) == 0
        return [row["trace_id"] for row in orjson.loads(capsys.readouterr().out)]

    assert listed("--until", "2023-11-14T22:14:20Z") == ["a"]  # b starts then: left out
    assert listed("--until", "2023-11-14T22:14:21") == ["a", "b"]  # no zone: UTC
    assert listed("--since", "2023-11-14T22:14:20Z", "--until", "2023-11-14T22:15:20Z") == ["b"]
    assert listed("--since", "2023-11-14T22:15:20Z", "--until", "2023-11-14T22:14:20Z") == []


def test_traces_sessions_and_the_session_filter(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    traffic = [
        turn("a2", 20, conversation_id="conv-A"),
        turn("b1", 5, session_id="sess-B"),
        turn("a1", 10, conversation_id="conv-A"),
        turn("lone", 0),
    ]
    assert run_cli(["ingest", str(_jsonl(tmp_path / "a.jsonl", traffic)), "--db", store_url]) == 0
    capsys.readouterr()
    assert run_cli(["traces", "sessions", "--db", store_url, "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out) == [
        {
            "session_id": "sess-B",
            "traces": 1,
            "first_started": "2023-11-14T22:13:25Z",
            "last_started": "2023-11-14T22:13:25Z",
        },
        {
            "session_id": "conv-A",
            "traces": 2,
            "first_started": "2023-11-14T22:13:30Z",
            "last_started": "2023-11-14T22:13:40Z",
        },
    ]
    assert run_cli(["traces", "sessions", "--db", store_url, "--limit", "1"]) == 0
    out = capsys.readouterr()
    assert "sess-B" in out.out
    assert "conv-A" not in out.out
    assert "1 session(s)" in out.err
    assert run_cli(["traces", "list", "--db", store_url, "--json", "--session", "conv-A"]) == 0
    rows = orjson.loads(capsys.readouterr().out)
    assert [(row["trace_id"], row["session_id"]) for row in rows] == [
        ("a2", "conv-A"),
        ("a1", "conv-A"),
    ]
    assert run_cli(["traces", "list", "--db", store_url, "--session", "nope"]) == 0
    assert "0 trace(s)" in capsys.readouterr().err


def test_traces_show_a_stored_trace_with_its_findings_and_notes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    assert (
        run_cli(["ingest", str(_jsonl(tmp_path / "a.jsonl", [refund_trace("t1")])), "--db", db])
        == 0
    )
    assert run_cli(["note", "t1", "refunded without asking who", "--author", "bo", "--db", db]) == 0
    assert run_cli(["label", "t1", "refund_without_identity_check", "--db", db, "--who", "bo"]) == 0
    capsys.readouterr()
    assert run_cli(["traces", "show", "t1", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "issue_refund" in out
    assert "finding refund_without_identity_check (medium, human:bo)" in out
    assert "note by bo" in out
    assert "refunded without asking who" in out


def test_traces_show_takes_a_unique_prefix_of_a_stored_trace_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    stored = [refund_trace("run-a1"), lookup_trace("run-a2"), lookup_trace("other%x")]
    assert run_cli(["ingest", str(_jsonl(tmp_path / "a.jsonl", stored)), "--db", db]) == 0
    assert run_cli(["label", "run-a1", "refund_without_identity_check", "--db", db]) == 0
    capsys.readouterr()
    assert run_cli(["traces", "show", "run-a1", "--db", db]) == 0  # a whole id is itself
    assert "issue_refund" in capsys.readouterr().out
    assert run_cli(["traces", "show", "oth", "--db", db]) == 0
    assert "It has shipped." in capsys.readouterr().out
    assert run_cli(["traces", "show", "run-a", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "several stored traces start so (run-a1, run-a2); give more of the id" in err
    # A prefix is text: % and _ are not wildcards.
    assert run_cli(["traces", "show", "%", "--db", db]) == 2
    assert run_cli(["traces", "show", "other_", "--db", db]) == 2
    assert "no trace with this id (or starting so)" in capsys.readouterr().err
    with Store.open(db) as store:
        assert store.trace_ids_starting_with("run-a", limit=1) == ["run-a1"]


def test_notes_lists_the_notes_of_one_trace_or_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    source = _jsonl(tmp_path / "a.jsonl", [refund_trace("t1"), lookup_trace("t2")])
    assert run_cli(["ingest", str(source), "--db", db]) == 0
    assert run_cli(["note", "t1", "first", "--author", "ana", "--db", db]) == 0
    assert run_cli(["note", "t2", "second", "--author", "bo", "--db", db]) == 0
    capsys.readouterr()
    assert run_cli(["notes", "--db", db, "--json"]) == 0
    assert [n["text"] for n in orjson.loads(capsys.readouterr().out)] == ["first", "second"]
    assert run_cli(["notes", "--trace", "t2", "--db", db, "--json"]) == 0
    [note] = orjson.loads(capsys.readouterr().out)
    assert (note["trace_id"], note["author"], note["text"]) == ("t2", "bo", "second")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["traces", "show", "ghost"],
            "ghost: no such file, and no trace with this id (or starting so) in the",
        ),
        (["note", "ghost", "text"], "no trace 'ghost' in the store"),
        (["notes", "--trace", "ghost"], "no trace 'ghost' in the store"),
        (["label", "ghost", "tool_call_loop"], "no trace 'ghost' in the store"),
        (["label", "t1", "Bad Label"], "label 'Bad Label'"),
        (
            ["label", "t1", "tool_call_loop", "--severity", "huge"],
            "'--severity': Value error, 'huge' is not one of 'low', 'medium', 'high', 'critical'",
        ),
        (["traces", "list", "--since", "yesterday"], "--since 'yesterday': not an ISO date"),
        (["traces", "list", "--until", "soon"], "--until 'soon': not an ISO date"),
    ],
)
def test_errors_are_one_line_with_exit_2(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    assert (
        run_cli(["ingest", str(_jsonl(tmp_path / "a.jsonl", [refund_trace("t1")])), "--db", db])
        == 0
    )
    capsys.readouterr()
    assert run_cli([*args, "--db", db]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1
    with Store.open(db) as store:
        assert store.findings() == []
        assert store.notes() == []


def test_reading_commands_do_not_create_a_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRAILCHECK_DB", raising=False)
    assert run_cli(["traces", "list"]) == 2
    assert "no store at" in capsys.readouterr().err
    assert run_cli(["traces", "sessions"]) == 2
    assert "no store at" in capsys.readouterr().err
    assert run_cli(["traces", "show", "missing.jsonl"]) == 2
    assert "missing.jsonl: no such file, and no store at" in capsys.readouterr().err
    assert run_cli(["ingest", "missing.jsonl"]) == 2
    assert "missing.jsonl: no such file" in capsys.readouterr().err
    assert not (tmp_path / ".trailcheck").exists()


def test_the_store_comes_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAILCHECK_DB", f"sqlite:///{tmp_path / 'env.db'}")
    assert run_cli(["ingest", str(_jsonl(tmp_path / "a.jsonl", [lookup_trace("e1")]))]) == 0
    assert (tmp_path / "env.db").is_file()
    capsys.readouterr()
    assert run_cli(["traces", "list", "--json"]) == 0
    assert [row["trace_id"] for row in orjson.loads(capsys.readouterr().out)] == ["e1"]
