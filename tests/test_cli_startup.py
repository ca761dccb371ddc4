"""The CLI starts light: reading the commands and printing any command's help imports no heavy
dependency and none of trailcheck's implementation; the values the option declarations spell
out are the library's."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from typing import get_args

import pytest

import trailcheck.cases.importers.tau_user
import trailcheck.demo.pitwall.showcase
import trailcheck.demo.support.showcase
import trailcheck.importing.formats
import trailcheck.importing.transport.otlp_ids
import trailcheck.loop
import trailcheck.route.retrieval
import trailcheck.serve
import trailcheck.serve.admission
import trailcheck.store
import trailcheck.trace
from tests.waiting import GUARD_S
from trailcheck.cases import Split
from trailcheck.commands import (
    dataset,
    demo,
    demo_pitwall,
    loop,
    options,
    route,
    run,
    serve,
    store,
    store_commands,
)

pytestmark = pytest.mark.live

# Dependencies that take from a tenth of a second to seconds to import, or that come only with
# an extra; and trailcheck's own implementation, which the commands import when they run.
HEAVY = (
    "sqlalchemy",
    "fastapi",
    "starlette",
    "uvicorn",
    "grpc",
    "sklearn",
    "scipy",
    "numpy",
    "openai",
    "psycopg",
    "opentelemetry",
    "yaml",
    "httpx",
    # What rich's tracebacks and code blocks need, which no help shows
    # (trailcheck.commands.help_imports).
    "pygments",
    "rich.traceback",
    "rich.syntax",
    "rich.pretty",
    "attr",
    "trailcheck.trace",
    "trailcheck.importing",
    "trailcheck.store",
    "trailcheck.run",
    "trailcheck.cases",
    "trailcheck.report",
    "trailcheck.serve",
    "trailcheck.loop",
    "trailcheck.judge",
)

# Imports the CLI, builds the command tree, prints --version, the top-level help and every
# command's and group's help, then lists the heavy modules that got imported.
EVERY_HELP = f"""
import contextlib, io, sys
import typer.main
from trailcheck.cli import app, run_cli

def paths(command, path):
    yield path
    for name, sub in sorted(getattr(command, "commands", {{}}).items()):
        yield from paths(sub, [*path, name])

shown = io.StringIO()
with contextlib.redirect_stdout(shown):
    assert run_cli(["--version"]) == 0
    for path in paths(typer.main.get_command(app), []):
        assert run_cli([*path, "--help"]) == 0, path
assert "Usage: trailcheck serve" in shown.getvalue()
heavy = {HEAVY!r}
print(sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy)))
"""


def test_every_help_imports_nothing_heavy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", EVERY_HELP],
        capture_output=True,
        text=True,
        check=False,
        timeout=GUARD_S,  # a guard against a hang only
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_import_trailcheck_loads_the_trace_model_on_first_use() -> None:
    code = (
        "import sys, trailcheck;"
        " print('trailcheck.trace' in sys.modules);"
        " from trailcheck import Trace;"
        " from trailcheck.trace import Trace as Model;"
        " print(Trace is Model, trailcheck.__version__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=GUARD_S
    )
    assert done.stdout.split() == ["False", "True", version("trailcheck")]


def test_the_values_the_options_spell_out_are_the_librarys() -> None:
    assert options.FORMAT_NAMES == trailcheck.importing.formats.FORMAT_NAMES
    assert get_args(options.IdEncoding) == get_args(
        trailcheck.importing.transport.otlp_ids.IdEncoding
    )
    assert serve.TOKEN_ENV == trailcheck.serve.TOKEN_ENV
    assert serve.DEFAULT_IDLE_TIMEOUT_S == trailcheck.serve.DEFAULT_IDLE_TIMEOUT_S
    assert serve.DEFAULT_SETTLE_S == trailcheck.serve.DEFAULT_SETTLE_S
    assert serve.DEFAULT_MAX_BODY_BYTES == trailcheck.serve.DEFAULT_MAX_BODY_BYTES
    limits = trailcheck.serve.admission.UploadLimits()
    assert limits.max_uploads == serve.DEFAULT_MAX_UPLOADS
    assert limits.max_inflight_bytes == serve.DEFAULT_MAX_INFLIGHT_BYTES
    assert limits.body_timeout_s == serve.DEFAULT_BODY_TIMEOUT_S
    assert limits.read_timeout_s == serve.DEFAULT_BODY_READ_TIMEOUT_S
    assert limits.min_rate == serve.DEFAULT_BODY_MIN_RATE
    assert loop.SIMILARITY_THRESHOLD == trailcheck.loop.SIMILARITY_THRESHOLD
    assert dataset.DEFAULT_MAX_TURNS == trailcheck.cases.importers.tau_user.DEFAULT_MAX_TURNS
    assert demo_pitwall.DEMO_K == trailcheck.demo.pitwall.showcase.DEMO_K
    assert get_args(demo_pitwall.PitwallFramework) == get_args(
        trailcheck.demo.pitwall.showcase.Framework
    )
    assert get_args(demo.DemoFramework) == get_args(trailcheck.demo.support.showcase.Framework)
    assert get_args(route.RouteScorer) == get_args(trailcheck.route.retrieval.ScorerName)
    assert get_args(store_commands.Severity) == get_args(trailcheck.trace.Severity)
    assert store.DEFAULT_USER_KEYS == trailcheck.store.DEFAULT_USER_KEYS
    assert tuple(run.RunSplit) == get_args(Split)
    db_help = get_args(options.DbOption)[1].help
    assert f"${trailcheck.store.DB_ENV}" in db_help
    assert str(trailcheck.store.DEFAULT_DB_PATH) in db_help


# A traceback and a code block rendered by rich, after the CLI's help has imported typer's help
# module with their modules deferred (or, with "plain", rich as it imports itself).
DEFERRED_RENDERING = """
import io, sys
if sys.argv[1] == "deferred":
    from trailcheck.commands.help_imports import import_rich_utils
    import_rich_utils()
    assert "rich.syntax" not in sys.modules and "rich.traceback" not in sys.modules
