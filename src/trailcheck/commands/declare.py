"""How a command is declared: its options once, as the fields of a request, and its help in
markdown.

A command's options are the fields of one ``typing.NamedTuple`` (its *request*), each annotated
with its ``typer.Option`` or ``typer.Argument``; :func:`command` turns a function taking that
request into the typer command whose parameters *are* those fields, and which hands the function
one request built from what typer parsed. The ``*_impl`` module then takes the same request, so
an option is named, typed, defaulted and documented in one place::

    class ReportRequest(NamedTuple):
        report_path: Annotated[Path, typer.Argument(metavar="REPORT", help="...")]
        seed: Annotated[int, typer.Option(metavar="N", help="...")] = 0

    @command(ReportRequest)
    def report_command(request: ReportRequest) -> None:
        # The docstring here is the command's help.
        implementation("trailcheck.commands.report_impl:report_command", ReportRequest)(request)

The body is named, and imported by :func:`implementation` when the command runs: its module
imports the request from the command's module, and an import statement back (even one inside
the function) would make the two a circle, which ``lint-imports`` refuses.

A request is a ``NamedTuple`` rather than a frozen dataclass for the start-up rule of
:mod:`trailcheck.cli`: every request is built at each start, ``--help`` and ``--version``
included, and a frozen dataclass costs five times a ``NamedTuple`` to build.

Every app is a :func:`new_app` and every command is registered with ``cls=Command``: help in
markdown (a paragraph's lines joined, `` `code` `` rendered), and flags shown without a type
(typer 0.29 shows ``<bool>`` beside every flag that has no metavar, ``--help`` included).
"""

import importlib
import inspect
from collections.abc import Callable
from typing import Any, Final, ForwardRef, TypeVar

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

from trailcheck.commands.help_imports import import_rich_utils

__all__ = [
    "MARKUP_MODE",
    "Command",
    "Group",
    "command",
    "command_in_context",
    "implementation",
    "new_app",
]

MARKUP_MODE: Final = "markdown"

RequestT = TypeVar("RequestT")


def _untyped_flags(params: list[Any]) -> list[Any]:
    """``params``, each flag without a metavar given the empty one: typer shows a flag's metavar
    in place of its type, and a flag takes no value to describe."""
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""
    return params


class Command(TyperCommand):
    """A command whose flags show no type in its help, printed without the modules help never
    uses (:mod:`trailcheck.commands.help_imports`)."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped_flags(super().get_params(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        import_rich_utils()
        super().format_help(ctx, formatter)


class Group(TyperGroup):
    """A group whose flags (``--help``, ``--version``) show no type in its help, printed
    without the modules help never uses (:mod:`trailcheck.commands.help_imports`)."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped_flags(super().get_params(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        import_rich_utils()
        super().format_help(ctx, formatter)


def new_app(help_text: str, /, **settings: Any) -> typer.Typer:
    """A typer app (a command group) with markdown help and untyped flags; ``settings`` are
    ``typer.Typer``'s."""
    return typer.Typer(help=help_text, cls=Group, rich_markup_mode=MARKUP_MODE, **settings)


def command(
    request: Callable[..., RequestT],
) -> Callable[[Callable[[RequestT], None]], Callable[..., None]]:
    """The typer command for ``body``: its parameters are the fields of ``request``, its help is
    ``body``'s docstring, and it calls ``body`` with the request built from them."""
    fields = _fields(request)

    def declare(body: Callable[[RequestT], None]) -> Callable[..., None]:
        def invoked(**options: Any) -> None:
            body(request(**options))

        return _presented(invoked, body, fields)

    return declare


def command_in_context(
    request: Callable[..., RequestT],
) -> Callable[[Callable[[typer.Context, RequestT], None]], Callable[..., None]]:
    """:func:`command` for a body that also takes typer's context (a group's callback, which
    asks whether a subcommand was invoked)."""
    fields = _fields(request)

    def declare(body: Callable[[typer.Context, RequestT], None]) -> Callable[..., None]:
        def invoked(context: typer.Context, **options: Any) -> None:
            body(context, request(**options))

        context = inspect.Parameter(
            "context", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context
        )
        return _presented(invoked, body, [context, *fields])

    return declare


def implementation(reference: str, request: Callable[..., RequestT]) -> Callable[[RequestT], None]:
    """The function ``reference`` names (``module:function``), imported now: the body of a
    command, which takes ``request``."""
    module, _, name = reference.partition(":")
    body: Callable[[RequestT], None] = getattr(importlib.import_module(module), name)
    return body


def _fields(request: Callable[..., object]) -> list[inspect.Parameter]:
    """The request's fields as parameters: name, annotation (with its typer declaration) and
    default, in order."""
    fields = list(inspect.signature(request).parameters.values())
    if any(isinstance(field.annotation, str | ForwardRef) for field in fields):
        raise TypeError(
            f"{request}: its annotations are not evaluated; a request's module leaves out"
            " `from __future__ import annotations`, or typer would not see its options"
        )
    return fields


def _presented(
    invoked: Callable[..., None], body: Callable[..., None], parameters: list[inspect.Parameter]
) -> Callable[..., None]:
    """``invoked`` as typer reads it: ``parameters`` as its signature and annotations, and the
    name and docstring of ``body`` (which ``__wrapped__`` keeps, for the test that checks each
    command's parameters against its request)."""
    signature = inspect.Signature(parameters, return_annotation=None)
    invoked.__signature__ = signature  # type: ignore[attr-defined]
    annotations = {parameter.name: parameter.annotation for parameter in parameters}
    invoked.__annotations__ = {**annotations, "return": None}
    invoked.__name__ = body.__name__
    invoked.__qualname__ = body.__qualname__
    invoked.__module__ = body.__module__
    invoked.__doc__ = body.__doc__
    invoked.__wrapped__ = body  # type: ignore[attr-defined]
    return invoked
