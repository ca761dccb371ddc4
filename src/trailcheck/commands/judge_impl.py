"""What ``trailcheck judge ...`` does (its options: :mod:`trailcheck.commands.judge`): measure a
judge against human labels before a gate trusts it.

A judge spec is ``replay:FILE.jsonl`` (recorded verdicts; no model, no traces), the name of a
model judge (``rubric``, ``groundedness``, ``reference``), built on ``--model`` behind an
OpenAI-compatible API and run on the traces of ``--traces``, or ``MODULE:FACTORY``, a function
of no arguments returning a :class:`~trailcheck.judge.Judge` (a judge on a scripted model, a
panel: whatever the code builds).

A labels file of attribution labels (:func:`~trailcheck.judge.attribution_labels.
labels_file_kind`) calibrates an attributor instead: :mod:`trailcheck.commands.
judge_attribution_impl`.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import orjson
import typer
from rich.console import RenderableType

from trailcheck.cases import Case, load_dataset
from trailcheck.commands.declare import implementation
from trailcheck.commands.judge import CalibrateRequest, LintRequest
from trailcheck.commands.output import stdout
from trailcheck.errors import EXIT_FAILED, UsageError
from trailcheck.extras import needs_extra
from trailcheck.judge.attribution_labels import labels_file_kind
from trailcheck.judge.calibration import calibrate
from trailcheck.judge.figures import CalibrationOptions, JudgeRun
from trailcheck.judge.judge import Judge
from trailcheck.judge.labels import HumanLabel, RecordedVerdict, load_labels
from trailcheck.judge.lint import lint_rubric
from trailcheck.judge.replay import ReplayJudge, replay_judge_from_spec
from trailcheck.judge.run_judge import judge_labelled, load_items
from trailcheck.judge.verdict import Judging
from trailcheck.models.openai_client import OpenAIChatModel
from trailcheck.rate_limit import RateLimiter
from trailcheck.report.calibration_view import calibration_json, render_calibration
from trailcheck.specs.references import is_reference, resolve_reference

__all__ = [
    "JudgeModels",
    "build_judge",
    "calibrate_command",
    "lint_command",
    "load_cases",
    "openai_model",
    "write_json",
    "write_jsonl",
]

# The model judges a spec may name: module and class, imported only when named.
MODEL_JUDGES: Final = {
    "rubric": ("trailcheck.judge.rubric", "RubricJudge"),
    "groundedness": ("trailcheck.judge.groundedness", "GroundednessJudge"),
    "reference": ("trailcheck.judge.reference", "ReferenceJudge"),
}


def openai_model(
    name: str,
    base_url: str | None,
    api_key_env: str,
    *,
    what: str,
    rate_limiter: RateLimiter | None = None,
) -> OpenAIChatModel:
    """A model behind an OpenAI-compatible API; without the ``openai`` extra, a usage error
    now, before a trial or a judging would fail on it (the SDK is imported at the first call)."""
    with needs_extra("openai", what):
        importlib.import_module("openai")
    return OpenAIChatModel(
        name, base_url=base_url, api_key_env=api_key_env, rate_limiter=rate_limiter
    )


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
            self.model = openai_model(
                self._name, self._base_url, self._api_key_env, what=f"judge {spec!r}"
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


def load_cases(path: Path | None) -> dict[str, Case]:
    """The cases of ``--dataset`` by id; none without it."""
    return {} if path is None else {case.id: case for case in load_dataset(path).cases}


def write_json(path: Path, value: Any) -> None:
    """``value`` as indented JSON at ``path``; a usage error naming it when it cannot be
    written."""
    try:
        path.write_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2))
    except OSError as error:
        raise UsageError(f"{path}: cannot write: {error.strerror or error}") from None


def write_jsonl(path: Path, records: Sequence[Any]) -> None:
    """Pydantic ``records`` as JSON Lines at ``path`` (``--record``)."""
    data = b"".join(orjson.dumps(record.model_dump(mode="json")) + b"\n" for record in records)
    try:
        path.write_bytes(data)
    except OSError as error:
        raise UsageError(f"{path}: cannot write: {error.strerror or error}") from None


def _recorded(judgings: Sequence[Judging]) -> list[RecordedVerdict]:
    return [
        RecordedVerdict(
            item_id=j.item_id,
            criterion=j.criterion,
            verdict=j.verdict,
            judge_version=j.judge_version,
        )
        for j in judgings
        if j.verdict is not None
    ]


async def _judge_all(
    judges: Sequence[Judge],
    labels: Sequence[HumanLabel],
    traces: Sequence[Path],
    concurrency: int,
    models: JudgeModels,
    cases: dict[str, Case],
) -> list[JudgeRun]:
    needs_traces = [j for j in judges if not isinstance(j, ReplayJudge)]
    if needs_traces and not traces:
        raise UsageError("a model judge reads the labelled traces: give --traces FILE")
    items = load_items(traces) if traces else {}
    try:
        return [
            JudgeRun.of(judge, await judge_labelled(judge, labels, items, concurrency, cases))
            for judge in judges
        ]
    finally:
        if models.model is not None:
            await models.model.aclose()


def calibrate_command(request: CalibrateRequest) -> None:
    """The body of :func:`trailcheck.commands.judge.calibrate_command`."""
    if labels_file_kind(request.labels_path) == "attribution":
        implementation(
            "trailcheck.commands.judge_attribution_impl:calibrate_attribution_command",
            CalibrateRequest,
        )(request)
        return
    labels = load_labels(request.labels_path)
    models = JudgeModels(request.model, request.base_url, request.api_key_env)
    judges = [build_judge(request.judge_spec, models)]
    if request.candidate_spec is not None:
        judges.append(build_judge(request.candidate_spec, models))
    traces = request.traces or []
    cases = load_cases(request.dataset)
    runs = asyncio.run(_judge_all(judges, labels, traces, request.concurrency, models, cases))
    if request.record is not None:
        write_jsonl(request.record, _recorded(runs[0].judgings))
    options = CalibrationOptions(seed=request.seed, validation_fraction=request.validation_fraction)
    report = calibrate(
        labels, runs[0], candidate=runs[1] if len(runs) > 1 else None, options=options
    )
    emit_calibration(request, calibration_json(report), render_calibration(report))


def emit_calibration(request: CalibrateRequest, data: Any, rendered: RenderableType) -> None:
    """A calibration report to ``--out`` (JSON) when given, and to the terminal: as JSON with
    ``--json``, else ``rendered``."""
    if request.out is not None:
        write_json(request.out, data)
    if request.as_json:
        sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
        sys.stdout.write("\n")
    else:
        stdout.print(rendered)


def lint_command(request: LintRequest) -> None:
    """The body of :func:`trailcheck.commands.judge.lint_command`."""
    dataset_path = request.dataset_path
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
        raise typer.Exit(EXIT_FAILED)
