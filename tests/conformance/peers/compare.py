"""What a peer reads of the conformance corpus, held to the same table of truth as trailcheck.

A peer file (:mod:`tests.conformance.peers.recording_file`) holds what the peer's own reader
made of each trace; here each run of each configuration of :data:`CORPUS` (the trace of that
run, found by trace id) is checked column by column against :data:`RUNS`, by the rules of
:func:`tests.conformance.truth.check`: the calls in order (a group asked for at once in any
order), their arguments and results equal to the data (JSON text parsed, as any reader must;
framework wrappers are not unwrapped, that is the reader's work), the failing call flagged and
no other, the answer and the input as text, the summed tokens, every model named, the session.

A column is, per configuration, one cell:

- ``✓`` read right in every run;
- ``✗`` read wrong in some run: the peer shows something that is not what happened (or shows
  something where the library recorded nothing);
- ``○`` not read: the library recorded it and the peer shows nothing, in some run, and nothing
  wrong in any;
- ``–`` the library records nothing there, and the peer shows nothing.

``python -m tests.conformance.peers.compare [peer]`` prints every cell with its reason.
"""

from __future__ import annotations

import functools
import json
import sys
from dataclasses import dataclass
from typing import Any

from tests.conformance.corpus import CORPUS, Configuration
from tests.conformance.peers.recording_file import load_peer_file, peer_path
from tests.conformance.truth import COLUMNS, SCENARIO, Call, Run

PEERS = ("agentevals", "phoenix")  # each with its tests/conformance/peers/<peer>.json
READ, WRONG, NOT_READ, ABSENT = "✓", "✗", "○", "–"


@dataclass(frozen=True)
class Cell:
    mark: str
    why: str | None = None  # the first run that is not read right, and what the peer shows


def available_peers() -> list[str]:
    return [peer for peer in PEERS if peer_path(peer).exists()]