import typer.rich_utils
from rich.console import Console
from rich.markdown import Markdown
console = Console(file=io.StringIO(), width=60, color_system="truecolor", force_terminal=True)
console.print(Markdown("Run:\\n\\n```python\\nprint(1)\\n```"))
try:
    raise ValueError("boom")
except ValueError as error:
    console.print(typer.rich_utils.Traceback.from_exception(type(error), error, None))
print(repr(console.file.getvalue()))
"""


def test_deferred_rich_modules_render_as_rich_renders_them() -> None:
    def rendered(how: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", DEFERRED_RENDERING, how],
            capture_output=True,
            text=True,
            check=True,
            timeout=GUARD_S,  # a guard against a hang only
        )
        return done.stdout

    deferred = rendered("deferred")
    assert "print" in deferred
    assert "ValueError" in deferred
    assert deferred == rendered("plain")


# Every help page, in colour at the width given, with typer's help module imported by the CLI
# ("fast": plain sentences skip markdown-it) or imported first as typer imports it ("markdown":
# rich.markdown renders every help text). Prints the pages, then whether markdown-it was needed
# for the top-level help alone.
EVERY_PAGE = """
import contextlib, io, os, sys
os.environ["COLUMNS"] = sys.argv[2]
os.environ["FORCE_COLOR"] = "1"
if sys.argv[1] == "markdown":
    import typer.rich_utils
import typer.main
from trailcheck.cli import app, run_cli

def paths(command, path):
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from paths(sub, [*path, name])

shown = io.StringIO()
with contextlib.redirect_stdout(shown):
    assert run_cli(["--help"]) == 0
    top_needed_markdown = "markdown_it" in sys.modules
    for path in paths(typer.main.get_command(app), []):
        assert run_cli([*path, "--help"]) == 0, path
print(top_needed_markdown)
sys.stdout.write(shown.getvalue())
"""


@pytest.mark.parametrize("width", ["60", "80", "120"])
def test_help_renders_plain_sentences_as_markdown_renders_them(width: str) -> None:
    def pages(how: str) -> tuple[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", EVERY_PAGE, how, width],
            capture_output=True,
            text=True,
            check=True,
            timeout=GUARD_S,  # a guard against a hang only
        )
        needed, _, shown = done.stdout.partition("\n")
        return needed, shown

    fast_needed, fast = pages("fast")
    markdown_needed, by_markdown = pages("markdown")
    assert (fast_needed, markdown_needed) == ("False", "True")
    assert "\x1b[1mtrailcheck serve" in fast  # in colour: styles are compared too
    assert fast.count("Usage:") > 50  # every page
    assert fast == by_markdown
