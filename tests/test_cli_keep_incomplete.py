"""``--keep-incomplete`` on ``import`` and ``ingest``: a collector file whose last line was cut."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.cli import run_cli
from trailcheck.store import Store
from trailcheck.trace import Trace
from trailcheck.trace.incomplete import INCOMPLETE_KEY

COLLECTOR = Path(__file__).parent / "fixtures" / "otlp" / "collector_file_export.jsonl"
TRACE_1 = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACE_2 = "00f067aa0ba902b700f067aa0ba902b7"


def cut_collector(tmp_path: Path) -> Path:
    """The collector file with its last line cut before its span's trace id."""
    first, second, third = COLLECTOR.read_bytes().splitlines()
    path = tmp_path / "collector.jsonl"
    path.write_bytes(first + b"\n" + second + b"\n" + third[:120])
    return path


def test_import_withholds_every_trace_without_the_flag_and_keeps_them_marked_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = cut_collector(tmp_path), tmp_path / "out.jsonl"
    assert run_cli(["import", str(source), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "→ 0 traces imported, 2 rejected, plus 1 record whose trace is unknown;" in err
    assert "(--keep-incomplete imports them, marked incomplete)" in err

    assert run_cli(["import", str(source), "-o", str(out), "--keep-incomplete"]) == 1
    err = capsys.readouterr().err
    assert f"{source}:3: not valid JSON" in err  # the cut line is still a rejection: exit 1
    assert (
        "→ 2 traces imported, 0 rejected, plus 1 record whose trace is unknown, 2 kept incomplete;"
    ) in err
    assert "warning: 2 trace(s) imported incomplete (kept with --keep-incomplete)" in err
    traces = [Trace.model_validate_json(line) for line in out.read_bytes().splitlines()]
    assert [trace.trace_id for trace in traces] == [TRACE_1, TRACE_2]
    assert all(trace.metadata[INCOMPLETE_KEY]["unreadable"][0]["line"] == 3 for trace in traces)


def test_ingest_stores_them_marked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'store.db'}"
    assert run_cli(["ingest", str(cut_collector(tmp_path)), "--db", db, "--keep-incomplete"]) == 1
    err = capsys.readouterr().err
    assert "→ 2 traces imported, 0 unchanged, 0 conflicts, 0 rejected," in err
    assert "2 kept incomplete; store" in err
    with Store.open(db) as store:
        stored = store.get_trace(TRACE_1)
    assert stored.metadata[INCOMPLETE_KEY]["reason"].startswith("line 3 of ")


@pytest.mark.parametrize("command", ["import", "ingest"])
def test_the_help_says_what_is_kept(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "--keep-incomplete Import the traces withheld only because a part of" in text
    assert "could not be read, marked incomplete (docs/traces.md)." in text
