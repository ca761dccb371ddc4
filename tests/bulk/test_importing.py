"""``trailcheck import`` of trailcheck JSONL over worker processes writes what the import path
writes: the same lines, byte for byte, the same rejections and counts, across files."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.bulk.importing import imported_lines
from trailcheck.cli import run_cli
from trailcheck.importing.formats import UTF8_BOM
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace

pytestmark = pytest.mark.live


def _trace(index: int) -> Trace:
    builder = TraceBuilder(f"t{index}", input=f"Refund A-{index}")
    builder.tool("lookup_order", {"order_id": f"A-{index}"}, result={"total": 12.5 * index})
    # Large floats: msgspec and pydantic write their exponents differently.
    return builder.output({"said": f"Refunded A-{index}", "ratio": 1.5e20 * index}).build()


def _files(tmp_path: Path) -> list[Path]:
    first = [dump_trace(_trace(index)) for index in range(25)]
    first[3] = b'{"trace_id": "bad", "spans": [{"span_id": "s"}]}'  # its line and field named
    first[9] = b'{"trace_id": "twice", "metadata": {"a": 1, "a": 2}}'  # a key given twice
    first.insert(6, b"   ")  # blank lines count as lines, and are skipped
    second = [dump_trace(_trace(index)) for index in range(20, 30)]  # 20..24 repeat the first
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    paths[0].write_bytes(UTF8_BOM + b"".join(line + b"\n" for line in first))
    paths[1].write_bytes(b"".join(line + b"\n" for line in second))
    return paths


def _import_path(paths: list[Path]) -> tuple[list[bytes], ImportSummary]:
    summary = ImportSummary()
    lines = [dump_trace(trace) for trace in iter_import(paths, summary=summary)]
    return lines, summary


@pytest.mark.parametrize("workers", [1, 2])
def test_the_lines_rejections_and_counts_are_those_of_the_import_path(
    tmp_path: Path, workers: int
) -> None:
    paths = _files(tmp_path)
    expected, expected_summary = _import_path(paths)
    summary = ImportSummary()
    lines = list(imported_lines(paths, summary, workers=workers, chunk_bytes=600))
    assert lines == expected
    assert len(lines) == 23 + 5  # 25 less 2 bad in a.jsonl, then 25..29 from b.jsonl
    assert summary.rejections == expected_summary.rejections
    assert [(r.source, r.line, r.field) for r in summary.rejections[:2]] == [
        (str(paths[0]), 4, "spans[0].trace_id"),
        (str(paths[0]), 11, "metadata.a"),
    ]
    assert summary.formats == expected_summary.formats
    assert (summary.spans, summary.imported, summary.rejected) == (
        expected_summary.spans,
        expected_summary.imported,
        expected_summary.rejected,
    )
    assert summary.rejected == 2 + 5


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_command_writes_the_import_paths_file(tmp_path: Path, workers: str) -> None:
    paths = _files(tmp_path)
    out = tmp_path / "out.jsonl"
    args = ["import", *map(str, paths), "-o", str(out), "--workers", workers]
    assert run_cli(args) == 1  # records were rejected
    expected, _ = _import_path(paths)
    assert out.read_bytes() == b"".join(line + b"\n" for line in expected)
    strict = tmp_path / "strict.jsonl"
    assert run_cli([*args[:-4], "-o", str(strict), "--strict", "--workers", workers]) == 1
    assert not strict.exists()


def test_an_empty_file_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(UTF8_BOM + b"\n")
    good = tmp_path / "good.jsonl"
    good.write_bytes(dump_trace(_trace(1)) + b"\n")
    out = tmp_path / "out.jsonl"
    args = ["import", str(good), str(tmp_path / "empty.jsonl"), "-o", str(out)]
    assert run_cli([*args, "--format", "trailcheck"]) == 2
    assert not out.exists()