def _data(value: Any) -> Any:
    """A value as data: JSON text parsed, anything else as is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _empty(value: Any) -> bool:
    """Nothing shown: no value, or an empty one (a library's placeholder with content off)."""
    return value is None or value in ("", {}, [])


def _lined_up(calls: list[dict[str, Any]], run: Run) -> list[tuple[dict[str, Any], Call]] | None:
    """The peer's calls paired with the run's, group by group; ``None`` when the names differ."""
    matched: list[tuple[dict[str, Any], Call]] = []
    for group in run.calls:
        taken, calls = calls[: len(group)], calls[len(group) :]
        got = sorted(taken, key=lambda c: (c["name"], str(_data(c["arguments"]))))
        want = sorted(group, key=lambda c: (c.name, str(c.arguments)))
        if [c["name"] for c in got] != [c.name for c in want]:
            return None
        matched.extend(zip(got, want, strict=True))
    return None if calls else matched


def _check_calls(column: str, reading: dict[str, Any], run: Run) -> str | None:
    """``None`` when right, ``""`` when the peer shows nothing, else what it shows."""
    calls = reading["calls"]
    matched = _lined_up(calls, run)
    if column == "calls" or matched is None:
        if matched is not None:
            return None
        return "" if not calls else f"calls {[c['name'] for c in calls]}"
    if column == "errors":
        if any(c["error"] for c, want in matched if want.error is None):
            return f"flags {[c['name'] for c in calls if c['error']]}"
        missed = any(not c["error"] for c, want in matched if want.error is not None)
        return "" if missed else None
    key = "arguments" if column == "arguments" else "result"
    pairs = [(c, w) for c, w in matched if column == "arguments" or w.error is None]
    if all(_empty(c[key]) for c, _ in pairs):
        return "" if pairs else None
    wrong = [c[key] for c, w in pairs if _data(c[key]) != getattr(w, key)]
    return f"{column} {wrong}"[:160] if wrong else None


def check_reading(column: str, reading: dict[str, Any] | None, run: Run) -> str | None:
    """Why the peer's ``reading`` of a run's trace gets ``column`` wrong: ``""`` when it shows
    nothing there, a text when it shows something else, ``None`` when it reads it right."""
    if reading is None:
        return ""
    if column in ("calls", "arguments", "results", "errors"):
        return _check_calls(column, reading, run)
    if column in ("answer", "input"):
        text = reading[column]
        if not text:
            return ""
        want = run.answer if column == "answer" else run.input
        return None if text.strip() == want else f"{column} {text[:80]!r}"
    if column == "tokens":
        tokens = reading["tokens"]
        if tokens is None:
            return ""
        return None if tuple(tokens) == run.tokens else f"tokens {tokens}"
    if column == "model":
        models = reading["models"]
        if not models:
            return ""
        return None if all(m.endswith(SCENARIO.MODEL) for m in models) else f"models {models}"
    if column == "session":
        session = reading["session"]
        if not session:
            return ""
        return None if session == SCENARIO.SESSION_ID else f"session {session!r}"
    raise ValueError(f"no column {column!r}")


@functools.cache
def _run_trace_ids(fixture: str) -> tuple[str, ...]:
    configuration = next(c for c in CORPUS if c.fixture == fixture)
    return tuple(trace.trace_id for trace in configuration.traces())


def readings(
    peer_file: dict[str, Any], configuration: Configuration
) -> list[dict[str, Any] | None]:
    """The peer's reading of each run's trace, found by the trace id of the run (``None`` for a
    trace the peer file does not list)."""
    recording = peer_file["recordings"][configuration.fixture]
    by_trace = {tid: reading for reading in recording["traces"] for tid in reading["trace_ids"]}
    return [by_trace.get(trace_id) for trace_id in _run_trace_ids(configuration.fixture)]


def shown(column: str, reading: dict[str, Any] | None) -> Any:
    """What the peer shows for ``column`` (empty when nothing): for a column the library does
    not record, anything shown is made up."""
    if reading is None:
        return None
    calls = reading["calls"]
    if column == "arguments":
        return [c["arguments"] for c in calls if not _empty(c["arguments"])]
    if column == "results":
        return [c["result"] for c in calls if not _empty(c["result"])]
    if column == "errors":
        return [c["name"] for c in calls if c["error"]]
    return reading["models" if column == "model" else column]


def cell(column: str, configuration: Configuration, runs: list[dict[str, Any] | None]) -> Cell:
    """The peer's cell for ``column`` of ``configuration`` from its readings of the runs."""
    played = list(zip(configuration.runs, runs, strict=True))
    if column in configuration.absent:
        made_up = [(run.name, shown(column, reading)) for run, reading in played]
        made_up = [(name, what) for name, what in made_up if what]
        if not made_up:
            return Cell(ABSENT)
        name, what = made_up[0]
        return Cell(WRONG, f"{name}: shows {what!r}"[:160] + " where nothing was recorded")
    found = [(run.name, check_reading(column, reading, run)) for run, reading in played]
    wrong = [(name, why) for name, why in found if why]
    if wrong:
        return Cell(WRONG, f"{wrong[0][0]}: {wrong[0][1]}")
    missed = [name for name, why in found if why == ""]
    if missed:
        return Cell(NOT_READ, f"{missed[0]}: shows nothing")
    return Cell(READ)


def peer_cells(peer: str) -> dict[str, dict[str, Cell]]:
    """Per configuration (by fixture) and column, the peer's cell. Left out (shown ``?``): a
    configuration the peer file was not made from (``tests/conformance/test_peers.py`` asks to
    regenerate it), and one whose recording does not hold the runs the table plays."""
    peer_file = load_peer_file(peer)
    cells: dict[str, dict[str, Cell]] = {}
    for configuration in CORPUS:
        if configuration.fixture not in peer_file["recordings"]:
            continue
        if len(_run_trace_ids(configuration.fixture)) != len(configuration.runs):
            continue  # the recording and the table disagree: test_corpus.py says so
        runs = readings(peer_file, configuration)
        cells[configuration.fixture] = {
            column: cell(column, configuration, runs) for column in COLUMNS
        }
    return cells


def trailcheck_cell(configuration: Configuration, column: str) -> Cell:
    """trailcheck's own cell, as the corpus table states it (and test_corpus.py holds it to)."""
    if column in configuration.absent:
        return Cell(ABSENT)
    if column in configuration.gaps:
        return Cell(WRONG, configuration.gaps[column])
    return Cell(READ)


def main(peers: list[str]) -> None:
    for peer in peers:
        for fixture, cells in peer_cells(peer).items():
            for column, found in cells.items():
                print(f"{peer}\t{fixture}\t{column}\t{found.mark}\t{found.why or ''}")


if __name__ == "__main__":
    main(sys.argv[1:] or available_peers())
