"""``trailcheck score`` over several shard files and over the store: the grades, their order,
the rejections and the exit code are those of the same traces in one file."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.builders import SHOP_DATASET, shop_lines, shop_trace, write_jsonl
from tests.store.builders import shifted
from trailcheck.cli import run_cli
from trailcheck.store import Store
from trailcheck.trace.jsonl import dump_trace

pytestmark = pytest.mark.live


@pytest.fixture
def dataset(tmp_path: Path) -> str:
    path = tmp_path / "shop.yaml"
    path.write_text(SHOP_DATASET)
    return str(path)


def _scored(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, object, str]:
    code = run_cli(["score", *argv, "--json"])
    captured = capsys.readouterr()
    return code, orjson.loads(captured.out), captured.err


def test_shards_grade_as_one_file(
    tmp_path: Path, dataset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = shop_lines(24)
    lines[19] = dump_trace(shop_trace(2))  # the id of a trace in the first shard: rejected
    whole = str(write_jsonl(tmp_path / "all.jsonl", lines))
    shards = [
        str(write_jsonl(tmp_path / f"part-{n}.jsonl", lines[n * 8 : n * 8 + 8])) for n in range(3)
    ]
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
    traces = [shop_trace(index) for index in range(30)]
    path = str(write_jsonl(tmp_path / "traces.jsonl", [dump_trace(trace) for trace in traces]))
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


def test_until_chooses_the_stores_traces_as_traces_list_does(
    dataset: str, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # t0 to t4 start a minute apart from 2023-11-14T22:13:20Z (t5 names no case: left out).
    with Store.open(store_url) as store:
        store.ingest(shifted(shop_trace(index), 60 * index) for index in range(5))
    window = ["--since", "2023-11-14T22:14:20Z", "--until", "2023-11-14T22:16:20Z"]
    for options, wanted in (
        (["--until", "2023-11-14T22:15:20"], ["t0", "t1"]),
        (window, ["t1", "t2"]),
    ):
        assert run_cli(["traces", "list", "--db", store_url, "--json", *options]) == 0
        listed = [row["trace_id"] for row in orjson.loads(capsys.readouterr().out)]
        for workers in ("1", "2"):
            code, grades, _ = _scored(
                ["-d", dataset, "--db", store_url, "--workers", workers, *options], capsys
            )
            assert [grade["trace_id"] for grade in grades] == listed == wanted  # type: ignore[attr-defined]
            assert code == 1  # t1 leaves out the lookup: it fails
    assert run_cli(["score", "-d", dataset, "--db", store_url, "--until", "2000-01-01"]) == 2
    assert "holds no matching traces: nothing to grade" in capsys.readouterr().err
    assert run_cli(["score", "-d", dataset, "--db", store_url, "--until", "later"]) == 2
    assert "--until 'later': not an ISO date" in capsys.readouterr().err


def test_files_and_the_store_together_are_refused(
    tmp_path: Path, dataset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(write_jsonl(tmp_path / "traces.jsonl", shop_lines(1)))
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
    traces = [shop_trace(index) for index in range(12)]
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
    path = str(write_jsonl(tmp_path / "traces.jsonl", [dump_trace(traces[0])]))
    assert run_cli(["score", path, "-d", dataset, "--label", "loop"]) == 2
    refused = "--since, --until, --label, --tool and --session choose among the store's traces"
    assert refused in capsys.readouterr().err
