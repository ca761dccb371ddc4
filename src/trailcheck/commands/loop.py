"""``trailcheck detect``, ``clusters``, ``promote`` and ``review``: the improvement loop's
commands.

The options; what the commands do is in :mod:`trailcheck.commands.loop_impl`, imported when one
runs. Exit codes: 0 done; 1 ``clusters`` found a cluster whose regression case did not
generalise; 2 usage or input errors (a bad rule file, an unknown cluster or case).
"""

from pathlib import Path
from typing import Annotated, Final

import typer

from trailcheck.commands.executor_options import AddressOption, ExecutorOption, NumCpusOption
from trailcheck.commands.options import DbOption

__all__ = ["clusters_command", "detect_command", "promote_command", "review_command"]

DEFAULT_CANDIDATES = Path("candidates.yaml")
SIMILARITY_THRESHOLD: Final = 0.5
""":data:`trailcheck.loop.SIMILARITY_THRESHOLD`, the default of ``--threshold``."""

RulesOption = Annotated[
    list[Path] | None,
    typer.Option("--rules", help="A YAML rule file, beside the built-in rules (repeatable)."),
]


def detect_command(
    db: DbOption = None,
    rules: RulesOption = None,
    builtin: Annotated[
        bool, typer.Option("--builtin/--no-builtin", help="Run the built-in rules too.")
    ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print each finding as JSON.")] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Processes running the rules (default: every core; 1 runs them in this"
            " process). The findings and their order are the same. With --executor ray: Ray"
            " tasks at once (default: the cluster's CPUs).",
        ),
    ] = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    num_cpus: NumCpusOption = None,
) -> None:
    """Label the stored traces with the rules' failure modes, and keep the findings."""
    from trailcheck.commands.loop_impl import detect_command as body

    body(
        db=db,
        rules=rules,
        builtin=builtin,
        as_json=as_json,
        workers=workers,
        executor=executor,
        address=address,
        num_cpus=num_cpus,
    )


def clusters_command(
    db: DbOption = None,
    label: Annotated[str | None, typer.Option("--label", help="Only this label.")] = None,
    threshold: Annotated[
        float, typer.Option(help="Least TF-IDF cosine of two inputs in one cluster.")
    ] = SIMILARITY_THRESHOLD,
    as_json: Annotated[bool, typer.Option("--json", help="Print the clusters as JSON.")] = False,
) -> None:
    """Cluster the stored findings; flag clusters that grew after their case was approved."""
    from trailcheck.commands.loop_impl import clusters_command as body

    body(db=db, label=label, threshold=threshold, as_json=as_json)


def promote_command(
    cluster_id: Annotated[str, typer.Argument(help="The cluster to promote (see 'clusters').")],
    dataset: Annotated[
        Path, typer.Option("--dataset", help="The dataset file the candidate is added to.")
    ] = DEFAULT_CANDIDATES,
    db: DbOption = None,
    rules: RulesOption = None,
) -> None:
    """Write a candidate case from a cluster's representative trace, redacted, for review."""
    from trailcheck.commands.loop_impl import promote_command as body

    body(cluster_id=cluster_id, dataset=dataset, db=db, rules=rules)


def review_command(
    dataset_path: Annotated[Path, typer.Argument(help="The dataset file with the candidates.")],
    approve: Annotated[str | None, typer.Option("--approve", help="Approve this case.")] = None,
    reject: Annotated[str | None, typer.Option("--reject", help="Reject this case.")] = None,
    reviewer: Annotated[str | None, typer.Option("--reviewer", help="Your name.")] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Why it is rejected.")] = None,
    db: DbOption = None,
) -> None:
    """Review candidates: interactively, or --approve ID --reviewer NAME / --reject ID."""
    from trailcheck.commands.loop_impl import review_command as body

    body(
        dataset_path=dataset_path,
        approve=approve,
        reject=reject,
        reviewer=reviewer,
        reason=reason,
        db=db,
    )
