"""Scoring speed: read and grade trailcheck JSONL, against four peer evaluators on the same file.

Generates N seeded traces (about 12 spans: an agent root, a model call before each tool call
and one for the answer, tool calls with JSON arguments and JSON results: orders, customers,
refunds) for 40 cases made from 5 templates, writes them as trailcheck JSONL, then times, over
several rounds in the same run:

- trailcheck reading and grading (the trajectory, arguments and efficiency scorers), every line:
  ``parse_trace_line`` (the records, decoded by msgspec, held to the JSON text rules), then
  ``grade``;
- each installed peer, end to end on the first ``--peer-traces`` lines of the same file: parse
  the line, build the peer's own objects, score (see ``benchmarks/peers/``).

- the bulk path as ``trailcheck score`` runs it, the file read in chunks by worker processes
  (``trailcheck.bulk``), grading with the same three scorers, on 1 core and on every core:
  wall time over the whole file per trace.

Prints per-trace medians on one core, the ratios (to trailcheck end to end) and the
two targets. Peers are installed only in the
benchmark's own environment, never as project dependencies::

    uv run --project benchmarks/peers python benchmarks/scoring_speed.py --traces 100000
    uv run python benchmarks/scoring_speed.py --traces 10000      # trailcheck only
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import orjson
from pydantic import ValidationError

from peers.catalog import PEERS
from peers.corpus import make_corpus
from peers.peer import LineGrader, Peer
from trailcheck.bulk import default_workers
from trailcheck.bulk.trace_files import trace_files_results
from trailcheck.cases import Case
from trailcheck.errors import RecordError
from trailcheck.importing.importer import ImportSummary
from trailcheck.importing.records import Rejection
from trailcheck.importing.trailcheck_jsonl import parse_trace_line
from trailcheck.scorers import (
    ArgumentsScorer,
    EfficiencyScorer,
    Grade,
    Scorer,
    TrajectoryScorer,
    grade,
)
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace

NETWORK_EVENTS = frozenset({"socket.connect", "socket.getaddrinfo", "socket.sendto"})
network_attempts: list[str] = []


def _watch_network(event: str, args: tuple[object, ...]) -> None:
    # Every peer must run offline; an attempt to reach the network is reported, not hidden.
    if event in NETWORK_EVENTS:
        network_attempts.append(f"{event} {args[1:2]!r}")


@dataclass
class Tally:
    """One round's totals for one contender."""

    seconds: float = 0.0
    traces: int = 0
    passed: int = 0
    errors: int = 0
    first_error: str = ""

    @property
    def micros(self) -> float:
        return self.seconds / self.traces * 1e6

    def fail(self, error: Exception) -> None:
        self.errors += 1
        self.first_error = self.first_error or f"{type(error).__name__}: {error}"[:200]


@dataclass
class TrailcheckRound:
    read: Tally
    grade: Tally
    subset: Tally
    """End to end on the first ``--peer-traces`` lines: the baseline of the peers' ratios."""
    verdicts: list[bool]
    """Each line's verdict (a rejected line: False), to check that both paths agree."""


@dataclass(frozen=True)
class TrailcheckPath:
    """How trailcheck reads and grades a line."""

    label: str
    read: Callable[[bytes], Trace]
    grade: Callable[[Trace, Case, Sequence[Scorer]], Grade]


def _read(line: bytes) -> Trace:
    """The reader of every path: the records, held to the JSON text rules."""
    read = parse_trace_line(line, source="corpus", line_number=0)
    if isinstance(read, Rejection):
        raise RecordError(read.message, field=read.field)
    return read


PATHS = (TrailcheckPath("trailcheck", _read, grade),)
READ_LABELS = {"trailcheck": "parse_trace_line"}
GRADE_LABELS = {"trailcheck": "grade"}


def time_trailcheck(
    path: TrailcheckPath,
    lines: Sequence[bytes],
    cases: Mapping[str, Case],
    scorers: Sequence[Scorer],
    subset: int,
) -> TrailcheckRound:
    """Per line: read, then grade, each timed on its own. The trace is read afresh every round,
    so no derived view (``tool_calls``) cached by an earlier round helps grading."""
    read, graded, first = Tally(traces=len(lines)), Tally(traces=len(lines)), Tally()
    verdicts: list[bool] = []
    read_ns = grade_ns = 0
    clock = time.perf_counter_ns
    for index, line in enumerate(lines):
        if index == subset:
            first = Tally((read_ns + grade_ns) / 1e9, subset, graded.passed, graded.errors)
        began = clock()
        try:
            trace = path.read(line)
        except (ValidationError, RecordError) as error:  # a rejected line is counted, not fatal
            read.fail(error)
            verdicts.append(False)
            continue
        was_read = clock()
        outcome = path.grade(trace, cases[trace.metadata["case_id"]], scorers)
        read_ns += was_read - began
        grade_ns += clock() - was_read
        graded.passed += outcome.passed
        graded.errors += len(outcome.failures)
        verdicts.append(outcome.passed)
    read.seconds, graded.seconds = read_ns / 1e9, grade_ns / 1e9
    if subset >= len(lines):
        first = Tally((read_ns + grade_ns) / 1e9, len(lines), graded.passed, graded.errors)
    return TrailcheckRound(read, graded, first, verdicts)


