"""Checks before any trial starts: what the runner would otherwise discover one trial at a time.

A case whose input has a turn the runner cannot play, or whose faults name a tool the
environment lacks, is the dataset's error: refused with its case id before the first trial,
rather than failing every trial of that case. The environment is made once here too, for the
manifest's fixture and tool-schema hashes.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import JsonValue

from trailcheck.cases import Case, Dataset, Split
from trailcheck.environment import Environment, EnvironmentFactory
from trailcheck.errors import UsageError
from trailcheck.run.faults import tool_name
from trailcheck.run.manifest import describe_environment
from trailcheck.simulation import UserSimulator


def user_turns(case: Case) -> list[str]:
    """The fixed user messages a case plays, in order (none when only a simulated user speaks);
    any other role in its input is refused."""
    if case.input is None:
        return []
    if isinstance(case.input, str):
        return [case.input]
    others = [f"input[{i}] is {m.role}" for i, m in enumerate(case.input) if m.role != "user"]
    if others:
        raise UsageError(
            f"case {case.id!r}: the runner plays user turns only, but {', '.join(others)}"
        )
    return [message.text for message in case.input]


def check_simulated_users(cases: Sequence[Case], simulator: UserSimulator | None) -> None:
    """A case with a simulated user and no simulator to play it is refused before any trial."""
    needing = [case.id for case in cases if case.user is not None]
    if needing and simulator is None:
        shown = ", ".join(map(repr, needing[:3])) + (" ..." if len(needing) > 3 else "")
        raise UsageError(
            f"{len(needing)} case(s) have a simulated user ({shown}), but the run has no user"
            " simulator: give --user-model (any OpenAI-compatible model), or user_simulator="
        )


def selected_cases(dataset: Dataset, splits: tuple[Split, ...] | None) -> list[Case]:
    """The cases to run (of ``splits``, with the dataset's scorers), each input checked."""
    cases = [c for c in dataset.graded_cases() if splits is None or c.split in splits]
    if not cases:
        wanted = f" in splits {', '.join(splits)}" if splits else ""
        raise UsageError(f"dataset {dataset.name!r} has no cases{wanted} to run")
    for case in cases:
        user_turns(case)  # refuse a bad input before any trial starts
    return cases


def probe_environment(
    cases: Sequence[Case], factory: EnvironmentFactory | None, reference: str | None
) -> dict[str, JsonValue] | None:
    """The manifest's description of the environment, from one made before any trial; the
    cases' faults are checked against its tools. One that cannot be made is described by its
    error, and each trial then records it as an infra error."""
    if factory is None:
        _check_faults(cases, None)
        return None
    try:
        probe = factory()
        described = describe_environment(probe, reference)
    # The trials will meet the same failure and record it; the run itself goes on.
    except Exception as error:  # noqa: BLE001
        return {"reference": reference, "error": f"{type(error).__qualname__}: {error}"}
    _check_faults(cases, probe)
    return described


def _check_faults(cases: Sequence[Case], environment: Environment | None) -> None:
    """A fault for a tool the environment lacks is the dataset's error: refused before any trial."""
    names = {tool_name(tool) for tool in environment.tools} if environment is not None else set()
    for case in cases:
        unknown = sorted({fault.tool for fault in case.faults} - names)
        if unknown:
            has = f"its tools: {', '.join(sorted(names))}" if names else "there is no environment"
            raise UsageError(
                f"case {case.id!r}: faults name {', '.join(map(repr, unknown))}, which the"
                f" environment does not have ({has})"
            )
