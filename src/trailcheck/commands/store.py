"""``trailcheck store``: the store's upkeep. ``prune`` deletes the traces past an age that nothing
holds (a case's sources, a run's traces, and unless asked the traces a person noted or
labelled), ``delete`` deletes every trace of a session, a user or a trace id on request, and
``deletions`` lists the log of both. The logic is the store's (:mod:`trailcheck.store.retention`,
:mod:`trailcheck.store.erasure`); both say what they deleted, per table, and ``--dry-run``
deletes nothing and says the same.

The options, declared once in the commands' requests; what the commands do is in
:mod:`trailcheck.commands.store_impl`, imported when one runs. At length: ``docs/store.md``.
"""

from pathlib import Path
from typing import Annotated, Final, NamedTuple

import typer

from trailcheck.commands.declare import Command, command, implementation, new_app
from trailcheck.commands.options import DbOption, JsonOption

__all__ = [
    "DEFAULT_USER_KEYS",
    "DeleteRequest",
    "DeletionsRequest",
    "PruneRequest",
    "store_app",
]

DEFAULT_USER_KEYS: Final = ("user.id", "enduser.id", "user_id", "user")
""":data:`trailcheck.store.DEFAULT_USER_KEYS`, spelled out so that --help needs no store."""

KEPT_PANEL: Final = "Kept past the age"

store_app = new_app(
    "The store's upkeep: prune traces past an age, delete a session's or user's traces.",
    no_args_is_help=True,
)

DryRunOption = Annotated[
    bool, typer.Option("--dry-run", help="Delete nothing; say what would be deleted.")
]


class PruneRequest(NamedTuple):
    """What ``trailcheck store prune`` was asked."""

    older_than: Annotated[
        str,
        typer.Option(
            "--older-than",
            metavar="AGE",
            help="Delete the traces that started longer ago than this (`30d`, `12h`, `2w`).",
        ),
    ]
    keep_labelled: Annotated[
        bool,
        typer.Option(
            "--keep-labelled/--prune-labelled",
            rich_help_panel=KEPT_PANEL,
            help="Keep the traces a person noted or labelled (the default), or prune them too.",
        ),
    ] = True
    datasets: Annotated[
        list[Path] | None,
        typer.Option(
            "--keep-dataset",
            rich_help_panel=KEPT_PANEL,
            metavar="FILE",
            help="Also keep the sources of this dataset file's candidate and approved cases.",
        ),
    ] = None
    reports: Annotated[
        list[Path] | None,
        typer.Option(
            "--keep-report",
            rich_help_panel=KEPT_PANEL,
            metavar="FILE",
            help="Also keep the traces this run report's trials name.",
        ),
    ] = None
    batch_size: Annotated[
        int,
        typer.Option("--batch-size", min=1, metavar="N", help="Traces deleted per transaction."),
    ] = 500
    dry_run: DryRunOption = False
    db: DbOption = None
    as_json: JsonOption = False


class DeleteRequest(NamedTuple):
    """What ``trailcheck store delete`` was asked."""

    session: Annotated[
        str | None,
        typer.Option("--session", metavar="ID", help="Delete every trace of this session."),
    ] = None
    user: Annotated[
        str | None,
        typer.Option("--user", metavar="ID", help="Delete every trace of this user."),
    ] = None
    trace: Annotated[
        str | None,
        typer.Option("--trace", metavar="ID", help="Delete this trace."),
    ] = None
    user_keys: Annotated[
        list[str] | None,
        typer.Option(
            "--user-attribute",
            metavar="KEY",
            help="Where `--user` looks, in place of `user.id`, `enduser.id`, `user_id`, `user`.",
        ),
    ] = None
    datasets: Annotated[
        list[Path] | None,
        typer.Option(
            "--dataset",
            metavar="FILE",
            help="Flag this dataset file's cases that cite a deleted trace, in the file.",
        ),
    ] = None
    redact: Annotated[
        str | None,
        typer.Option(
            "--redact",
            metavar="FILE",
            help="The redaction rules the store was written with: the id is looked for hashed too.",
        ),
    ] = None
    dry_run: DryRunOption = False
    db: DbOption = None
    as_json: JsonOption = False


class DeletionsRequest(NamedTuple):
    """What ``trailcheck store deletions`` was asked."""

    limit: Annotated[
        int | None,
        typer.Option("--limit", min=1, metavar="N", help="At most this many, newest first."),
    ] = None
    db: DbOption = None
    as_json: JsonOption = False


@store_app.command("prune", cls=Command)
@command(PruneRequest)
def store_prune(request: PruneRequest) -> None:
    """Delete the stored traces older than an age, with their spans, findings, notes and scores,
    a batch per transaction (ingest goes on beside it). Kept: the sources of candidate and
    approved cases, traces a run references, and unless `--prune-labelled` the traces a person
    noted or labelled. Says what it deleted per table and what it kept and why."""
    implementation("trailcheck.commands.store_impl:store_prune", PruneRequest)(request)


@store_app.command("delete", cls=Command)
@command(DeleteRequest)
def store_delete(request: DeleteRequest) -> None:
    """Delete every stored trace of a session, a user or one trace id, with every row it owns,
    whatever holds it; says what went per table and which cases cite a deleted trace (they keep
    their redacted copy). Logged without the id."""
    implementation("trailcheck.commands.store_impl:store_delete", DeleteRequest)(request)


@store_app.command("deletions", cls=Command)
@command(DeletionsRequest)
def store_deletions(request: DeletionsRequest) -> None:
    """List the log of prunes and deletions, newest first: what chose the traces, when, and how
    many rows of each table went."""
    implementation("trailcheck.commands.store_impl:store_deletions", DeletionsRequest)(request)