# What a bulk worker grades with: set before the workers are forked, so they inherit it.
_bulk_setup: list[tuple[Mapping[str, Case], Sequence[Scorer]]] = []


def _bulk_grade(trace: Trace) -> bool:
    cases, scorers = _bulk_setup[0]
    return grade(trace, cases[trace.metadata["case_id"]], scorers).passed


def time_bulk(path: Path, traces: int, workers: int) -> Tally:
    """The whole file through the bulk path over ``workers`` processes, wall time."""
    summary = ImportSummary()
    began = time.perf_counter()
    passed = sum(trace_files_results([path], _bulk_grade, summary, workers=workers))
    return Tally(time.perf_counter() - began, traces, passed, len(summary.rejections))


def time_bare(lines: Sequence[bytes]) -> Tally:
    """``orjson.loads`` of every line: the cost every peer pays before building anything."""
    began = time.perf_counter()
    for line in lines:
        orjson.loads(line)
    return Tally(seconds=time.perf_counter() - began, traces=len(lines))


def time_peer(grade_line: LineGrader, lines: Sequence[bytes]) -> Tally:
    tally = Tally(traces=len(lines))
    began = time.perf_counter()
    for line in lines:
        try:
            tally.passed += grade_line(line)
        # Failures are data: a peer that raises on a trace is counted and named, not dropped.
        except Exception as error:  # noqa: BLE001
            tally.fail(error)
    tally.seconds = time.perf_counter() - began
    return tally


def _installed(peer: Peer) -> bool:
    try:
        return importlib.util.find_spec(peer.module) is not None
    except ModuleNotFoundError:  # a namespace parent (``google``) that is absent
        return False


def _version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "not installed"


def build_peers(cases: Mapping[str, Case]) -> tuple[dict[str, LineGrader], list[str]]:
    """The line graders of the installed peers, and a line per peer that cannot run."""
    graders: dict[str, LineGrader] = {}
    problems: list[str] = []
    for peer in PEERS:
        if not _installed(peer):
            problems.append(f"{peer.label}: not installed ({peer.distribution})")
            continue
        try:
            graders[peer.label] = peer.build(cases)
        # A peer whose setup fails is reported as such; the others still run.
        except Exception as error:  # noqa: BLE001
            problems.append(f"{peer.label}: cannot run: {type(error).__name__}: {error}")
    return graders, problems


def _median(tallies: Sequence[Tally], pick: Callable[[Tally], float]) -> float:
    return statistics.median(pick(tally) for tally in tallies)


WIDTH = 54
LEGEND = (
    "x tc: the row's time over trailcheck end to end on the same lines (above 1: slower);"
    " passed: traces the row's verdict passes (last round; each peer checks its own semantics)"
)


def _row(label: str, tallies: Sequence[Tally], baseline: float | None, *, verdicts: bool) -> str:
    micros = _median(tallies, lambda t: t.micros)
    ratio = f"{micros / baseline:8.2f}x" if baseline else ""
    last = tallies[-1]
    passed = f"{last.passed / last.traces:.1%}" if verdicts else ""
    errors = f"{last.errors}" + (f"  first: {last.first_error}" if last.errors else "")
    line = f"{label:<{WIDTH}}{micros:>9.1f} {ratio:>9} {passed:>7}  {errors if verdicts else ''}"
    return line.rstrip()


def print_table(
    rounds: Mapping[str, Sequence[TrailcheckRound]],
    peers: Mapping[str, Sequence[Tally]],
    bare: Sequence[Tally],
    bulk: Mapping[str, Sequence[Tally]],
    subset: int,
) -> None:
    """Per-trace medians over the rounds, one row per contender; ratios to trailcheck."""
    baseline = _median([r.subset for r in rounds["trailcheck"]], lambda t: t.micros)
    header = f"{'':<{WIDTH}}{'µs/trace':>9} {'x tc':>9} {'passed':>7}  errors"
    print(header, "-" * len(header), sep="\n")
    print(_row("orjson.loads of the line (builds nothing)", bare, None, verdicts=False))
    for label, path_rounds in rounds.items():
        read = f"{label} read ({READ_LABELS[label]})"
        print(_row(read, [r.read for r in path_rounds], None, verdicts=False))
        scored = f"{label} grade ({GRADE_LABELS[label]})"
        print(_row(scored, [r.grade for r in path_rounds], None, verdicts=True))
        total = statistics.median(r.read.micros + r.grade.micros for r in path_rounds)
        print(f"{f'{label} end to end':<{WIDTH}}{total:>9.1f}")
    for label, tallies in bulk.items():
        print(_row(label, tallies, None, verdicts=True))
    rows = {
        **{
            f"{label} end to end, first {subset}": [r.subset for r in path_rounds]
            for label, path_rounds in rounds.items()
        },
        **{f"{label} end to end, first {subset}": tallies for label, tallies in peers.items()},
    }
    for label, tallies in rows.items():
        print(_row(label, tallies, baseline, verdicts=True))
    print(LEGEND, end="\n\n")


