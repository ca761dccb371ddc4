"""``trailcheck judge ...``: measure a judge against human labels before a gate trusts it.

The options, declared once in :class:`CalibrateRequest` and :class:`LintRequest`; what the
commands do, and the judge specs they take, are in :mod:`trailcheck.commands.judge_impl`,
imported when one runs. At length: ``docs/judges.md``.
"""

from pathlib import Path
from typing import Annotated, Final, NamedTuple

import typer

from trailcheck.commands.declare import Command, command, implementation, new_app

__all__ = ["CalibrateRequest", "ImportLabelsRequest", "LintRequest", "judge_app"]

judge_app = new_app("Judges: calibrate them against human labels.", no_args_is_help=True)

JUDGES: Final = "Judges"
MODEL: Final = "Model"
STATISTICS: Final = "Statistics"
OUTPUT: Final = "Output"

SPEC_FORMS = (
    "`replay:FILE.jsonl`, `rubric`, `groundedness`, `reference`, `attribution[:STRATEGY]`"
    " (for attribution labels) or `MODULE:FACTORY`"
)


class CalibrateRequest(NamedTuple):
    """What ``trailcheck judge calibrate`` was asked."""

    labels_path: Annotated[
        Path, typer.Option("--labels", metavar="FILE", help="Human labels (JSONL).")
    ]
    judge_spec: Annotated[
        str,
        typer.Option(
            "--judge", metavar="SPEC", rich_help_panel=JUDGES, help=f"The judge: {SPEC_FORMS}."
        ),
    ]
    candidate_spec: Annotated[
        str | None,
        typer.Option(
            "--candidate",
            metavar="SPEC",
            rich_help_panel=JUDGES,
            help="A second judge to compare, in the same forms.",
        ),
    ] = None
    traces: Annotated[
        list[Path] | None,
        typer.Option(
            "--traces",
            metavar="FILE",
            rich_help_panel=JUDGES,
            help="Trace files holding the labelled items (repeatable).",
        ),
    ] = None
    dataset: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            rich_help_panel=JUDGES,
            help="Cases of the labelled items (by id, or a trace's case_id), shown to the judge.",
        ),
    ] = None
    record: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            rich_help_panel=OUTPUT,
            help="Write the judge's verdicts or attributions here (JSONL), for replay:FILE.",
        ),
    ] = None
    model: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            rich_help_panel=MODEL,
            help="The model of the model judges (OpenAI API).",
        ),
    ] = None
    base_url: Annotated[
        str | None,
        typer.Option(metavar="URL", rich_help_panel=MODEL, help="The OpenAI-compatible endpoint."),
    ] = None
    api_key_env: Annotated[
        str,
        typer.Option(
            metavar="VAR",
            rich_help_panel=MODEL,
            help="The environment variable holding the API key.",
        ),
    ] = "OPENAI_API_KEY"
    concurrency: Annotated[
        int, typer.Option(min=1, metavar="N", rich_help_panel=MODEL, help="Judgings at once.")
    ] = 4
    seed: Annotated[
        int,
        typer.Option(metavar="N", rich_help_panel=STATISTICS, help="Seed of the kappa bootstrap."),
    ] = 0
    validation_fraction: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            metavar="FRACTION",
            rich_help_panel=STATISTICS,
            help="The share of unsplit items held out for validation.",
        ),
    ] = 0.3
    as_json: Annotated[
        bool, typer.Option("--json", rich_help_panel=OUTPUT, help="Print the report as JSON.")
    ] = False
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", rich_help_panel=OUTPUT, help="Also write the report (JSON) here."
        ),
    ] = None


@judge_app.command("calibrate", cls=Command)
@command(CalibrateRequest)
def calibrate_command(request: CalibrateRequest) -> None:
    """Judge (or replay) every labelled item and report agreement with the labels: confusion,
    kappa, false-pass and false-fail rates, per split, and a candidate judge beside it. On
    attribution labels: step-level and agent-level accuracy, and two attributors' agreement.

    Exit 0 when computed, 2 for a usage or input error.
    """
    implementation("trailcheck.commands.judge_impl:calibrate_command", CalibrateRequest)(request)


class ImportLabelsRequest(NamedTuple):
    """What ``trailcheck judge import-labels`` was asked."""

    sources: Annotated[
        list[Path], typer.Argument(metavar="FILES", help="Labelled logs (Who&When JSON files).")
    ]
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", metavar="FILE", help="The attribution labels (JSONL) to write."
        ),
    ]
    cases: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="Also write a dataset (YAML or JSON): each log's question and reference answer.",
        ),
    ] = None
    format_name: Annotated[
        str, typer.Option("--format", metavar="NAME", help="The logs' format: `who-and-when`.")
    ] = "who-and-when"


@judge_app.command("import-labels", cls=Command)
@command(ImportLabelsRequest)
def import_labels_command(request: ImportLabelsRequest) -> None:
    """Make attribution labels of published, labelled failure logs (Who&When), to calibrate
    an attributor on them; their traces import with `trailcheck import`.

    Exit 0 when every log was read, 1 when some were rejected, 2 for a usage or input error.
    """
    implementation(
        "trailcheck.commands.judge_attribution_impl:import_labels_command", ImportLabelsRequest
    )(request)


class LintRequest(NamedTuple):
    """What ``trailcheck judge lint`` was asked."""

    dataset_path: Annotated[
        Path,
        typer.Argument(metavar="DATASET", help="The dataset file whose rubrics to check."),
    ]


@judge_app.command("lint", cls=Command)
@command(LintRequest)
def lint_command(request: LintRequest) -> None:
    """Flag rubrics a judge cannot apply well: knowledge rubrics (they assert a fact, which
    belongs in a reference answer) and rubrics without an explicit criterion.

    Exit 0 when every rubric is fine, 1 when one is flagged, 2 for an input error.
    """
    implementation("trailcheck.commands.judge_impl:lint_command", LintRequest)(request)
