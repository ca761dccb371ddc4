"""Each command declares its options once: the command's parameters are the fields of its
request, in order, and the body it names takes that request.

No ``from __future__ import annotations`` here: a request's annotations carry its options.
"""

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, NamedTuple, get_type_hints

import pytest
import typer
from typer.testing import CliRunner

import trailcheck.commands
from trailcheck.cli import app
from trailcheck.commands.declare import Command, command, implementation, new_app

# Commands that take no options: the schemas.
WITHOUT_REQUEST = {
    ("schema", "trace"),
    ("schema", "dataset"),
    ("schema", "report"),
    ("schema", "online"),
}


def _declared(app_: typer.Typer, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Each command's path and the function it was declared with; a group's callback too."""
    if path and app_.registered_callback is not None:
        yield path, app_.registered_callback.callback
    for info in app_.registered_commands:
        assert info.name is not None
        yield (*path, info.name), info.callback
    for group in app_.registered_groups:
        assert group.name is not None
        assert group.typer_instance is not None
        yield from _declared(group.typer_instance, (*path, group.name))


DECLARED = [
    (path, function) for path, function in _declared(app, ()) if path not in WITHOUT_REQUEST
]


def _name(value: object) -> str:
    return " ".join(value) if isinstance(value, tuple) else ""


@pytest.mark.parametrize(("path", "function"), DECLARED, ids=_name)
def test_a_commands_parameters_are_its_requests_fields(
    path: tuple[str, ...], function: Any
) -> None:
    body = function.__wrapped__
    request = get_type_hints(body)["request"]
    assert issubclass(request, tuple)
    assert request.__module__ == body.__module__
    parameters = list(inspect.signature(function).parameters)
    context = ["context"] if parameters[:1] == ["context"] else []
    assert parameters == [*context, *request._fields]
    click_command: Any = typer.main.get_command(app)
    for name in path:
        click_command = click_command.commands[name]
    names = [param.name for param in click_command.params]
    assert names == list(request._fields)


def test_every_command_with_options_has_a_request() -> None:
    exempt = [path for path, _ in _declared(app, ()) if path in WITHOUT_REQUEST]
    assert sorted(exempt) == sorted(WITHOUT_REQUEST)
    for path in WITHOUT_REQUEST - {("serve",)}:
        function = dict(_declared(app, ()))[path]
        assert list(inspect.signature(function).parameters) == [], path


def _named_bodies() -> Iterator[tuple[str, str, str]]:
    """Every ``implementation("module:function", Request)`` in the commands' modules."""
    folder = Path(trailcheck.commands.__file__).parent
    for module in pkgutil.iter_modules([str(folder)]):
        tree = ast.parse((folder / f"{module.name}.py").read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "implementation"
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[1], ast.Name)
            ):
                reference = node.args[0].value
                assert isinstance(reference, str)
                yield f"trailcheck.commands.{module.name}", reference, node.args[1].id


NAMED_BODIES = list(_named_bodies())


@pytest.mark.parametrize(("module", "reference", "request_name"), NAMED_BODIES, ids=_name)
def test_each_named_body_takes_the_request_of_its_command(
    module: str, reference: str, request_name: str
) -> None:
    request = getattr(importlib.import_module(module), request_name)
    body = implementation(reference, request)
    (parameter,) = inspect.signature(body).parameters.values()
    assert get_type_hints(body)[parameter.name] is request


def test_every_declared_command_names_its_body() -> None:
    named = {(module, request) for module, _, request in NAMED_BODIES}
    for _, function in DECLARED:
        request = get_type_hints(function.__wrapped__)["request"]
        assert (request.__module__, request.__name__) in named


class _Request(NamedTuple):
    name: Annotated[str, typer.Argument(help="A name.")]
    times: Annotated[int, typer.Option("-n", min=1, help="How often.")] = 1
    loud: Annotated[bool, typer.Option("--loud", help="Shout.")] = False


def test_a_request_whose_annotations_are_not_evaluated_is_refused() -> None:
    class Request(NamedTuple):
        name: "str"

    with pytest.raises(TypeError, match="from __future__ import annotations"):
        command(Request)


def test_the_body_gets_one_request_built_from_what_typer_parsed() -> None:
    received: list[_Request] = []

    @command(_Request)
    def greet(request: _Request) -> None:
        """Greet."""
        received.append(request)

    app_ = new_app("Greetings.")
    app_.command("greet", cls=Command)(greet)
    app_.command("other", cls=Command)(lambda: None)
    result = CliRunner().invoke(app_, ["greet", "ada", "-n", "2", "--loud"])
    assert result.exit_code == 0, result.output
    assert received == [_Request(name="ada", times=2, loud=True)]
    assert greet.__doc__ == "Greet."
    help_text = CliRunner().invoke(app_, ["greet", "--help"]).output
    assert "<bool>" not in help_text
