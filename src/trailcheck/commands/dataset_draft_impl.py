"""What ``trailcheck dataset draft`` and ``dataset coverage`` do (their options and exit codes:
:mod:`trailcheck.commands.dataset`): read the tools, the policy and the datasets, call
:mod:`trailcheck.drafting`, render the drafts and the coverage table."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import typer
from rich.table import Table

from trailcheck.cases import Case, load_dataset
from trailcheck.commands.dataset import (
    DatasetCoverageRequest,
    DatasetDraftRequest,
    ScenarioName,
)
from trailcheck.commands.judge_impl import openai_model
from trailcheck.commands.output import stderr, stdout
from trailcheck.drafting import (
    SCENARIO_KINDS,
    Coverage,
    PolicyClause,
    ScenarioKind,
    add_drafts,
    coverage,
    draft_cases,
    load_policy,
    load_tool_declarations,
)
from trailcheck.environment import EnvironmentFactory
from trailcheck.errors import EXIT_FAILED, UsageError
from trailcheck.loop.synthetic import REFERENCE_PATH_KEY
from trailcheck.models import ToolDeclaration, declare_tools
from trailcheck.specs.references import resolve_reference

_CLAUSE_TEXT_SHOWN = 60


def _environment(reference: str | None) -> EnvironmentFactory | None:
    if reference is None:
        return None
    factory = resolve_reference(reference, what="environment factory")
    if not callable(factory):
        raise UsageError(f"environment factory {reference!r} is not callable")
    environment: EnvironmentFactory = factory
    return environment


def _declarations(
    tools: Path | None, environment: EnvironmentFactory | None
) -> list[ToolDeclaration]:
    if tools is not None:
        return load_tool_declarations(tools)
    if environment is None:
        raise UsageError("give --tools FILE, or --env MODULE:FACTORY to declare its tools")
    return declare_tools(environment().tools)


def _kinds(chosen: Sequence[ScenarioName] | None) -> tuple[ScenarioKind, ...]:
    """The kinds ``--scenario`` chose, once each, in the order of :data:`SCENARIO_KINDS`."""
    if not chosen:
        return SCENARIO_KINDS
    return tuple(kind for kind in SCENARIO_KINDS if kind in chosen)


def _cases(paths: Sequence[Path]) -> list[Case]:
    return [case for path in paths for case in load_dataset(path).cases]


def _summary_line(case: Case) -> str:
    """``id: status (reference path: ...)``, and why, for a draft the path rejected."""
    path = case.metadata.get(REFERENCE_PATH_KEY)
    path = path if isinstance(path, dict) else {}
    line = f"{case.id}: {case.review_status} (reference path: {path.get('status', 'not run')})"
    reasons = path.get("reasons")
    if case.review_status == "rejected" and isinstance(reasons, list) and reasons:
        line += ": " + "; ".join(str(reason) for reason in reasons)
    return line


def draft_command(request: DatasetDraftRequest) -> None:
    """The body of :func:`trailcheck.commands.dataset.draft_command`."""
    if request.model is None:
        raise UsageError("dataset draft needs --model NAME: a model drafts the cases")
    if not 0.0 < request.similarity <= 1.0:
        raise UsageError(f"--similarity is in (0, 1], not {request.similarity}")
    environment = _environment(request.env)
    declarations = _declarations(request.tools, environment)
    clauses = load_policy(request.policy)
    existing = _cases([*(request.datasets or []), *([request.out] if request.out.exists() else [])])
    model = openai_model(
        request.model, request.base_url, request.api_key_env, what="trailcheck dataset draft"
    )
    outcome = draft_cases(
        model,
        clauses,
        declarations,
        environment_factory=environment,
        existing=existing,
        kinds=_kinds(request.scenarios),
        threshold=request.similarity,
        seed=request.seed,
        closing=[model],
    )
    if outcome.cases:
        written = add_drafts(request.out, outcome.cases)
        stdout.print(f"{len(outcome.cases)} draft(s) added to {request.out} ({written.version})")
    for case in outcome.cases:
        stdout.print(f"  {_summary_line(case)}", markup=False, soft_wrap=True)
    if environment is None:
        stderr.print(
            "no --env: only the tool schemas were checked (reference path: schema_only)",
            markup=False,
        )
    table = coverage(
        [*existing, *outcome.cases],
        tools=[declaration.name for declaration in declarations],
        clauses=clauses,
    )
    print_coverage(table)
    for problem in outcome.problems:
        stderr.print(f"not drafted: {problem}", style="red", markup=False, soft_wrap=True)
    if outcome.problems:
        raise typer.Exit(EXIT_FAILED)


def _clauses(path: Path | None) -> list[PolicyClause]:
    return [] if path is None else load_policy(path)


def coverage_json(table: Coverage) -> dict[str, Any]:
    """The coverage table as JSON data: ``{tools: [...], clauses: [...], gaps: [...]}``."""

    def row(each: Any) -> dict[str, Any]:
        return {
            "name": each.name,
            **({"text": each.text} if each.text else {}),
            **each.counts,
            "approved_scenarios": list(each.approved_scenarios),
        }

    return {
        "tools": [row(each) for each in table.tools],
        "clauses": [row(each) for each in table.clauses],
        "gaps": table.gaps,
    }


def print_coverage(table: Coverage) -> None:
    """The tools' table, then the clauses' (when there are any); rows without an approved case
    in red."""
    tools = Table("tool", "approved", "candidate", "rejected", title="tools")
    for row in table.tools:
        counts = (str(row.counts[status]) for status in ("approved", "candidate", "rejected"))
        tools.add_row(row.name, *counts, style=None if row.approved else "red")
    stdout.print(tools)
    if not table.clauses:
        return
    clauses = Table(
        "clause", "approved", "candidate", "rejected", "approved scenarios", "text", title="policy"
    )
    for row in table.clauses:
        text = row.text if len(row.text) <= _CLAUSE_TEXT_SHOWN else row.text[:57] + "..."
        clauses.add_row(
            row.name,
            *(str(row.counts[status]) for status in ("approved", "candidate", "rejected")),
            ", ".join(row.approved_scenarios) or "-",
            text,
            style=None if row.approved else "red",
        )
    stdout.print(clauses)


def coverage_command(request: DatasetCoverageRequest) -> None:
    """The body of :func:`trailcheck.commands.dataset.coverage_command`."""
    tools = [] if request.tools is None else load_tool_declarations(request.tools)
    table = coverage(
        _cases(request.dataset_paths),
        tools=[declaration.name for declaration in tools],
        clauses=_clauses(request.policy),
    )
    if request.as_json:
        typer.echo(orjson.dumps(coverage_json(table), option=orjson.OPT_INDENT_2).decode())
    else:
        print_coverage(table)
