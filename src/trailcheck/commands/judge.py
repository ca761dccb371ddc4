"""``trailcheck judge ...``: measure a judge against human labels before a gate trusts it.

A judge spec is ``replay:FILE.jsonl`` (recorded verdicts; no model, no traces), the name of a
model judge (``rubric``, ``groundedness``, ``reference``), built on ``--model`` behind an
OpenAI-compatible API and run on the traces of ``--traces``, or ``MODULE:FACTORY``, a function
of no arguments returning a :class:`~trailcheck.judge.Judge` (a judge on a scripted model, a
panel: whatever the code builds).
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Final

import orjson
import typer
from rich.console import Console

from trailcheck.errors import UsageError
from trailcheck.judge.calibration import calibrate
from trailcheck.judge.figures import CalibrationOptions, JudgeRun
from trailcheck.judge.judge import Judge
from trailcheck.judge.labels import HumanLabel, load_labels
from trailcheck.judge.replay import ReplayJudge, replay_judge_from_spec
from trailcheck.judge.run_judge import judge_labelled, load_items
from trailcheck.models.openai_chat import OpenAIChatModel
from trailcheck.report.calibration_view import calibration_json, render_calibration
from trailcheck.specs.references import is_reference, resolve_reference

__all__ = ["judge_app"]

# The model judges a spec may name: module and class, imported only when named.
MODEL_JUDGES: Final = {
    "rubric": ("trailcheck.judge.rubric", "RubricJudge"),
    "groundedness": ("trailcheck.judge.groundedness", "GroundednessJudge"),
    "reference": ("trailcheck.judge.reference", "ReferenceJudge"),
}

judge_app = typer.Typer(help="Judges: calibrate them against human labels.", no_args_is_help=True)

stdout = Console(soft_wrap=False)


class JudgeModels:
    """``--model``/``--base-url``: the one chat model every model judge of a command shares."""

    def __init__(self, name: str | None, base_url: str | None, api_key_env: str) -> None:
        if name is None and base_url is not None:
            raise UsageError("--base-url needs --model")
        self._name, self._base_url, self._api_key_env = name, base_url, api_key_env
        self.model: OpenAIChatModel | None = None

    def get(self, spec: str) -> OpenAIChatModel:
        if self._name is None:
            raise UsageError(f"judge {spec!r} needs a model: give --model (and --base-url)")
        if self.model is None:
            self.model = OpenAIChatModel(
                self._name, base_url=self._base_url, api_key_env=self._api_key_env
            )
        return self.model


def build_judge(spec: str, models: JudgeModels) -> Judge:
    """The judge ``spec`` names (see the module docstring)."""
    replay = replay_judge_from_spec(spec)
    if replay is not None:
        return replay
    if spec not in MODEL_JUDGES and is_reference(spec):
        return _judge_from_factory(spec)
    if spec not in MODEL_JUDGES:
        known = ", ".join(["replay:FILE.jsonl", *MODEL_JUDGES, "MODULE:FACTORY"])
        raise UsageError(f"unknown judge {spec!r}; one of: {known}")
    model = models.get(spec)
    module, name = MODEL_JUDGES[spec]
    try:
        judge_class: Any = getattr(importlib.import_module(module), name, None)
    except ModuleNotFoundError as error:
        if error.name != module:
            raise
        judge_class = None
    if judge_class is None:
        raise UsageError(f"judge {spec!r} is not available in this trailcheck")
    judge: Judge = judge_class(model)
    return judge


def _judge_from_factory(reference: str) -> Judge:
    factory = resolve_reference(reference, what="judge factory")
    if not callable(factory):
        raise UsageError(f"judge factory {reference!r} is not callable")
    judge = factory()
    if not isinstance(judge, Judge):
        raise UsageError(
            f"judge factory {reference!r} returned {type(judge).__name__}, not a judge"
            " (an object with a version, describe() and async judge(item))"
        )
    return judge


async def _judge_all(
    judges: Sequence[Judge],
    labels: Sequence[HumanLabel],
    traces: Sequence[Path],
    concurrency: int,
    models: JudgeModels,
) -> list[JudgeRun]:
    needs_traces = [j for j in judges if not isinstance(j, ReplayJudge)]
    if needs_traces and not traces:
        raise UsageError("a model judge reads the labelled traces: give --traces FILE")
    items = load_items(traces) if traces else {}
    try:
        return [
            JudgeRun.of(judge, await judge_labelled(judge, labels, items, concurrency))
            for judge in judges
        ]
    finally:
        if models.model is not None:
            await models.model.aclose()


@judge_app.command("calibrate")
def calibrate_command(
    labels_path: Annotated[Path, typer.Option("--labels", help="Human labels (JSONL).")],
    judge_spec: Annotated[
        str, typer.Option("--judge", help="replay:FILE.jsonl, rubric, groundedness or reference.")
    ],
    candidate_spec: Annotated[
        str | None, typer.Option("--candidate", help="A second judge to compare, same forms.")
    ] = None,
    traces: Annotated[
        list[Path] | None,
        typer.Option("--traces", help="Trace files holding the labelled items (repeatable)."),
    ] = None,
    model: Annotated[str | None, typer.Option(help="The model judges' model (OpenAI API).")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    api_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    concurrency: Annotated[int, typer.Option(min=1, help="Judgings at once.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed of the kappa bootstrap.")] = 0,
    validation_fraction: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="Share of unsplit items held out for validation."),
    ] = 0.3,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    out: Annotated[Path | None, typer.Option(help="Also write the report (JSON) here.")] = None,
) -> None:
    """Judge (or replay) every labelled item and report agreement with the labels: confusion,
    kappa, false-pass and false-fail rates, per split, and a candidate judge beside it.

    Exit 0 when computed, 2 for a usage or input error.
    """
    labels = load_labels(labels_path)
    models = JudgeModels(model, base_url, api_key_env)
    judges = [build_judge(judge_spec, models)]
    if candidate_spec is not None:
        judges.append(build_judge(candidate_spec, models))
    runs = asyncio.run(_judge_all(judges, labels, traces or [], concurrency, models))
    options = CalibrationOptions(seed=seed, validation_fraction=validation_fraction)
    report = calibrate(
        labels, runs[0], candidate=runs[1] if len(runs) > 1 else None, options=options
    )
    if out is not None:
        try:
            out.write_bytes(orjson.dumps(calibration_json(report), option=orjson.OPT_INDENT_2))
        except OSError as error:
            raise UsageError(f"{out}: cannot write: {error.strerror or error}") from None
    if as_json:
        sys.stdout.write(
            orjson.dumps(calibration_json(report), option=orjson.OPT_INDENT_2).decode()
        )
        sys.stdout.write("\n")
    else:
        stdout.print(render_calibration(report))


@judge_app.command("lint")
def lint_command(
    dataset_path: Annotated[Path, typer.Argument(help="The dataset file whose rubrics to check.")],
) -> None:
    """Flag rubrics a judge cannot apply well: knowledge rubrics (they assert a fact, which
    belongs in a reference answer) and rubrics without an explicit criterion.

    Exit 0 when every rubric is fine, 1 when one is flagged, 2 for an input error.
    """
    from trailcheck.cases import load_dataset
    from trailcheck.judge.lint import lint_rubric

    dataset = load_dataset(dataset_path)
    flagged = 0
    for case in dataset.cases:
        for index, rubric in enumerate(case.rubrics):
            for problem in lint_rubric(rubric):
                flagged += 1
                stdout.print(
                    f"{dataset_path}: case {case.id!r} rubrics[{index}]: {problem.kind}:"
                    f" {problem.message}",
                    markup=False,
                    soft_wrap=True,
                )
    rubrics = sum(len(case.rubrics) for case in dataset.cases)
    stdout.print(f"{rubrics} rubric(s) checked, {flagged} problem(s)", markup=False)
    if flagged:
        raise typer.Exit(1)
