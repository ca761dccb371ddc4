"""An import of several files: span-based files are assembled together, so a trace may span them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from trailcheck.importing import span_store
from trailcheck.importing.formats import FORMATS
from trailcheck.importing.importer import ImportSummary, import_traces
from trailcheck.trace import Trace


@pytest.fixture(autouse=True, params=["in memory", "on disk"])
def where_spans_wait(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test twice: the spans waiting in memory (a small input), and on disk (a large
    one's way, :mod:`trailcheck.importing.span_spill`)."""
    if request.param == "on disk":
        monkeypatch.setattr(span_store, "SPILL_OVER_BYTES", -1)


def span_line(span_id: str, parent: str | None = None, trace_id: str = "t9", **extra: Any) -> bytes:
    record = {"trace_id": trace_id, "span_id": span_id, "parent_span_id": parent, "name": span_id}
    return orjson.dumps({**record, "start_ns": 100, "end_ns": 200, **extra})


def write(path: Path, *lines: bytes) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def run(*paths: Path, format_name: str | None = None) -> tuple[list[Trace], ImportSummary]:
    imported: list[Trace] = []
    summary = import_traces(list(paths), imported.append, format_name=format_name)
    return imported, summary


def messages(summary: ImportSummary) -> list[str]:
    return [str(rejection) for rejection in summary.rejections]


def test_a_trace_split_across_files_is_assembled_from_all_of_them(tmp_path: Path) -> None:
    part1 = write(tmp_path / "part1.jsonl", span_line("root"), span_line("other", trace_id="t1"))
    part2 = write(tmp_path / "part2.jsonl", span_line("child", "root"))
    imported, summary = run(part1, part2)
    assert messages(summary) == []
    assert [(t.trace_id, sorted(s.span_id for s in t.spans)) for t in imported] == [
        ("t9", ["child", "root"]),
        ("t1", ["other"]),
    ]
    assert summary.formats == {str(part1): "spans", str(part2): "spans"}


def test_rotated_collector_files_import_as_the_one_file_would(
    tmp_path: Path, fixtures: Path
) -> None:
    whole = fixtures / "otlp" / "collector_file_export.jsonl"
    paths = [
        write(tmp_path / f"traces-{number}.jsonl", line)
        for number, line in enumerate(whole.read_bytes().splitlines(), start=1)
    ]
    # Line 3 holds the last span of line 1's trace: only pooling imports that trace.
    split_up, summary = run(*paths)
    assert messages(summary) == []
    together, _ = run(whole)
    assert split_up == together
    assert sorted(len(trace.spans) for trace in split_up) == [2, 3]


def test_a_rejection_names_the_file_of_the_span_at_fault(tmp_path: Path) -> None:
    part1 = write(tmp_path / "part1.jsonl", span_line("root"))
    part2 = write(tmp_path / "part2.jsonl", span_line("blank"), span_line("lost", "nowhere"))
    imported, summary = run(part1, part2)
    assert imported == []
    (rejection,) = summary.rejections
    assert (rejection.source, rejection.line, rejection.span_id, rejection.field) == (
        str(part2),
        2,
        "lost",
        "parent_span_id",
    )


def test_a_bad_span_in_one_file_withholds_the_trace_s_spans_in_another(tmp_path: Path) -> None:
    part1 = write(tmp_path / "part1.jsonl", span_line("root"))
    part2 = write(tmp_path / "part2.jsonl", span_line("child", "root", start_ns="soon"))
    imported, summary = run(part1, part2)
    assert imported == []
    bad, withheld = summary.rejections
    assert (bad.source, bad.line, bad.field) == (str(part2), 1, "start_ns")
    assert (withheld.source, withheld.line) == (str(part1), 1)
    assert f"its span on line 1 of {part2} is malformed" in withheld.message


def test_an_unreadable_line_in_one_file_withholds_the_traces_of_every_file(
    tmp_path: Path,
) -> None:
    # The lost line may have held a span of t9 (a trace may span files): t9 is withheld too.
    part1 = write(tmp_path / "part1.jsonl", span_line("root"))
    part2 = write(tmp_path / "part2.jsonl", span_line("x", trace_id="t2"), b'{"trace_id": "t')
    imported, summary = run(part1, part2)
    assert imported == []
    unreadable, withheld = summary.rejections
    assert (unreadable.source, unreadable.line) == (str(part2), 2)
    assert str(withheld).startswith(
        f"{part2}:2: 2 traces withheld because line 2 could not be read (rejected above)"
    )
    assert "of 't9', 't2' are withheld" in withheld.message


def test_a_file_imported_twice_is_a_copy_not_more_of_the_trace(tmp_path: Path) -> None:
    first = write(tmp_path / "first.jsonl", span_line("root"), span_line("child", "root"))
    second = write(tmp_path / "second.jsonl", first.read_bytes())
    imported, summary = run(first, second)
    assert [len(trace.spans) for trace in imported] == [2]
    assert messages(summary) == [
        f"{second}: field 'trace_id': trace id 't9' was already imported from {first}"
    ]


