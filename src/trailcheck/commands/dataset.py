"""``trailcheck dataset import``: a suite written for another tool as a trailcheck dataset file;
``dataset draft``: candidate cases drafted by a model from tool schemas and a policy; ``dataset
coverage``: which tools and policy clauses have approved cases.

The options, declared once in each command's request; what the commands do is in
:mod:`trailcheck.commands.dataset_impl` and :mod:`trailcheck.commands.dataset_draft_impl`,
imported when one runs. ``dataset draft`` exits 0 when every clause got an answer (drafts the
reference path rejected included), 1 when the model gave no usable answer for some clause, 2 for
usage or input errors. At length: ``docs/drafting.md``.
"""

import enum
from pathlib import Path
from typing import Annotated, Final, Literal, NamedTuple

import typer

from trailcheck.commands.declare import Command, command, implementation, new_app

__all__ = [
    "DEFAULT_MAX_TURNS",
    "DRAFT_SIMILARITY",
    "DatasetCoverageRequest",
    "DatasetDraftRequest",
    "DatasetImportRequest",
    "ScenarioName",
    "SuiteFormat",
    "dataset_app",
]

SuiteFormat = Literal["adk", "tau-bench"]
"""The suites ``dataset import`` reads: Google ADK evalsets, tau-bench tasks."""


class ScenarioName(enum.StrEnum):
    """:data:`trailcheck.drafting.SCENARIO_KINDS`, in its order, for ``--scenario`` (typer takes
    a list of an enum, not of a ``Literal``)."""

    HAPPY_PATH = "happy_path"
    MISSING_IDENTITY_CHECK = "missing_identity_check"
    WRONG_PERMISSIONS = "wrong_permissions"
    STALE_RESULT = "stale_result"
    AMBIGUOUS_DATE = "ambiguous_date"
    RATE_LIMIT_RETRY = "rate_limit_retry"
    CONTRADICTING_TOOL_OUTPUTS = "contradicting_tool_outputs"


DRAFT_SIMILARITY: Final = 0.8
""":data:`trailcheck.drafting.DEFAULT_SIMILARITY`, the default of ``--similarity``."""

DEFAULT_MAX_TURNS = 30
"""The library's ``trailcheck.cases.importers.tau_user.DEFAULT_MAX_TURNS``, spelled out here so
that printing the help imports no implementation (a test keeps the two equal)."""

dataset_app = new_app(
    "Dataset files: import suites written for other tools, draft cases, see their coverage."
)

ToolsOption = Annotated[
    Path | None,
    typer.Option(
        "--tools",
        metavar="FILE",
        help="The tools' declarations (YAML or JSON; default: the environment's own tools).",
    ),
]
PolicyOption = Annotated[
    Path | None,
    typer.Option("--policy", metavar="FILE", help="The policy, in Markdown: one clause an item."),
]


class DatasetImportRequest(NamedTuple):
    """What ``trailcheck dataset import`` was asked."""

    sources: Annotated[
        list[Path],
        typer.Argument(metavar="SOURCES", help="Evalset files or folders; task files."),
    ]
    suite_format: Annotated[
        SuiteFormat,
        typer.Option("--format", help="adk: Google ADK evalsets; tau-bench: tau-bench tasks."),
    ]
    out: Annotated[
        Path, typer.Option("-o", "--out", metavar="FILE", help="The dataset file to write.")
    ]
    tools_info: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", help="tau-bench: the domain's tool schemas (`*_tools_info.json`)."
        ),
    ] = None
    config: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", help="adk: the criteria file (default: `test_config.json` beside)."
        ),
    ] = None
    num_runs: Annotated[
        int, typer.Option(min=1, metavar="N", help="adk: how many times ADK runs each case.")
    ] = 1
    max_turns: Annotated[
        int,
        typer.Option(
            min=1, max=200, metavar="N", help="tau-bench: the most turns a simulated user speaks."
        ),
    ] = DEFAULT_MAX_TURNS
    instruction_as_input: Annotated[
        bool,
        typer.Option(
            "--instruction-as-input",
            help="tau-bench: the instruction as the case input, for a run with no simulated user.",
        ),
    ] = False


@dataset_app.command("import", cls=Command)
@command(DatasetImportRequest)
def import_command(request: DatasetImportRequest) -> None:
    """Convert a foreign suite; what could not be mapped, and the source's own traps, are
    reported one line each. Imported cases are candidates: a person reviews them."""
    implementation("trailcheck.commands.dataset_impl:import_command", DatasetImportRequest)(request)


class DatasetDraftRequest(NamedTuple):
    """What ``trailcheck dataset draft`` was asked."""

    policy: Annotated[
        Path,
        typer.Option(
            "--policy", metavar="FILE", help="The policy, in Markdown: one clause an item."
        ),
    ]
    out: Annotated[
        Path,
        typer.Option(
            "-o", "--out", metavar="FILE", help="The dataset file the drafts are added to."
        ),
    ]
    tools: ToolsOption = None
    env: Annotated[
        str | None,
        typer.Option(
            "--env",
            "--environment",
            metavar="MODULE:FACTORY",
            help="The environment the reference path replays each draft in.",
        ),
    ] = None
    model: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="The model that drafts (OpenAI-compatible API)."),
    ] = None
    base_url: Annotated[
        str | None, typer.Option(metavar="URL", help="The OpenAI-compatible endpoint of `--model`.")
    ] = None
    api_key_env: Annotated[
        str, typer.Option(metavar="VAR", help="The environment variable holding the API key.")
    ] = "OPENAI_API_KEY"
    scenarios: Annotated[
        list[ScenarioName] | None,
        typer.Option("--scenario", help="Only this kind of scenario (repeatable; default: all)."),
    ] = None
    datasets: Annotated[
        list[Path] | None,
        typer.Option(
            "--dataset",
            metavar="FILE",
            help="Cases already there, for near-duplicates and coverage (repeatable).",
        ),
    ] = None
    similarity: Annotated[
        float,
        typer.Option(
            metavar="RATIO", help="How alike two inputs with one call signature are to be flagged."
        ),
    ] = DRAFT_SIMILARITY
    seed: Annotated[int, typer.Option(metavar="N", help="The reference path's seed.")] = 0


@dataset_app.command("draft", cls=Command)
@command(DatasetDraftRequest)
def draft_command(request: DatasetDraftRequest) -> None:
    """Draft candidate cases for each policy clause; each is replayed by the oracle (rejected
    with why when its calls or state cannot be reached) and waits for `trailcheck review`."""
    implementation("trailcheck.commands.dataset_draft_impl:draft_command", DatasetDraftRequest)(
        request
    )


class DatasetCoverageRequest(NamedTuple):
    """What ``trailcheck dataset coverage`` was asked."""

    dataset_paths: Annotated[
        list[Path], typer.Argument(metavar="DATASETS", help="Dataset files (YAML or JSON).")
    ]
    tools: ToolsOption = None
    policy: PolicyOption = None
    as_json: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False


@dataset_app.command("coverage", cls=Command)
@command(DatasetCoverageRequest)
def coverage_command(request: DatasetCoverageRequest) -> None:
    """Which tools and policy clauses have approved cases, and how many wait in review."""
    implementation(
        "trailcheck.commands.dataset_draft_impl:coverage_command", DatasetCoverageRequest
    )(request)
