"""``trailcheck score`` over several shard files and over the store: the grades, their order,
the rejections and the exit code are those of the same traces in one file."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.bulk.test_grading import DATASET, _trace
from trailcheck.cli import run_cli
from trailcheck.ingest.trailcheck_jsonl import dump_trace
from trailcheck.store import Store

pytestmark = pytest.mark.live


def _jsonl(path: Path, lines: list[bytes]) -> str:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return str(path)


@pytest.fixture
def dataset(tmp_path: Path) -> str:
    path = tmp_path / "shop.yaml"
    path.write_text(DATASET)
    return str(path)


def _scored(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, object, str]:
    code = run_cli(["score", *argv, "--json"])
    captured = capsys.readouterr()
    return code, orjson.loads(captured.out), captured.err


def test_shards_grade_as_one_file(
    tmp_path: Path, dataset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [dump_trace(_trace(index)) for index in range(24)]
    lines[19] = dump_trace(_trace(2))  # the id of a trace in the first shard: rejected
    whole = _jsonl(tmp_path / "all.jsonl", lines)
    shards = [_jsonl(tmp_path / f"part-{n}.jsonl", lines[n * 8 : n * 8 + 8]) for n in range(3)]
    code, grades, err = _scored([whole, "-d", dataset], capsys)
    assert code == 2  # the copy, and traces naming no case
    assert len(grades) == 19  # type: ignore[arg-type]
    for workers in ("1", "2"):
        sharded = _scored([*shards, "-d", dataset, "--workers", workers], capsys)
        assert sharded[:2] == (code, grades)
        # The copy is named in the shard that holds it, against the shard that came first.
        assert sharded[2] == err.replace(
            f"{whole}: field 'trace_id': trace id 't2' was already imported from {whole}",
            f"{shards[2]}: field 'trace_id': trace id 't2' was already imported from {shards[0]}",
        )


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_store_grades_as_the_file_it_was_imported_from(
    tmp_path: Path,
    dataset: str,
    store_url: str,
    workers: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    traces = [_trace(index) for index in range(30)]
    path = _jsonl(tmp_path / "traces.jsonl", [dump_trace(trace) for trace in traces])
    with Store.open(store_url) as store:
        store.ingest(traces)
    from_file = _scored([path, "-d", dataset], capsys)
    from_store = _scored(["-d", dataset, "--db", store_url, "--workers", workers], capsys)
    assert from_store == from_file
    code, grades, err = from_store
    assert code == 2  # traces naming no case are an input error, as from a file
    assert [grade["trace_id"] for grade in grades] == [  # type: ignore[attr-defined]
        trace.trace_id for trace in traces if trace.metadata["case_id"] != "nowhere"
    ]
    assert "no case in" in err
    assert "(case_id 'nowhere')" in err
    # Sessions take the in-process path, which reads the store too: each trace is its own
    # session here, so the grades are the same.
    assert _scored(["-d", dataset, "--db", store_url, "--by-session"], capsys) == from_file


def test_files_and_the_store_together_are_refused(
    tmp_path: Path, dataset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _jsonl(tmp_path / "traces.jsonl", [dump_trace(_trace(0))])
    db = f"sqlite:///{tmp_path / 'store.db'}"
    assert run_cli(["score", path, "-d", dataset, "--db", db]) == 2
    assert "score trace files or the store (--db), not both" in capsys.readouterr().err


def test_an_empty_store_has_nothing_to_grade(
    tmp_path: Path, dataset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'store.db'}"
    Store.open(db).close()
    assert run_cli(["score", "-d", dataset, "--db", db]) == 2
    assert "holds no traces: nothing to grade" in capsys.readouterr().err
    missing = f"sqlite:///{tmp_path / 'missing.db'}"
    assert run_cli(["score", "-d", dataset, "--db", missing]) == 2
    assert "missing.db" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()
    assert run_cli(["score", "-d", dataset, "--db", db, "--format", "openai"]) == 2
    assert "--format names the format of trace files" in capsys.readouterr().err


def test_the_stores_traces_are_chosen_as_traces_list_chooses_them(
    tmp_path: Path, dataset: str, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    traces = [_trace(index) for index in range(12)]
    conversation = {"session_id": "conv-A"}
    with Store.open(store_url) as store:
        store.ingest(
            trace.model_copy(update={"metadata": {**trace.metadata, **conversation}})
            if index % 3 == 0
            else trace
            for index, trace in enumerate(traces)
        )
    for workers in ("1", "2"):
        code, grades, _ = _scored(
            ["-d", dataset, "--db", store_url, "--session", "conv-A", "--workers", workers], capsys
        )
        assert [grade["trace_id"] for grade in grades] == ["t0", "t3", "t6", "t9"]  # type: ignore[attr-defined]
        assert code == 0  # each passes, and none of them names an unknown case
    assert run_cli(["score", "-d", dataset, "--db", store_url, "--since", "2999-01-01"]) == 2
    assert "holds no matching traces: nothing to grade" in capsys.readouterr().err
    path = _jsonl(tmp_path / "traces.jsonl", [dump_trace(traces[0])])
    assert run_cli(["score", path, "-d", dataset, "--label", "loop"]) == 2
    refused = "--since, --label, --tool and --session choose among the store's traces"
    assert refused in capsys.readouterr().err