def print_targets(
    rounds: Mapping[str, Sequence[TrailcheckRound]], peers: Mapping[str, Sequence[Tally]]
) -> None:
    ours = rounds["trailcheck"]
    read = _median([r.read for r in ours], lambda t: t.micros)
    graded = _median([r.grade for r in ours], lambda t: t.micros)
    baseline = _median([r.subset for r in ours], lambda t: t.micros)
    if peers:
        fastest = min(peers, key=lambda label: _median(peers[label], lambda t: t.micros))
        speedup = _median(peers[fastest], lambda t: t.micros) / baseline
        print(
            f"target: trailcheck end to end >= 10x faster than the fastest peer"
            f" ({fastest}): {speedup:.2f}x  {'PASS' if speedup >= 10 else 'MISS'}"
        )
    else:
        print("target: trailcheck end to end >= 10x faster than the fastest peer: no peer ran")
    print(
        f"target: grading cheaper than reading: grade {graded:.1f} µs, read {read:.1f} µs"
        f" (grade/read {graded / read:.2f})  {'PASS' if graded < read else 'MISS'}"
    )
    same = all(r.verdicts == ours[0].verdicts for r in ours)
    print(f"every round gives the same verdicts: {'yes' if same else 'NO'}")


def print_setup(args: argparse.Namespace, size_kb: float, spans: float, cases: int) -> None:
    names = ["trailcheck", "pydantic", *(peer.distribution for peer in PEERS), "langchain-core"]
    print(" · ".join(f"{name} {_version(name)}" for name in names))
    print(
        f"{args.traces} traces ({spans:.1f} spans, {size_kb:.1f} kB each on average), {cases}"
        f" cases; peers on the first {min(args.peer_traces, args.traces)} traces of the same"
        f" file; medians over {args.rounds} rounds"
    )
    for peer in PEERS:
        print(f"  {peer.label}: {peer.computes}")
    print()


def write_corpus(path: Path, traces: Iterable[Trace]) -> tuple[list[bytes], int]:
    """Writes the traces as trailcheck JSONL; returns the file's lines and the span count."""
    spans = 0
    with path.open("wb") as out:
        for trace in traces:
            spans += len(trace.spans)
            out.write(dump_trace(trace) + b"\n")
    return path.read_bytes().splitlines(), spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--peer-traces", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sys.addaudithook(_watch_network)

    cases, traces = make_corpus(args.traces, seed=7)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "traces.jsonl"
        lines, spans = write_corpus(path, traces)
        size_kb = path.stat().st_size / 1e3 / len(lines)
        _run(args, path, lines, spans, size_kb, cases)


def _run(
    args: argparse.Namespace,
    corpus: Path,
    lines: list[bytes],
    spans: int,
    size_kb: float,
    cases: Mapping[str, Case],
) -> None:
    print_setup(args, size_kb, spans / len(lines), len(cases))
    graders, problems = build_peers(cases)
    scorers = (TrajectoryScorer(), ArgumentsScorer(), EfficiencyScorer())
    subset = lines[: args.peer_traces]

    rounds: dict[str, list[TrailcheckRound]] = {path.label: [] for path in PATHS}
    _bulk_setup.append((cases, scorers))
    cores = default_workers()
    bulk: dict[str, list[Tally]] = {
        f"trailcheck score's bulk path, {n} core{'s' if n > 1 else ''} (whole file)": []
        for n in sorted({1, cores})
    }
    bare: list[Tally] = []
    peers: dict[str, list[Tally]] = {label: [] for label in graders}
    for _ in range(args.rounds):
        # Interleaved, so that a slower moment of the machine is shared, not pinned on one.
        gc.collect()
        bare.append(time_bare(lines))
        for path in PATHS:
            gc.collect()
            rounds[path.label].append(time_trailcheck(path, lines, cases, scorers, len(subset)))
        for label, workers in zip(bulk, sorted({1, cores}), strict=True):
            gc.collect()
            bulk[label].append(time_bulk(corpus, len(lines), workers))
        for label, grade_line in graders.items():
            gc.collect()
            peers[label].append(time_peer(grade_line, subset))
    with open("/proc/loadavg", encoding="ascii") as stream:
        print(f"load average {' '.join(stream.read().split()[:3])}, {cores} cores")
    print_table(rounds, peers, bare, bulk, len(subset))
    print_targets(rounds, peers)
    for problem in problems:
        print(f"peer {problem}")
    if any("not installed" in problem for problem in problems):
        print(f"with the peers: uv run --project benchmarks/peers python {sys.argv[0]} ...")
    print(f"network attempts during the run: {len(network_attempts)}", *network_attempts[:5])


if __name__ == "__main__":
    main()
