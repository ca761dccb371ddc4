"""``trailcheck detect``, ``clusters``, ``promote`` and ``review``: the improvement loop's
commands.

The options, declared once in the commands' requests; what the commands do is in
:mod:`trailcheck.commands.loop_impl`, imported when one runs. Exit codes: 0 done; 1 ``clusters``
found a cluster whose regression case did not generalise; 2 usage or input errors (a bad rule
file, an unknown cluster or case). At length: ``docs/loop.md``.
"""

from pathlib import Path
from typing import Annotated, Final, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation
from trailcheck.commands.executor_options import AddressOption, ExecutorOption, NumCpusOption
from trailcheck.commands.options import DbOption

__all__ = [
    "ClustersRequest",
    "DetectRequest",
    "PromoteRequest",
    "ReviewRequest",
    "clusters_command",
    "detect_command",
    "promote_command",
    "review_command",
]

DEFAULT_CANDIDATES = Path("candidates.yaml")
SIMILARITY_THRESHOLD: Final = 0.5
""":data:`trailcheck.loop.SIMILARITY_THRESHOLD`, the default of ``--threshold``."""

RulesOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--rules", metavar="FILE", help="A YAML rule file, beside the built-in rules (repeatable)."
    ),
]


class DetectRequest(NamedTuple):
    """What ``trailcheck detect`` was asked."""

    db: DbOption = None
    rules: RulesOption = None
    builtin: Annotated[
        bool, typer.Option("--builtin/--no-builtin", help="Run the built-in rules too.")
    ] = True
    as_json: Annotated[bool, typer.Option("--json", help="Print each finding as JSON.")] = False
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            metavar="N",
            help="Processes running the rules (default: every core); the findings are the same.",
        ),
    ] = None
    executor: ExecutorOption = "local"
    address: AddressOption = None
    num_cpus: NumCpusOption = None


@command(DetectRequest)
def detect_command(request: DetectRequest) -> None:
    """Label the stored traces with the rules' failure modes, and keep the findings."""
    implementation("trailcheck.commands.loop_impl:detect_command", DetectRequest)(request)


class ClustersRequest(NamedTuple):
    """What ``trailcheck clusters`` was asked."""

    db: DbOption = None
    label: Annotated[
        str | None, typer.Option("--label", metavar="LABEL", help="Only this label.")
    ] = None
    threshold: Annotated[
        float,
        typer.Option(
            metavar="COSINE", help="The least TF-IDF cosine of two inputs in one cluster."
        ),
    ] = SIMILARITY_THRESHOLD
    as_json: Annotated[bool, typer.Option("--json", help="Print the clusters as JSON.")] = False


@command(ClustersRequest)
def clusters_command(request: ClustersRequest) -> None:
    """Cluster the stored findings; flag clusters that grew after their case was approved."""
    implementation("trailcheck.commands.loop_impl:clusters_command", ClustersRequest)(request)


class PromoteRequest(NamedTuple):
    """What ``trailcheck promote`` was asked."""

    cluster_id: Annotated[
        str, typer.Argument(metavar="CLUSTER", help="The cluster to promote (see `clusters`).")
    ]
    dataset: Annotated[
        Path,
        typer.Option(
            "--dataset", metavar="FILE", help="The dataset file the candidate is added to."
        ),
    ] = DEFAULT_CANDIDATES
    db: DbOption = None
    rules: RulesOption = None


@command(PromoteRequest)
def promote_command(request: PromoteRequest) -> None:
    """Write a candidate case from a cluster's representative trace, redacted, for review."""
    implementation("trailcheck.commands.loop_impl:promote_command", PromoteRequest)(request)


class ReviewRequest(NamedTuple):
    """What ``trailcheck review`` was asked."""

    dataset_path: Annotated[
        Path, typer.Argument(metavar="DATASET", help="The dataset file with the candidates.")
    ]
    approve: Annotated[
        str | None, typer.Option("--approve", metavar="CASE", help="Approve this case.")
    ] = None
    reject: Annotated[
        str | None, typer.Option("--reject", metavar="CASE", help="Reject this case.")
    ] = None
    reviewer: Annotated[
        str | None, typer.Option("--reviewer", metavar="NAME", help="Your name.")
    ] = None
    reason: Annotated[
        str | None, typer.Option("--reason", metavar="TEXT", help="Why it is rejected.")
    ] = None
    db: DbOption = None


@command(ReviewRequest)
def review_command(request: ReviewRequest) -> None:
    """Review candidates: interactively, or `--approve CASE --reviewer NAME` / `--reject CASE`."""
    implementation("trailcheck.commands.loop_impl:review_command", ReviewRequest)(request)
