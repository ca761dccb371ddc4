"""Every command's help reads well at 80 columns: nothing cut short, no RST markup, no type
beside a flag, a docstring's paragraph shown as one; ``trailcheck --help`` lists the commands in
their panels."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main

from trailcheck.cli import app, run_cli


def _paths(command: Any, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _paths(sub, (*path, name))


TREE = typer.main.get_command(app)
PATHS = list(_paths(TREE, ()))


def _command(path: tuple[str, ...]) -> Any:
    command = TREE
    for name in path:
        command = command.commands[name]
    return command


def _help(
    path: tuple[str, ...],
    columns: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    assert run_cli([*path, "--help"]) == 0
    return capsys.readouterr().out


def _name(path: tuple[str, ...]) -> str:
    return " ".join(("trailcheck", *path))


@pytest.mark.parametrize(
    "path",
    PATHS,
    ids=_name,
)
def test_no_line_is_cut_short_at_80_columns(
    path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = _help(path, 80, monkeypatch, capsys)
    assert [line for line in shown.splitlines() if "…" in line] == []


@pytest.mark.parametrize("path", PATHS, ids=_name)
def test_no_rst_markup_and_no_type_beside_a_flag(
    path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = _help(path, 80, monkeypatch, capsys)
    assert "``" not in shown
    assert "<bool>" not in shown
    # An option says what to type, not typer's name for it (an argument still shows its type).
    assert re.findall(r"--[\w-]+ +<(?:str|int|float|path|text)[^>]*>", shown) == []


def _words(text: str) -> str:
    """``text`` as markdown shows it, for comparing: code marks gone, spaces collapsed."""
    return " ".join(text.replace("`", "").split())


@pytest.mark.parametrize("path", [path for path in PATHS if _command(path).help], ids=_name)
def test_each_paragraph_of_a_docstring_reads_as_one(
    path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [_words(line) for line in _help(path, 1000, monkeypatch, capsys).splitlines()]
    for paragraph in inspect.cleandoc(_command(path).help).split("\n\n"):
        assert any(_words(paragraph) in line for line in lines), paragraph


PANELS = {
    "Options": ["--version", "--help"],
    "Import and read traces": ["import", "traces", "schema"],
    "Run and grade": ["run", "score", "stats", "report", "audit", "judge"],
    "Improvement loop": [
        *("ingest", "detect", "clusters", "promote", "review"),
        *("note", "notes", "label"),
    ],
    "Serve and UI": ["serve", "ui", "components", "pending", "store", "online"],
    "Datasets": ["dataset"],
    "Demos and routing": ["demo", "route"],
}


def _panels(shown: str) -> dict[str, list[str]]:
    """Each panel's title and its lines, the frame left out."""
    panels: dict[str, list[str]] = {}
    lines: list[str] = []
    for line in shown.splitlines():
        if title := re.match(r"╭─ (.+?) ─", line):
            lines = panels.setdefault(title.group(1), [])
        elif line.startswith("│"):
            lines.append(line.removeprefix("│ ").removesuffix("│").rstrip())
    return panels


def _entries(lines: list[str]) -> list[str]:
    """The names a panel of commands lists: its lines' first words, where a line starts with
    one (a wrapped description is indented)."""
    return [line.split()[0] for line in lines if not line.startswith(" ")]


def test_the_top_level_help_lists_the_commands_in_their_groups(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    panels = {
        title: _entries(lines)
        for title, lines in _panels(_help((), 80, monkeypatch, capsys)).items()
    }
    assert panels == PANELS
    assert sorted(name for names in list(panels.values())[1:] for name in names) == sorted(
        TREE.commands
    )


def test_a_command_shows_its_options_in_panels(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    panels = _panels(_help(("run",), 80, monkeypatch, capsys))
    assert list(panels) == [
        *("Arguments", "Options", "Agent", "Model", "Trials", "Output", "Judge"),
        *("Simulated user", "Gate"),
        *("Telemetry", "Executor"),
    ]
    for panel, options in {
        "Agent": ["--agent", "--agent-kind", "--env"],
        "Trials": ["-k", "--concurrency", "--timeout", "--seed", "--rate-limit", "--split"],
        "Gate": ["--gate-pass-hat-k", "--gate-regression", "--gate-judge-max-false-fail"],
    }.items():
        shown = {word for line in panels[panel] for word in line.split()}
        assert shown >= set(options), panel
