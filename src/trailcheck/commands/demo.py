"""``trailcheck demo``: the support shop, from v1's traffic to candidate cases, then v1 against
v2 on the approved suite, written as reports one can open (``--framework langgraph``,
``openai-agents`` or ``pydantic-ai``: the suite on the same brains as that framework's agents);
``trailcheck demo claims``: the claims desk's security evaluation; ``trailcheck demo pitwall``:
the Pit Wall's seed story."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trailcheck.commands.demo_pitwall import pitwall_demo_command
from trailcheck.commands.demo_traffic import render_traffic_loop, run_traffic_loop
from trailcheck.commands.run import stderr, stdout
from trailcheck.commands.security import security_eval_command
from trailcheck.demo.support.showcase import (
    DEMO_K,
    FRAMEWORK_NAMES,
    FRAMEWORKS,
    Framework,
    run_demo,
)
from trailcheck.errors import UsageError
from trailcheck.report.files import write_run
from trailcheck.report.html import render_html
from trailcheck.report.progress import ProgressObserver
from trailcheck.report.run_view import render_comparison, render_overview
from trailcheck.run.results import RunReport

demo_app = typer.Typer(
    help="The reference domains, end to end.", invoke_without_command=True, no_args_is_help=False
)
demo_app.command("claims")(security_eval_command)
demo_app.command("pitwall")(pitwall_demo_command)


@demo_app.callback()
def demo_command(
    context: typer.Context,
    out: Annotated[Path, typer.Option(help="Folder for the reports and their HTML.")] = Path(
        ".trailcheck"
    )
    / "demo",
    framework: Annotated[
        str,
        typer.Option(
            help="native: trailcheck's own tool loop; langgraph, openai-agents, pydantic-ai:"
            " the same brains as that framework's agent, traced by OpenTelemetry (needs the"
            " extra of the same name).",
        ),
    ] = "native",
) -> None:
    """The support shop: v1's traffic into a store, detected, clustered and promoted to
    candidates (a person approves them); then the approved suite on v1 (planted bugs) and v2
    (fixed), k = 4, with the reports written. ``--framework langgraph`` (or ``openai-agents``,
    ``pydantic-ai``): the suite's runs on that framework's agents. ``demo claims``: the security
    evaluation.

    Exit 0 when the demo ran (v1 failing is the point), 2 when it could not.
    """
    if context.invoked_subcommand is not None:
        return
    chosen = _framework(framework)
    if chosen == "native":
        _traffic(out)
    rows: list[tuple[str, RunReport, Path]] = []
    comparisons: list[tuple[str, RunReport]] = []

    def progress(name: str) -> ProgressObserver:
        return ProgressObserver(stderr, label=name)

    for demo, result in run_demo(observer=progress, framework=chosen):
        written = write_run(result.report, result.trace_lines, out, demo.name, html=render_html)
        rows.append((demo.name, result.report, written[-1]))
        if result.report.comparison is not None:
            comparisons.append((demo.name, result.report))
    agents = "" if chosen == "native" else f", {FRAMEWORK_NAMES[chosen]} agents"
    stdout.print(
        render_overview(
            [(name, report) for name, report, _ in rows],
            title=f"support dataset{agents}, k = {DEMO_K}",
            k=DEMO_K,
        )
    )
    for name, report in comparisons:
        assert report.comparison is not None
        stdout.print(f"{name} against {rows[0][0]}:", markup=False, soft_wrap=True)
        stdout.print(render_comparison(report.comparison))
    stderr.print("wrote " + ", ".join(str(path) for _, _, path in rows), markup=False)
    stdout.print(f"open {rows[0][2]} to see why v1 fails", markup=False, soft_wrap=True)


def _framework(value: str) -> Framework:
    for framework in FRAMEWORKS:
        if value == framework:
            return framework
    raise UsageError(f"--framework {value!r}: one of {', '.join(FRAMEWORKS)}")


def _traffic(out: Path) -> None:
    """v1's traffic into a store, detected, clustered and promoted to candidates."""
    loop = run_traffic_loop(out)
    stdout.print(render_traffic_loop(loop))
    stdout.print(
        f"candidates written to {loop.candidates_file}: review them with"
        f" 'trailcheck review {loop.candidates_file}'; the suite below is the shipped,"
        " approved one.",
        markup=False,
        soft_wrap=True,
    )
