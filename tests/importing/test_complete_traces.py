"""Truncated collector files: which traces a cut line withholds, and ``keep_incomplete``, which
imports, marked, those it only *may* have taken a span from. Cut copies of real files."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson

from trailcheck.importing import import_traces
from trailcheck.importing.importer import ImportSummary
from trailcheck.importing.transport.otlp_ids import IdEncoding
from trailcheck.trace import Trace
from trailcheck.trace.incomplete import INCOMPLETE_KEY, incompleteness

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
COLLECTOR = FIXTURES / "otlp" / "collector_file_export.jsonl"
# collector_file_export.jsonl: line 1 holds two spans of TRACE_1, line 2 both spans of TRACE_2,
# line 3 the third span of TRACE_1 (its traceId starts at character 159 of the line).
TRACE_1 = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACE_2 = "00f067aa0ba902b700f067aa0ba902b7"
REAL = FIXTURES / "real"


def cut_collector(tmp_path: Path, at: int) -> Path:
    """The collector file with its last line cut after ``at`` bytes, as a killed collector
    leaves it: no line end after the cut."""
    first, second, third = COLLECTOR.read_bytes().splitlines()
    path = tmp_path / "collector.jsonl"
    path.write_bytes(first + b"\n" + second + b"\n" + third[:at])
    return path


def run(path: Path, *, keep: bool, ids: IdEncoding = "hex") -> tuple[list[Trace], ImportSummary]:
    found: list[Trace] = []
    summary = import_traces([path], found.append, keep_incomplete=keep, ids=ids)
    return found, summary


def trace_ids(export: bytes) -> list[str]:
    """The trace ids of a protobuf-JSON export (base64 ids), in the order they first appear."""
    spans = [
        span
        for resource in orjson.loads(export)["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]
    return list(dict.fromkeys(base64.b64decode(span["traceId"]).hex() for span in spans))


def messages(summary: ImportSummary) -> list[str]:
    return [str(rejection) for rejection in summary.rejections]


def test_a_line_cut_before_any_trace_id_withholds_every_trace(tmp_path: Path) -> None:
    path = cut_collector(tmp_path, 120)
    found, summary = run(path, keep=False)
    assert found == []
    assert (summary.imported, summary.rejected, summary.untraced, summary.incomplete) == (
        0,
        2,
        1,
        0,
    )
    unreadable, withheld = messages(summary)
    assert unreadable.startswith(f"{path}:3: not valid JSON: unexpected end of data")
    assert withheld.startswith(f"{path}:3: 2 traces withheld because line 3 could not be read")
    assert withheld.endswith("(--keep-incomplete imports them, marked incomplete)")


def test_keep_incomplete_imports_them_marked_and_the_mark_is_right(tmp_path: Path) -> None:
    path = cut_collector(tmp_path, 120)
    found, summary = run(path, keep=True)
    assert [trace.trace_id for trace in found] == [TRACE_1, TRACE_2]
    assert (summary.imported, summary.rejected, summary.untraced, summary.incomplete) == (
        2,
        0,
        1,
        2,
    )
    # The cut line did hold a span of TRACE_1, its third: the mark is no formality.
    assert sorted(span.span_id for span in found[0].spans) == [
        "a000000000000001",
        "a000000000000002",
    ]
    (unreadable,) = messages(summary)  # the line itself is still rejected: exit 1
    assert unreadable.startswith(f"{path}:3: not valid JSON")
    for trace in found:
        mark = trace.metadata[INCOMPLETE_KEY]
        assert mark["unreadable"] == [{"source": str(path), "line": 3}]
        assert mark["reason"].startswith(
            f"line 3 of {path} could not be read (not valid JSON: unexpected end of data"
        )
        assert mark["reason"].endswith("; a span on it may have belonged to this trace")
        found_reason = incompleteness(trace)
        assert found_reason is not None
        assert found_reason.verdict_reason == (
            f"incomplete trace: {mark['reason']} (imported with --keep-incomplete)"
        )


def test_a_trace_id_shown_by_the_cut_line_is_withheld_even_with_the_flag(tmp_path: Path) -> None:
    path = cut_collector(tmp_path, 300)  # past its span's traceId
    found, summary = run(path, keep=False)
    assert found == []
    unreadable, shown, withheld_own, withheld_other = summary.rejections
    assert (unreadable.line, unreadable.trace_id) == (3, None)
    assert (shown.line, shown.trace_id, shown.field) == (
        3,
        TRACE_1,
        "resourceSpans[0].scopeSpans[0].spans[0].traceId",
    )
    assert shown.message == (
        f"trace {TRACE_1!r} lost a span here: the span's trace id is readable, the rest of it is"
        " not (see above)"
    )
    assert withheld_own.trace_id == TRACE_1
    # OTLP records no span count: the cut-off rest of the line may hold spans of any trace.
    assert withheld_other.message.startswith("1 trace withheld because line 3 could not be read")
    assert repr(TRACE_2) in withheld_other.message

    found, summary = run(path, keep=True)
    assert [trace.trace_id for trace in found] == [TRACE_2]
    assert INCOMPLETE_KEY in found[0].metadata
    assert [r.trace_id for r in summary.rejections] == [None, TRACE_1, TRACE_1]
    assert (summary.imported, summary.rejected, summary.incomplete) == (1, 1, 1)


def test_a_cut_real_export_keeps_only_the_traces_it_does_not_show(tmp_path: Path) -> None:
    # Two real exports as collector lines (four traces each); the second cut mid-span, where five
    # spans of its first trace are shown whole and every span of the others is cut off.
    pydantic = orjson.dumps(orjson.loads((REAL / "pydantic-ai-2.68.0.traces.json").read_bytes()))
    agents = (REAL / "openai-agents-0.24.0-openinference-2.6.0.traces.json").read_bytes()
    cut = orjson.dumps(orjson.loads(agents))[:20000]
    path = tmp_path / "collector.jsonl"
    path.write_bytes(pydantic + b"\n" + cut)
    shown, cut_off = "4475acb08f93bf9c55ce0f32009d825f", "1dedb5e43b9099a5a48cd86b376bc9dd"
    pydantic_traces = trace_ids(pydantic)
    assert len(pydantic_traces) == 4

    found, summary = run(path, keep=False, ids="base64")
    assert found == []
    assert (summary.spans, summary.rejected, summary.untraced) == (21, 5, 1)

    found, summary = run(path, keep=True, ids="base64")
    assert [trace.trace_id for trace in found] == pydantic_traces
    assert all(INCOMPLETE_KEY in trace.metadata for trace in found)
    assert [r.trace_id for r in summary.rejections] == [None, shown]  # one Rejection per trace
    assert summary.rejections[1].field == "resourceSpans[0].scopeSpans[0].spans[0].traceId"
    # The trace whose spans were all cut off is not even known: what was cut off may hold
    # spans of any trace, which is why the pydantic traces are marked.
    assert cut_off not in " ".join(messages(summary))
    assert (summary.imported, summary.rejected, summary.incomplete) == (4, 1, 4)


def test_a_clean_input_is_not_marked_with_the_flag(tmp_path: Path) -> None:
    found, summary = run(COLLECTOR, keep=True)
    assert [trace.trace_id for trace in found] == [TRACE_1, TRACE_2]
    assert all(INCOMPLETE_KEY not in trace.metadata for trace in found)
    assert (summary.incomplete, summary.rejections) == (0, [])
