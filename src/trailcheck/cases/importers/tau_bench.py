"""Import tau-bench and tau2-bench task files as a trailcheck dataset, run and graded the way
they run and grade.

A tau-bench task (``retail_tasks_test.json``: ``user_id, instruction, actions [{name, kwargs}],
outputs``) holds no user message: its ``instruction`` is the brief of the *simulated user* who
talks to the agent, and so is each case's (``user:``, no ``input``): the simulator speaks first,
as in tau-bench, and a run needs one (``--user-model``). The mapping of the brief, tau2's too,
and of the limits: :mod:`~trailcheck.cases.importers.tau_user`. With ``instruction_as_input``
(no simulator at hand), the instruction is the case input instead, read by the agent.

tau-bench rewards a run with 1 when the database after it equals the database the gold actions
produce, and every required output appears in the agent's messages. So each case checks:

- the gold **write** actions, with their exact arguments (``expected_arguments``, plain values,
  i.e. ``exact`` comparators), and ``expected_tools`` listing only those writes with
  ``tool_match: any_order``: the final state does not record the order of the writes, and
  tau-bench compares states, not sequences. Reads are never required: the trajectory scorer
  ignores every read tool, so a task without writes expects that *no write* is made (the state
  left unchanged), reads allowed. Errored calls are skipped (a failed write changes nothing);
- the required ``outputs``, by a ``response`` scorer with ``all_of`` over every answer the agent
  gave (``scope: every_answer``: each assistant message a model call returned, and the final
  answer), as tau-bench looks in every agent message. The difference: trailcheck matches whole
  words; tau-bench removes commas first.

What cannot be carried over: ``any_order`` does not fail an extra write, which changes the
tau-bench state; the ``replay_state`` scorer would, but it needs an environment, which a task
file does not come with, so it is not added. Each case's metadata keeps the full gold action list
(reads included) so that a case can be given one later.

Which tools write: a tools-info entry (OpenAI function schema, as ``*_tools_info.json``) says so
with an MCP-style ``annotations.readOnlyHint``; otherwise the name decides: ``get_``, ``find_``,
``list_``, ``search_``, ``calculate`` and ``think`` read, and ``transfer_to_human_agents`` is
tau-bench's terminating tool, which its grading skips when replaying the gold actions and which
changes no state; everything else writes.

tau2 tasks (``id, user_scenario, evaluation_criteria``) grade by ``reward_basis`` (default
``DB, COMMUNICATE``): ``DB`` as above; ``ACTION`` requires every gold action, reads too, with the
arguments ``compare_args`` names (all, when absent); ``COMMUNICATE`` requires each
``communicate_info`` string, as outputs. Environment assertions, natural-language assertions and
initial states (message history, initialisation data or actions) are reported as unmapped.
Actions a tau2 task has the *user* make (``requestor: user``) are not expected of the agent, and
the simulated user has no tools to make them: reported too.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from trailcheck.cases.case import Case, ExpectedInvocation
from trailcheck.cases.comparators import Comparator, ExactComparator
from trailcheck.cases.dataset import Dataset
from trailcheck.cases.importers.tau_user import (
    DEFAULT_MAX_TURNS,
    HAND_OFF_TOOL,
    UserBrief,
    tau2_brief,
    tau_brief,
)
from trailcheck.cases.scorer_specs import ScorerSpec
from trailcheck.cases.simulated_user import SimulatedUser
from trailcheck.errors import InputError, RecordError

__all__ = ["READ_PREFIXES", "TauImport", "import_tau_bench", "is_write_tool", "write_tools_of"]

READ_PREFIXES: tuple[str, ...] = ("get_", "find_", "list_", "search_", "calculate", "think")
_STATELESS_TOOLS = frozenset({HAND_OFF_TOOL})
_TAU2_DEFAULT_BASIS = ("DB", "COMMUNICATE")


@dataclass(frozen=True)
class TauImport:
    """The imported dataset, the tools that write, and what could not be mapped (one line each)."""

    dataset: Dataset
    write_tools: frozenset[str]
    unmapped: list[str]


@dataclass(frozen=True)
class _Action:
    name: str
    arguments: dict[str, Any]
    compared: tuple[str, ...] | None = None
    """The argument names compared; ``None``: all of them."""


@dataclass
class _Task:
    id: str
    brief: UserBrief
    actions: list[_Action]
    outputs: list[str]
    metadata: dict[str, Any]
    all_actions_required: bool = False
    """tau2 ``ACTION``: every gold action is expected, reads too."""
    checks_actions: bool = True
    """Whether the reward looks at the actions at all (tau2 without ``DB`` or ``ACTION``)."""
    unmapped: list[str] = field(default_factory=list)


def is_write_tool(name: str) -> bool:
    """The name heuristic (see the module docstring): whether a tool called ``name`` writes."""
    return not (name.startswith(READ_PREFIXES) or name in _STATELESS_TOOLS)


def write_tools_of(tools_info: Sequence[Any], source: str = "tools info") -> dict[str, bool]:
    """Each tool of a tools-info list (OpenAI function schemas) and whether it writes."""
    tools: dict[str, bool] = {}
    for index, entry in enumerate(tools_info):
        where = f"[{index}]"
        function = entry.get("function", entry) if isinstance(entry, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise RecordError("a tool without a name (function.name)", source=source, field=where)
        if name in tools:
            raise RecordError(f"tool {name!r} declared twice", source=source, field=where)
        hint = _read_only_hint(entry) if isinstance(entry, dict) else None
        tools[name] = is_write_tool(name) if hint is None else not hint
    return tools


def _read_only_hint(entry: dict[str, Any]) -> bool | None:
    for holder in (entry, entry.get("function")):
        annotations = holder.get("annotations") if isinstance(holder, dict) else None
        hint = annotations.get("readOnlyHint") if isinstance(annotations, dict) else None
        if isinstance(hint, bool):
            return hint
    return None


def import_tau_bench(
    sources: Sequence[str | os.PathLike[str]],
    *,
    tools_info: str | os.PathLike[str] | None = None,
    name: str | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    instruction_as_input: bool = False,
) -> TauImport:
    """Read tau-bench or tau2 task files (the kind is told per task) into one dataset.

    With ``tools_info``, the dataset declares its tools (so every tool a case names is checked)
    and the read tools are all known; without it, writes are told by name and the reads ignored
    are those the gold actions name. Each case's simulated user speaks at most ``max_turns``
    times; with ``instruction_as_input``, the cases have no simulated user, and the instruction
    is their input (see the module docstring).
    """
    if not sources:
        raise InputError("no task files to import")
    known = None
    if tools_info is not None:
        known = write_tools_of(_list_of(tools_info, "tools"), os.fspath(tools_info))
    tasks: list[_Task] = []
    for source in sources:
        tasks += _read_tasks(source, known)
    _check_unique_ids(tasks)
    seen = {action.name for task in tasks for action in task.actions}
    writes = {tool: write for tool, write in (known or {}).items()}
    writes.update({tool: is_write_tool(tool) for tool in seen if tool not in writes})
    reads = sorted(tool for tool, write in writes.items() if not write)
    hand_off = known is None or HAND_OFF_TOOL in known
    try:
        cases = [
            _case(
                task, writes, reads, task.brief.speakers(max_turns, hand_off, instruction_as_input)
            )
            for task in tasks
        ]
    except ValidationError as error:
        raise InputError(f"the imported cases are not valid: {error}") from None
    unmapped = [line for task in tasks for line in task.unmapped]
    dataset_name = name or re.sub(r"[@\s]+", "_", Path(sources[0]).stem)
    try:
        dataset = Dataset(
            name=dataset_name,
            description=f"imported from {', '.join(Path(s).name for s in sources)}",
            tools=sorted(known) if known is not None else None,
            cases=cases,
        )
    except ValidationError as error:
        raise InputError(f"the imported dataset is not valid: {error}") from None
    return TauImport(dataset, frozenset(t for t, w in writes.items() if w), unmapped)


def _list_of(path: str | os.PathLike[str], what: str) -> list[Any]:
    source = os.fspath(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(f"{source}: cannot read: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise RecordError(f"not JSON: {error.msg}", source=source, line=error.lineno) from None
    if not isinstance(data, list):
        raise InputError(f"{source}: expected a JSON list of {what}, got {type(data).__name__}")
    return data


def _read_tasks(path: str | os.PathLike[str], known: dict[str, bool] | None) -> list[_Task]:
    source = os.fspath(path)
    tasks = []
    for index, raw in enumerate(_list_of(path, "tasks")):
        if not isinstance(raw, dict):
            raise RecordError("a task is a JSON object", source=source, field=f"[{index}]")
        if "user_scenario" in raw or "evaluation_criteria" in raw:
            task = _tau2_task(raw, source, index)
        else:
            task = _tau_task(raw, source, index, Path(path).stem)
        for at, action in enumerate(task.actions):
            if known is not None and action.name not in known:
                raise RecordError(
                    f"tool {action.name!r} is not in the tools info",
                    source=source,
                    field=f"[{index}] action {at}",
                )
        tasks.append(task)
    return tasks


def _need(data: dict[str, Any], key: str, kind: type, source: str, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        got = "missing" if key not in data else f"got {type(value).__name__}"
        raise RecordError(
            f"expected {kind.__name__} ({got})", source=source, field=f"{where}.{key}"
        )
    return value


def _actions(raw: list[Any], source: str, where: str, arguments_key: str) -> list[_Action]:
    actions = []
    for at, item in enumerate(raw):
        here = f"{where}[{at}]"
        if not isinstance(item, dict):
            raise RecordError("an action is a JSON object", source=source, field=here)
        name = _need(item, "name", str, source, here)
        arguments = item.get(arguments_key, {})
        if not isinstance(arguments, dict):
            raise RecordError("expected an object", source=source, field=f"{here}.{arguments_key}")
        compared = item.get("compare_args")
        if compared is not None and not (
            isinstance(compared, list) and all(isinstance(arg, str) for arg in compared)
        ):
            raise RecordError(
                "expected a list of names", source=source, field=f"{here}.compare_args"
            )
        actions.append(_Action(name, arguments, None if compared is None else tuple(compared)))
    return actions


def _strings(raw: Any, source: str, where: str) -> list[str]:
    if not (isinstance(raw, list) and all(isinstance(item, str) and item for item in raw)):
        raise RecordError("expected a list of non-empty strings", source=source, field=where)
    return list(raw)


def _tau_task(raw: dict[str, Any], source: str, index: int, stem: str) -> _Task:
    where = f"[{index}]"
    instruction = _need(raw, "instruction", str, source, where)
    if not instruction.strip():
        raise RecordError("an empty instruction", source=source, field=f"{where}.instruction")
    actions_raw = _need(raw, "actions", list, source, where)
    actions = _actions(actions_raw, source, f"{where}.actions", "kwargs")
    outputs = _strings(raw.get("outputs", []), source, f"{where}.outputs")
    metadata = {
        "format": "tau-bench",
        "source": Path(source).name,
        "task_index": index,
        "user_id": raw.get("user_id"),
        "annotator": raw.get("annotator"),
        "instruction": instruction,
        "gold_actions": actions_raw,
        "outputs": outputs,
    }
    brief = tau_brief(instruction, raw.get("user_id"))
    return _Task(f"{stem}-{index}", brief, actions, outputs, metadata)


def _tau2_task(raw: dict[str, Any], source: str, index: int) -> _Task:
    where = f"[{index}]"
    task_id = _need(raw, "id", str, source, where)
    scenario = _need(raw, "user_scenario", dict, source, where)
    brief = tau2_brief(scenario, source, f"{where}.user_scenario")
    criteria = raw.get("evaluation_criteria") or {}
    if not isinstance(criteria, dict):
        raise RecordError("expected an object", source=source, field=f"{where}.evaluation_criteria")
    at = f"{where}.evaluation_criteria"
    gold = _actions(criteria.get("actions") or [], source, f"{at}.actions", "arguments")
    by_user = [a.name for a, r in zip(gold, criteria.get("actions") or [], strict=True) if _user(r)]
    actions = [a for a, r in zip(gold, criteria.get("actions") or [], strict=True) if not _user(r)]
    basis = _strings(criteria.get("reward_basis", list(_TAU2_DEFAULT_BASIS)), source, at)
    communicate = _strings(criteria.get("communicate_info") or [], source, f"{at}.communicate_info")
    task = _Task(
        task_id,
        brief,
        actions,
        communicate if "COMMUNICATE" in basis else [],
        {
            "format": "tau2",
            "source": Path(source).name,
            "task_index": index,
            "task_id": task_id,
            "instruction": brief.flattened,
            "user_scenario": scenario,
            "ticket": raw.get("ticket"),
            "reward_basis": basis,
            "gold_actions": criteria.get("actions") or [],
            "evaluation_criteria": criteria,
        },
        all_actions_required="ACTION" in basis,
        checks_actions="ACTION" in basis or "DB" in basis,
    )
    task.unmapped += [f"{task_id}: {part}" for part in _tau2_unmapped(raw, criteria, basis)]
    if by_user:
        task.unmapped.append(
            f"{task_id}: actions the user makes, not expected of the agent"
            f" (the simulated user has no tools here): {by_user}"
        )
    return task


def _user(raw_action: Any) -> bool:
    return isinstance(raw_action, dict) and raw_action.get("requestor") == "user"


def _tau2_unmapped(raw: dict[str, Any], criteria: dict[str, Any], basis: list[str]) -> list[str]:
    parts = []
    if "ENV_ASSERTION" in basis and criteria.get("env_assertions"):
        parts.append(f"env_assertions ({len(criteria['env_assertions'])}): no environment")
    if "NL_ASSERTION" in basis and criteria.get("nl_assertions"):
        parts.append(f"nl_assertions ({len(criteria['nl_assertions'])}): need a judge")
    unknown = sorted(set(basis) - {"DB", "ACTION", "COMMUNICATE", "ENV_ASSERTION", "NL_ASSERTION"})
    if unknown:
        parts.append(f"reward_basis {unknown}: unknown")
    initial = raw.get("initial_state") or {}
    if isinstance(initial, dict):
        parts += [f"initial_state.{key}: not imported" for key in sorted(initial) if initial[key]]
    return parts


def _case(
    task: _Task,
    writes: dict[str, bool],
    reads: list[str],
    speakers: tuple[str | None, SimulatedUser | None],
) -> Case:
    required = [a for a in task.actions if task.all_actions_required or writes[a.name]]
    scorers: list[dict[str, Any]] = []
    expected_tools: list[str] | None = None
    invocations: list[ExpectedInvocation] = []
    if task.checks_actions and (required or not task.all_actions_required):
        expected_tools = [action.name for action in required]
        ignored = [] if task.all_actions_required else reads
        scorers.append({"name": "trajectory", "ignore_tools": ignored, "errored_calls": "skip"})
        invocations = list(_invocations(required))
        if invocations:
            scorers.append({"name": "arguments", "errored_calls": "skip"})
    if task.outputs:
        scorers.append({"name": "response", "all_of": task.outputs, "scope": "every_answer"})
    notes = None
    if task.outputs:
        notes = (
            "outputs are looked for in every answer the trace records (each model call's"
            " assistant message, and the final answer), as whole words; tau-bench removes commas"
        )
    return Case(
        id=task.id,
        input=speakers[0],
        user=speakers[1],
        expected_tools=expected_tools,
        tool_match="any_order",
        expected_arguments=invocations,
        scorers=[ScorerSpec.model_validate(spec) for spec in scorers],
        review_status="candidate",
        notes=notes,
        metadata=task.metadata,
    )


def _invocations(actions: Iterable[_Action]) -> Iterable[ExpectedInvocation]:
    for action in actions:
        names = action.arguments if action.compared is None else action.compared
        arguments: dict[str, Comparator] = {
            key: ExactComparator.model_validate(
                {"$compare": "exact", "value": action.arguments[key]}
            )
            for key in names
            if key in action.arguments
        }
        if arguments:  # an expectation with no field would pass vacuously
            yield ExpectedInvocation(tool=action.name, arguments=arguments)


def _check_unique_ids(tasks: list[_Task]) -> None:
    seen: set[str] = set()
    for task in tasks:
        if task.id in seen:
            raise InputError(f"case id {task.id!r} twice: import files of different names")
        seen.add(task.id)
