"""What ``trailcheck judge calibrate`` does on attribution labels, and what ``trailcheck judge
import-labels`` does (their options: :mod:`trailcheck.commands.judge`).

An attributor spec is ``deterministic`` (:mod:`trailcheck.scorers.attribute`: each item's trace
graded against its case from ``--dataset``), ``replay:FILE.jsonl`` (recorded attributions; no
model, no traces),
``attribution`` or ``attribution:STRATEGY`` (the attribution judge, ``step_by_step`` by default,
or ``binary_search``, ``all_at_once``, on ``--model``, run on the traces of ``--traces``), or
``MODULE:FACTORY``, a function of no arguments returning an
:class:`~trailcheck.judge.attributors.Attributor` (a judge on a scripted model: whatever the code
builds).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import typer

from trailcheck.cases import Case, Dataset
from trailcheck.cases.dump import dump_dataset
from trailcheck.commands.import_summary import print_rejections
from trailcheck.commands.judge import CalibrateRequest, ImportLabelsRequest
from trailcheck.commands.judge_impl import (
    JudgeModels,
    emit_calibration,
    load_cases,
    write_jsonl,
)
from trailcheck.commands.output import stderr
from trailcheck.errors import EXIT_FAILED, InputError, UsageError
from trailcheck.judge.attribution import ATTRIBUTION_STRATEGIES, AttributionJudge
from trailcheck.judge.attribution_calibration import AttributionRun, calibrate_attribution
from trailcheck.judge.attribution_labels import (
    AttributionLabel,
    load_attribution_labels,
    who_and_when_labels,
)
from trailcheck.judge.attributors import (
    Attributor,
    DeterministicAttributor,
    ReplayAttributor,
    attribute_labelled,
)
from trailcheck.judge.figures import CalibrationOptions
from trailcheck.judge.replay import REPLAY_PREFIX
from trailcheck.judge.run_judge import load_items
from trailcheck.report.attribution_calibration_view import (
    attribution_calibration_json,
    render_attribution_calibration,
)
from trailcheck.specs.references import is_reference, resolve_reference

__all__ = ["build_attributor", "calibrate_attribution_command", "import_labels_command"]

ATTRIBUTION_JUDGE: Final = "attribution"
# The deterministic attributor (trailcheck.scorers.attribute), against each item's case.
DETERMINISTIC: Final = "deterministic"
LABEL_FORMATS: Final = ("who-and-when",)


def build_attributor(spec: str, models: JudgeModels) -> Attributor:
    """The attributor ``spec`` names (see the module)."""
    if spec.startswith(REPLAY_PREFIX):
        file = spec[len(REPLAY_PREFIX) :]
        if not file or not Path(file).is_file():
            raise InputError(f"{file or '(none)'}: no such file (attributor spec {spec!r})")
        return ReplayAttributor(Path(file))
    if spec == DETERMINISTIC:
        return DeterministicAttributor()
    name, _, strategy = spec.partition(":")
    if name == ATTRIBUTION_JUDGE:
        chosen = strategy or "step_by_step"
        if chosen not in ATTRIBUTION_STRATEGIES:
            known = ", ".join(ATTRIBUTION_STRATEGIES)
            raise UsageError(f"no attribution strategy {chosen!r} in {spec!r}; one of: {known}")
        return AttributionJudge(models.get(spec), strategy=chosen)
    if is_reference(spec):
        return _attributor_from_factory(spec)
    known = "deterministic, replay:FILE.jsonl, attribution, attribution:STRATEGY, MODULE:FACTORY"
    raise UsageError(f"{spec!r} cannot attribute failures: on attribution labels, one of {known}")


def _attributor_from_factory(reference: str) -> Attributor:
    factory = resolve_reference(reference, what="attributor factory")
    if not callable(factory):
        raise UsageError(f"attributor factory {reference!r} is not callable")
    attributor = factory()
    if not isinstance(attributor, Attributor):
        raise UsageError(
            f"attributor factory {reference!r} returned {type(attributor).__name__}, not an"
            " attributor (an object with a version, describe() and attribute(trace, case))"
        )
    return attributor


async def _attribute_all(
    attributors: Sequence[Attributor],
    labels: Sequence[AttributionLabel],
    request: CalibrateRequest,
    models: JudgeModels,
    cases: dict[str, Case],
) -> list[AttributionRun]:
    traces = request.traces or []
    if not traces and any(not isinstance(a, ReplayAttributor) for a in attributors):
        raise UsageError("an attributor reads the labelled traces: give --traces FILE")
    items = load_items(traces) if traces else {}
    try:
        runs = []
        for attributor in attributors:
            outcomes = await attribute_labelled(
                attributor, labels, items, cases, request.concurrency
            )
            runs.append(AttributionRun(attributor.version, attributor.describe(), outcomes))
        return runs
    finally:
        if models.model is not None:
            await models.model.aclose()


def calibrate_attribution_command(request: CalibrateRequest) -> None:
    """``trailcheck judge calibrate`` on attribution labels."""
    labels = load_attribution_labels(request.labels_path)
    models = JudgeModels(request.model, request.base_url, request.api_key_env)
    attributors = [build_attributor(request.judge_spec, models)]
    if request.candidate_spec is not None:
        attributors.append(build_attributor(request.candidate_spec, models))
    cases = load_cases(request.dataset)
    runs = asyncio.run(_attribute_all(attributors, labels, request, models, cases))
    if request.record is not None:
        write_jsonl(request.record, runs[0].outcomes)
    options = CalibrationOptions(seed=request.seed, validation_fraction=request.validation_fraction)
    report = calibrate_attribution(
        labels, runs[0], candidate=runs[1] if len(runs) > 1 else None, options=options
    )
    emit_calibration(
        request, attribution_calibration_json(report), render_attribution_calibration(report)
    )


def import_labels_command(request: ImportLabelsRequest) -> None:
    """The body of :func:`trailcheck.commands.judge.import_labels_command`."""
    if request.format_name not in LABEL_FORMATS:
        known = ", ".join(LABEL_FORMATS)
        raise UsageError(f"unknown labels format {request.format_name!r}; one of: {known}")
    for source in request.sources:
        if not source.is_file():
            raise InputError(f"{source}: no such file")
    imported = who_and_when_labels(request.sources)
    write_jsonl(request.out, imported.labels)
    if request.cases is not None:
        dataset = Dataset(
            name="who-and-when",
            description="The questions and reference answers of Who&When logs.",
            cases=imported.cases,
        )
        dump_dataset(dataset, request.cases)
    print_rejections(imported.rejections)
    written = f"{len(imported.labels)} attribution label(s) written to {request.out}"
    cases = f", {len(imported.cases)} case(s) to {request.cases}" if request.cases else ""
    stderr.print(f"{written}{cases}; {len(imported.rejections)} rejected", markup=False)
    if imported.rejections:
        raise typer.Exit(EXIT_FAILED)
