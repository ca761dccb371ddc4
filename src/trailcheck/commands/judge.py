"""``trailcheck judge ...``: measure a judge against human labels before a gate trusts it.

The options; what the commands do, and the judge specs they take, are in
:mod:`trailcheck.commands.judge_impl`, imported when one runs.
"""

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["judge_app"]

judge_app = typer.Typer(help="Judges: calibrate them against human labels.", no_args_is_help=True)


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
    from trailcheck.commands.judge_impl import calibrate_command as calibrate

    calibrate(
        labels_path=labels_path,
        judge_spec=judge_spec,
        candidate_spec=candidate_spec,
        traces=traces,
        model=model,
        base_url=base_url,
        api_key_env=api_key_env,
        concurrency=concurrency,
        seed=seed,
        validation_fraction=validation_fraction,
        as_json=as_json,
        out=out,
    )


@judge_app.command("lint")
def lint_command(
    dataset_path: Annotated[Path, typer.Argument(help="The dataset file whose rubrics to check.")],
) -> None:
    """Flag rubrics a judge cannot apply well: knowledge rubrics (they assert a fact, which
    belongs in a reference answer) and rubrics without an explicit criterion.

    Exit 0 when every rubric is fine, 1 when one is flagged, 2 for an input error.
    """
    from trailcheck.commands.judge_impl import lint_command as lint

    lint(dataset_path)
