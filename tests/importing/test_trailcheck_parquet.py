"""Parquet files of traces (one per row, its trailcheck JSON in the ``trace`` column) read as the
same lines in JSONL are read: the same traces, the same rejections with the row for the line,
on the import path and on the bulk path, in one process or several."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.builders import SHOP_DATASET, shop_lines, shop_trace, write_jsonl, write_parquet
from tests.importing.fuzz_mutations import fuzz_settings
from tests.importing.import_properties import run_command
from trailcheck.bulk.grading import Unmatched, grade_files
from trailcheck.cli import run_cli
from trailcheck.errors import InputError
from trailcheck.importing import trailcheck_parquet
from trailcheck.importing.formats import detect_format
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.trace.jsonl import dump_trace

pytestmark = pytest.mark.live

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

CI_DAMAGE_EXAMPLES = 60


def _lines() -> list[bytes | None]:
    lines: list[bytes | None] = [*shop_lines(20)]
    lines[3] = b'{"trace_id": "bad", "spans": [{"span_id": "s"}]}'  # a field missing
    lines[9] = dump_trace(shop_trace(1))  # a copy of row 2's trace
    lines[12] = b'{"trace_id": "twice", "metadata": {"a": 1, "a": 2}}'  # a key given twice
    return lines


def _imported(path: Path) -> tuple[list[object], ImportSummary]:
    summary = ImportSummary()
    return list(iter_import([path], summary=summary)), summary


@pytest.mark.parametrize("binary", [False, True])
def test_the_import_path_reads_rows_as_it_reads_lines(tmp_path: Path, binary: bool) -> None:
    lines = [line for line in _lines() if line is not None]
    parquet = write_parquet(tmp_path / "traces.parquet", lines, binary=binary)
    jsonl = write_jsonl(tmp_path / "traces.jsonl", lines)
    assert detect_format(parquet).name == "trailcheck-parquet"
    from_parquet, summary = _imported(parquet)
    from_jsonl, expected = _imported(jsonl)
    assert from_parquet == from_jsonl
    assert len(from_parquet) == 17
    assert [str(r) for r in summary.rejections] == [
        str(r).replace(str(jsonl), str(parquet)) for r in expected.rejections
    ]
    assert [r.line for r in summary.rejections] == [4, None, 13]  # rows, as lines; the copy
    assert summary.formats == {str(parquet): "trailcheck-parquet"}


@pytest.mark.parametrize("workers", [1, 2])
def test_the_bulk_path_grades_row_groups_as_it_grades_chunks_of_lines(
    tmp_path: Path, workers: int
) -> None:
    lines = _lines()
    lines[15] = None  # a null row: rejected, unlike a blank line
    parquet = write_parquet(tmp_path / "traces.parquet", lines)
    dataset = tmp_path / "shop.yaml"
    dataset.write_text(SHOP_DATASET)
    summary = ImportSummary()
    graded = [
        str(item) if isinstance(item, Unmatched) else item
        for item in grade_files([parquet], dataset, summary, workers=workers)
    ]
    imported, expected = _imported(parquet)
    assert len(graded) == len(imported) == 16
    assert [str(r) for r in summary.rejections] == [str(r) for r in expected.rejections]
    assert [(r.line, r.field) for r in summary.rejections] == [
        (4, "spans[0].trace_id"),
        (None, "trace_id"),  # row 10, a copy of row 2's trace
        (13, "metadata.a"),
        (16, "trace"),
    ]
    assert "null: each row holds one trace" in str(summary.rejections[3])
    assert summary.formats == {str(parquet): "trailcheck-parquet"}


def test_rows_are_numbered_across_the_batches_of_a_row_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trailcheck_parquet, "BATCH_ROWS", 4)  # a row group read in batches
    lines = _lines()
    lines[15] = None
    parquet = write_parquet(tmp_path / "traces.parquet", lines, group=20)
    dataset = tmp_path / "shop.yaml"
    dataset.write_text(SHOP_DATASET)
    for workers in (1, 2):
        summary = ImportSummary()
        assert len(list(grade_files([parquet], dataset, summary, workers=workers))) == 16
        assert [r.line for r in summary.rejections] == [4, None, 13, 16]
    imported, expected = _imported(parquet)
    assert len(imported) == 16
    assert [r.line for r in expected.rejections] == [4, None, 13, 16]


@pytest.mark.parametrize(("written", "named"), [("parquet", "trailcheck"), ("jsonl", "parquet")])
def test_a_named_format_the_content_contradicts_is_read_as_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], written: str, named: str
) -> None:
    lines = shop_lines(1)
    path = tmp_path / f"traces.{written}"
    if written == "parquet":
        write_parquet(path, lines)
    else:
        write_jsonl(path, lines)
    dataset = tmp_path / "shop.yaml"
    dataset.write_text(SHOP_DATASET)
    name = "trailcheck-parquet" if named == "parquet" else "trailcheck"
    assert run_cli(["score", str(path), "-d", str(dataset), "--format", name]) == 2
    err = capsys.readouterr().err
    assert str(path) in err
    if named == "parquet":
        assert "not a readable Parquet file" in err
    else:
        assert "rejected: " in err


def test_score_and_import_read_parquet_and_jsonl_shards_as_one_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = shop_lines(18)
    dataset = tmp_path / "shop.yaml"
    dataset.write_text(SHOP_DATASET)
    whole = write_jsonl(tmp_path / "all.jsonl", lines)
    first = write_parquet(tmp_path / "part-0.parquet", lines[:9], group=4)
    second = write_jsonl(tmp_path / "part-1.jsonl", lines[9:])
    printed = []
    for sources in ([whole], [first, second]):
        assert run_cli(["score", *map(str, sources), "-d", str(dataset), "--json"]) == 2
        printed.append(orjson.loads(capsys.readouterr().out))
    assert printed[0] == printed[1]
    assert len(printed[0]) == 15  # three traces name no case
    out = tmp_path / "out.jsonl"
    assert run_cli(["import", str(first), str(second), "-o", str(out)]) == 0
    assert out.read_bytes() == whole.read_bytes()


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"record": ["{}"]}, "no column 'trace' (it has record)"),
        ({"trace": [1, 2]}, "column 'trace' is int64; it holds each trace's JSON"),
        ({"trace": pa.array([], pa.string())}, "the Parquet file holds no rows"),
    ],
)
def test_a_parquet_file_that_holds_no_traces_is_refused_naming_the_file(
    tmp_path: Path, table: dict[str, Any], message: str
) -> None:
    path = tmp_path / "odd.parquet"
    pq.write_table(pa.table(table), path)
    summary = ImportSummary()
    with pytest.raises(InputError, match=re.escape(message)) as raised:
        list(grade_files([path], tmp_path / "unused.yaml", summary, workers=1))
    assert str(path) in str(raised.value)
    with pytest.raises(InputError, match=re.escape(message)):
        _imported(path)


@pytest.mark.parametrize("workers", [1, 2])
def test_bad_utf8_and_blank_rows_are_rejected_naming_their_rows(
    tmp_path: Path, workers: int
) -> None:
    good = dump_trace(shop_trace(0))
    values = [good, b'{"trace_id": "t\xff"}', b"", b"  ", dump_trace(shop_trace(1))]
    table = pa.table({"trace": pa.array(values, pa.binary()).view(pa.string())})
    path = tmp_path / "odd.parquet"
    pq.write_table(table, path)  # no checksums: the reader cannot tell damage from content
    imported, summary = _imported(path)
    assert [trace.trace_id for trace in imported] == ["t0", "t1"]  # type: ignore[union-attr]
    bulk = ImportSummary()
    dataset = tmp_path / "shop.yaml"
    dataset.write_text(SHOP_DATASET)
    assert len(list(grade_files([path], dataset, bulk, workers=workers))) == 2
    for rejections in (summary.rejections, bulk.rejections):
        assert [(r.line, r.field) for r in rejections] == [
            (2, "<record>"),
            (3, "trace"),
            (4, "trace"),
        ]
        assert "empty: each row holds one trace" in str(rejections[1])


def test_a_truncated_parquet_file_is_an_input_error(tmp_path: Path) -> None:
    path = write_parquet(tmp_path / "cut.parquet", shop_lines(1))
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(InputError, match="not a readable Parquet file"):
        _imported(path)


def _checksummed(path: Path, lines: list[bytes]) -> bytes:
    table = pa.table({"trace": pa.array([line.decode() for line in lines])})
    pq.write_table(table, path, row_group_size=2, write_page_checksum=True)
    return path.read_bytes()


@fuzz_settings(CI_DAMAGE_EXAMPLES)
@given(data=st.data())
def test_a_damaged_parquet_file_is_refused_by_name_or_read_whole(data: st.DataObject) -> None:
    """A flipped byte or a cut anywhere in the file: ``trailcheck import`` exits 0 with exactly
    the traces written, or says which file (and row, for a bad record) it refused; never a
    traceback. Pages carry checksums, which the reader checks, so a damaged value cannot pass."""
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        lines = shop_lines(5)
        original = _checksummed(folder / "made.parquet", lines)
        if data.draw(st.booleans(), label="truncate"):
            damaged = original[: data.draw(st.integers(0, len(original) - 1), label="cut at")]
        else:
            at = data.draw(st.integers(0, len(original) - 1), label="flip at")
            bit = data.draw(st.integers(0, 7), label="bit")
            damaged = original[:at] + bytes([original[at] ^ (1 << bit)]) + original[at + 1 :]
        path = folder / "traces.parquet"
        path.write_bytes(damaged)
        out = folder / "out.jsonl"
        run = run_command(["import", str(path), "-o", str(out), "--format", "trailcheck-parquet"])
        assert run.crash is None, run.crash
        assert "Traceback" not in run.err
        if run.code == 0:
            assert out.read_bytes() == b"".join(line + b"\n" for line in lines)
        else:
            assert run.code in (1, 2), run.err
            assert str(path) in run.err, run.err