def test_a_copy_of_a_rejected_trace_is_not_imported_either(tmp_path: Path) -> None:
    first = write(tmp_path / "first.jsonl", span_line("root"), span_line("child", "nowhere"))
    second = write(tmp_path / "second.jsonl", first.read_bytes())
    imported, summary = run(first, second)
    assert imported == []
    orphan, copy = summary.rejections
    assert (orphan.source, orphan.span_id) == (str(first), "child")
    assert (copy.source, copy.trace_id) == (str(second), "t9")
    assert copy.message == (
        f"trace 't9' not imported: its spans here repeat those in {first}, where it was"
        " rejected (see above)"
    )


def test_files_that_share_some_spans_of_a_trace_but_not_all_refuse_it(tmp_path: Path) -> None:
    first = write(tmp_path / "first.jsonl", span_line("root"), span_line("a", "root"))
    second = write(tmp_path / "second.jsonl", span_line("a", "root"), span_line("b", "root"))
    other = write(tmp_path / "other.jsonl", span_line("r", trace_id="t1"))
    imported, summary = run(first, second, other)
    assert [trace.trace_id for trace in imported] == ["t1"]
    (refusal,) = summary.rejections
    assert (refusal.source, refusal.trace_id, refusal.field) == (str(second), "t9", "span_id")
    assert refusal.message == (
        f"trace 't9' not imported: this file holds 1 of its spans that {first} hold(s) too"
        " ('a') and 1 that they do not, so it is neither more of the trace nor a copy of it"
    )


def test_span_files_are_pooled_across_formats_after_per_record_files(
    tmp_path: Path, fixtures: Path
) -> None:
    otlp = fixtures / "otlp" / "genai_agent_run.json"
    spans = write(tmp_path / "spans.jsonl", span_line("root"))
    own = write(tmp_path / "own.jsonl", orjson.dumps({"trace_id": "t9", "input": "hi"}))
    imported, summary = run(otlp, spans, own)
    # own.jsonl is per-record, so it is read as it comes; the pooled traces follow it.
    assert [trace.trace_id for trace in imported] == ["t9", "0af7651916cd43dd8448eb211c80319c"]
    assert messages(summary) == [
        f"{spans}: field 'trace_id': trace id 't9' was already imported from {own}"
    ]
    assert summary.formats == {str(otlp): "otlp-json", str(spans): "spans", str(own): "trailcheck"}


def test_only_span_based_formats_read_spans() -> None:
    assert {fmt.name: fmt.read_spans is not None for fmt in FORMATS} == {
        "trailcheck-parquet": False,
        "trailcheck": False,
        "spans": True,
        "otlp-json": True,
        "who-and-when": False,
        "tau-bench": False,
        "openai": False,
        "otlp-proto": True,
    }


def counts(summary: ImportSummary) -> tuple[int, int, int, int]:
    return summary.spans, summary.imported, summary.rejected, summary.untraced


def test_the_summary_counts_spans_read_and_traces(tmp_path: Path) -> None:
    part1 = write(tmp_path / "part1.jsonl", span_line("root"), span_line("other", trace_id="t1"))
    part2 = write(tmp_path / "part2.jsonl", span_line("child", "root"))
    assert counts(run(part1, part2)[1]) == (3, 2, 0, 0)
    # An orphan rejects its trace: the other trace is imported.
    orphan = write(tmp_path / "orphan.jsonl", span_line("lost", "nowhere", trace_id="t2"))
    assert counts(run(part1, part2, orphan)[1]) == (4, 2, 1, 0)


def test_a_copy_of_a_trace_counts_as_one_more_trace_rejected(tmp_path: Path) -> None:
    first = write(tmp_path / "first.jsonl", span_line("root"), span_line("child", "root"))
    second = write(tmp_path / "second.jsonl", first.read_bytes())
    assert counts(run(first, second)[1]) == (4, 1, 1, 0)
    bad = write(tmp_path / "bad.jsonl", span_line("root"), span_line("child", "nowhere"))
    again = write(tmp_path / "again.jsonl", bad.read_bytes())
    assert counts(run(bad, again)[1]) == (4, 0, 2, 0)


def test_a_rejected_part_that_names_no_trace_is_counted_apart(tmp_path: Path) -> None:
    # The unreadable line withholds both traces (rejected); what it held is unknown (untraced).
    part = write(tmp_path / "p.jsonl", span_line("root"), span_line("x", trace_id="t2"), b"{")
    imported, summary = run(part)
    assert imported == []
    assert counts(summary) == (2, 0, 2, 1)
    assert len(summary.rejections) == 2


def test_a_per_record_file_counts_each_rejected_record_as_a_trace(tmp_path: Path) -> None:
    own = write(
        tmp_path / "own.jsonl",
        orjson.dumps({"trace_id": "t9", "input": "hi"}),
        b"not json",
        orjson.dumps({"trace_id": "t9", "input": "again"}),
    )
    assert counts(run(own)[1]) == (0, 1, 2, 0)
