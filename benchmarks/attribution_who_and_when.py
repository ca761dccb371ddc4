"""Failure attribution on Who&When: reference attributors, and recorded judges, beside the paper.

Reads the published Who&When logs (ICML 2025, "Which Agent Causes Task Failures and When?") from
``../shared/external/who-and-when`` (its ``Algorithm-Generated`` and ``Hand-Crafted`` folders, as
github.com/mingyin1/Agents_Failure_Attribution publishes them), or ``--data DIR``; when they are
absent it says so and stops. Each log becomes a trace and an attribution label
(:mod:`trailcheck.importing.who_and_when`, :func:`trailcheck.judge.who_and_when_labels`), and
each attributor is calibrated on the labels by :func:`trailcheck.judge.calibrate_attribution`:
accuracy over every log (an unattributed log a miss, as the paper counts), with Wilson
intervals, per folder and over both.

The attributors that need no model, measured in the same run as the floor a judge must clear:

- ``first step``, ``last step``: always the first (last) step of the log;
- ``uniform random``: a step drawn uniformly, the mean over ``--seeds`` seeds;
- ``labelled step``: the label's own step, so its agent-level figure is the ceiling an
  attributor reaches when the agent is the one that took the step it names (the published
  labels name another agent than the labelled step's in a few logs).

``--attributions FILE ...`` adds recorded attributions (``trailcheck judge calibrate --record``:
a judge run on these traces with ``--traces`` and the cases of ``judge import-labels --cases``),
so a judge's figures print beside the floor and the paper's. The questions each judge strategy
asks are printed too: step by step asks as many as the mistake's step when it finds it (every
step when it does not), binary search ⌈log₂ n⌉ + 1, all at once one.

The paper's best figures (53.5% agent-level, 14.2% step-level, over both folders) are from its
abstract. Its evaluation script counts a step as right when the labelled step's digits occur in
the predicted ones (``"1" in "12"``); trailcheck's step-level figures are exact. ::

    uv run python benchmarks/attribution_who_and_when.py
    uv run python benchmarks/attribution_who_and_when.py --attributions judge-gpt-4o.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from trailcheck.cases import Case
from trailcheck.importing.records import Rejection
from trailcheck.importing.who_and_when import read_who_and_when_logs
from trailcheck.intervals import Rate
from trailcheck.judge import (
    AttributionFigures,
    AttributionLabel,
    AttributionRun,
    ReplayAttributor,
    attribute_labelled,
    calibrate_attribution,
    who_and_when_labels,
)
from trailcheck.scorers.attribution import Attribution
from trailcheck.scorers.steps import trace_steps
from trailcheck.trace import Trace

ROOT = Path(__file__).resolve().parent.parent
EXTERNAL = ROOT.parent / "shared" / "external" / "who-and-when"
PAPER_AGENT, PAPER_STEP = 0.535, 0.142

Pick = Callable[[Trace, AttributionLabel], int]


class PickedStep:
    """An attributor that names the step ``pick`` chooses (no model)."""

    def __init__(self, name: str, pick: Pick, labels: dict[str, AttributionLabel]) -> None:
        self.version, self._pick, self._labels = name, pick, labels

    def describe(self) -> dict[str, Any]:
        return {"kind": self.version}

    def attribute(self, trace: Trace, case: Case | None) -> Attribution | None:
        steps = trace_steps(trace)
        number = self._pick(trace, self._labels[trace.trace_id])
        span = steps[number - 1]
        return Attribution(
            span_id=span.span_id, step=number, name=span.name, category="wrong_tool", evidence=""
        )


def _load(folder: Path) -> tuple[list[AttributionLabel], dict[str, Trace]]:
    paths = sorted(folder.glob("*/*.json"))
    imported = who_and_when_labels(paths)
    if imported.rejections:
        raise SystemExit(f"{len(imported.rejections)} log(s) rejected: {imported.rejections[0]}")
    traces: dict[str, Trace] = {}
    for path in paths:
        with path.open("rb") as stream:
            for item in read_who_and_when_logs(stream, str(path)):
                assert not isinstance(item, Rejection)
                traces[item[0].trace_id] = item[0]
    return imported.labels, traces


def _figures(
    labels: Sequence[AttributionLabel], traces: dict[str, Trace], attributor: Any
) -> dict[str, AttributionFigures]:
    outcomes = asyncio.run(attribute_labelled(attributor, labels, traces, concurrency=8))
    run = AttributionRun(attributor.version, attributor.describe(), outcomes)
    report = calibrate_attribution(labels, run).attributor
    return {"all": report.all, **report.groups}


def _cell(rate: Rate) -> str:
    if rate.value is None:
        return "undefined"
    low, high = rate.interval.low or 0.0, rate.interval.high or 0.0
    return f"{rate.value:.1%} [{low:.1%}, {high:.1%}]"


def _row(name: str, figures: dict[str, AttributionFigures], columns: Sequence[str]) -> str:
    cells = [
        f"{_cell(figures[c].agent_accuracy_of_all)} / {_cell(figures[c].step_accuracy_of_all)}"
        for c in columns
    ]
    return f"| {name} | " + " | ".join(cells) + " |"


def _uniform(rng: random.Random) -> Pick:
    return lambda trace, _: rng.randint(1, len(trace_steps(trace)))


def _random_mean(
    labels: Sequence[AttributionLabel], traces: dict[str, Trace], seeds: int, columns: list[str]
) -> str:
    by_label = {label.item_id: label for label in labels}
    agent: dict[str, list[float]] = {c: [] for c in columns}
    step: dict[str, list[float]] = {c: [] for c in columns}
    for seed in range(seeds):
        attributor = PickedStep("uniform random", _uniform(random.Random(seed)), by_label)
        for column, figures in _figures(labels, traces, attributor).items():
            agent[column].append(figures.agent_accuracy_of_all.value or 0.0)
            step[column].append(figures.step_accuracy_of_all.value or 0.0)
    cells = [f"{statistics.mean(agent[c]):.1%} / {statistics.mean(step[c]):.1%}" for c in columns]
    return f"| uniform random (mean of {seeds} seeds) | " + " | ".join(cells) + " |"


def _questions(labels: Sequence[AttributionLabel], traces: dict[str, Trace]) -> str:
    sizes = [len(trace_steps(traces[label.item_id])) for label in labels]
    step_by_step = statistics.mean(label.mistaken_step for label in labels)
    binary = statistics.mean(math.ceil(math.log2(n)) + 1 for n in sizes)
    return (
        f"steps per log: median {statistics.median(sizes):g}, max {max(sizes)}; questions per"
        f" log: step by step {step_by_step:.1f} when it stops at the labelled step (up to"
        f" {statistics.mean(sizes):.1f}), binary search {binary:.1f}, all at once 1"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", type=Path, default=EXTERNAL, help="The Who&When folder.")
    parser.add_argument("--seeds", type=int, default=200, help="Seeds of the random baseline.")
    parser.add_argument("--attributions", type=Path, nargs="*", default=[])
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"skipped: the Who&When logs are not at {args.data} (give --data DIR)")
        return
    labels, traces = _load(args.data)
    by_label = {label.item_id: label for label in labels}
    columns = ["all", *sorted({label.group for label in labels if label.group})]
    counts = {c: sum(c in ("all", label.group) for label in labels) for c in columns}
    print(f"{len(labels)} labelled logs from {args.data}: {counts}")
    print(_questions(labels, traces))
    print("\nagent-level / step-level accuracy over every log (Wilson 95%)\n")
    print("| attributor | " + " | ".join(f"{c} (n={counts[c]})" for c in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    pickers: list[tuple[str, Pick]] = [
        ("first step", lambda t, _: 1),
        ("last step", lambda t, _: len(trace_steps(t))),
        ("labelled step (agent ceiling)", lambda _, label: label.mistaken_step),
    ]
    for name, pick in pickers:
        print(_row(name, _figures(labels, traces, PickedStep(name, pick, by_label)), columns))
    print(_random_mean(labels, traces, args.seeds, columns))
    for path in args.attributions:
        replay = ReplayAttributor(path)
        print(_row(f"recorded {replay.version}", _figures(labels, traces, replay), columns))
    paper = f"{PAPER_AGENT:.1%} / {PAPER_STEP:.1%}"
    print(f"| Who&When paper, best method (abstract) | {paper} |" + " |" * (len(columns) - 1))


if __name__ == "__main__":
    main()
