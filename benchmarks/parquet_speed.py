"""``trailcheck score``'s bulk path over the same traces as trailcheck JSONL and as Parquet (a
row per trace, its JSON in the ``trace`` column, zstd-compressed as warehouses write it).

Generates N seeded traces (``scale_speed.py``'s corpus and dataset), writes them as JSONL and as
Parquet (row groups of 2,000: a row group is a bulk chunk), and times
:func:`trailcheck.bulk.grading.grade_files` over each with ``workers`` processes, median of
``--rounds``. Prints each file's size and the ratio to
JSONL at the same number of workers; the grades of both are checked equal::

    uv run python benchmarks/parquet_speed.py --traces 20000 --workers 1 2 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from scale_speed import loadavg, write_corpus
from trailcheck.bulk.grading import Unmatched, grade_files
from trailcheck.importing.importer import ImportSummary
from trailcheck.scorers import Grade

ROW_GROUP = 2_000  # a bulk chunk is a row group: about 13 MB of JSON here


def as_parquet(jsonl: Path) -> Path:
    lines = [line.decode() for line in jsonl.read_bytes().splitlines()]
    path = jsonl.with_suffix(".parquet")
    table = pa.table({"trace": pa.array(lines, pa.string())})
    pq.write_table(table, path, row_group_size=ROW_GROUP, compression="zstd")
    return path


def graded(path: Path, dataset: Path, workers: int) -> tuple[float, list[object]]:
    began = time.perf_counter()
    summary = ImportSummary()
    results: list[object] = [
        str(item) if isinstance(item, Unmatched) else (item.trace_id, item.passed, item.reason)
        for item in grade_files([path], dataset, summary, workers=workers)
    ]
    assert summary.ok, summary.rejections[:3]
    assert all(isinstance(item, Grade | str | tuple) for item in results)
    return time.perf_counter() - began, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=int, default=20_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {loadavg()}")
    with tempfile.TemporaryDirectory() as directory:
        jsonl, dataset = write_corpus(Path(directory), args.traces)
        parquet = as_parquet(jsonl)
        print(
            f"{args.traces} traces: JSONL {jsonl.stat().st_size / 1e6:.0f} MB, Parquet (zstd)"
            f" {parquet.stat().st_size / 1e6:.0f} MB; median of {args.rounds} round(s)"
        )
        print("format   workers  seconds  traces/s  vs JSONL")
        for workers in args.workers:
            seconds: dict[str, float] = {}
            outputs = []
            for name, path in (("jsonl", jsonl), ("parquet", parquet)):
                runs = [graded(path, dataset, workers) for _ in range(args.rounds)]
                seconds[name] = statistics.median(run[0] for run in runs)
                outputs.append(runs[0][1])
                ratio = seconds[name] / seconds["jsonl"]
                rate = args.traces / seconds[name]
                print(f"{name:8} {workers:7d} {seconds[name]:8.2f} {rate:9.0f} {ratio:8.2f}x")
            assert outputs[0] == outputs[1], "Parquet graded differently from JSONL"
    print(f"load average after: {loadavg()}")


if __name__ == "__main__":
    main()
