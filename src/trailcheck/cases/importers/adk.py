"""Google ADK evalsets (``*.evalset.json``) and their criteria (``test_config.json``) as a dataset.

An evalset holds ``eval_cases``; each has a ``conversation`` of invocations (``user_content``, the
expected ``final_response``, ``intermediate_data.tool_uses`` with ``name`` and ``args``, optional
``rubrics``) and a ``session_input`` whose ``state`` the session starts with. The criteria come
from ``config`` when given, else from the ``test_config.json`` beside the evalset (as ``adk eval``
and ``AgentEvaluator`` look for it), else ADK's defaults (``tool_trajectory_avg_score`` 1.0,
``response_match_score`` 0.8). ADK's models accept snake_case and camelCase keys; so does this.

What maps, and how:

- the user turns → ``input`` (text for one turn, user messages for several);
- the tool uses of every turn, in order → ``expected_tools``, with ``tool_match`` from the
  ``tool_trajectory_avg_score`` criterion's ``match_type`` (ADK's default ``EXACT``) and its
  threshold as ``tool_threshold``; their arguments → ``expected_arguments`` as exact values,
  unless the criterion says ``ignore_args``. Without that criterion ADK checks no trajectory,
  and none is imported. ADK compares whole argument dicts with ``==``; trailcheck compares the
  named fields, type-aware (``25`` is not ``25.0``);
- the last turn's final response → ``reference_response``. No ``response`` scorer is added: ADK
  judges references by ROUGE or by a model, never by equality;
- rubrics of ``rubric_based_final_response_quality_v1`` (every case) and per-case or
  per-invocation rubrics typed ``FINAL_RESPONSE_QUALITY`` → ``rubrics``; likewise the
  tool-use ones when ``rubric_based_tool_use_quality_v1`` is configured (trailcheck's rubric
  judge sees the trajectory);
- ids, invocation ids, app, user and session state → ``metadata["adk"]``.

A case with a ``conversation_scenario`` instead of a ``conversation`` (ADK's user simulation)
imports as a simulated-user case: its starting prompt the input, its conversation plan the
user's instruction, its persona the user's persona, its criteria file's turn limit the user's
``max_turns`` (:mod:`~trailcheck.cases.importers.adk_scenario`), rubrics and session state as
above. A run of it needs a user simulator (``--user-model``).

Imported cases are ``candidate``: nobody has reviewed them. Everything else is a line of
``unmapped``; the traps ADK itself sets (see :class:`AdkImport`) are lines of ``traps``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from trailcheck.cases.case import Case, ExpectedInvocation
from trailcheck.cases.comparators import ExactComparator
from trailcheck.cases.dataset import Dataset
from trailcheck.cases.importers.adk_criteria import (
    DEFAULT_CRITERIA,
    GROUNDEDNESS,
    MATCH_TYPES,
    TRAJECTORY,
    read_criteria,
    read_user_simulator,
    report_criteria,
)
from trailcheck.cases.importers.adk_files import (
    AdkSource,
    evalset_files,
    expect_list,
    expect_object,
    expect_string,
    get_key,
    load_json,
)
from trailcheck.cases.importers.adk_rubrics import Rubric, case_rubrics, read_rubrics
from trailcheck.cases.importers.adk_scenario import report_simulator_config, scenario_speakers
from trailcheck.trace import Message

__all__ = ["AdkImport", "import_adk"]


@dataclass(frozen=True)
class AdkImport:
    """The imported dataset, what could not be mapped, and ADK's own traps found in the source.

    ``unmapped`` and ``traps`` hold one line each: ``file: case: what: why`` (``*`` for a whole
    file). The traps: ``IN_ORDER`` or ``ANY_ORDER`` over an empty tool list, which ADK passes
    whatever the agent calls; a per-case rubric ADK drops without a warning (no type its rubric
    criteria read); a groundedness metric on a case with no tool output to ground on; a threshold
    at or under 0.5 averaged over several runs, which a case that passed once and failed once
    clears.
    """

    dataset: Dataset
    unmapped: list[str] = field(default_factory=list)
    traps: list[str] = field(default_factory=list)


def import_adk(
    paths: Sequence[Path], *, config: Path | None = None, num_runs: int = 1
) -> AdkImport:
    """The evalsets at ``paths`` (files, or folders of ``*.evalset.json``) as one dataset.

    ``config`` is a criteria file for every evalset (``adk eval --config_file_path``); without
    it each evalset's ``test_config.json`` beside it, else ADK's defaults. ``num_runs`` is how
    many times ADK runs each case (``AgentEvaluator.evaluate(num_runs=...)``; ``adk eval`` runs
    once). Case ids are ``eval_set_id/eval_id``. Raises InputError naming the file and the JSON
    path of the first problem.
    """
    files = evalset_files(paths)
    unmapped: list[str] = []
    traps: list[str] = []
    cases: list[Case] = []
    names: list[str] = []
    descriptions: list[str] = []
    seen: dict[str, Path] = {}
    for path in files:
        criteria_path = config if config is not None else path.parent / "test_config.json"
        simulator: dict[str, Any] = {}
        if criteria_path.is_file():
            criteria, criteria_source = read_criteria(criteria_path), criteria_path.name
            simulator = read_user_simulator(criteria_path)
        else:
            criteria = {name: {"threshold": value} for name, value in DEFAULT_CRITERIA.items()}
            criteria_source = "ADK defaults"
        source = AdkSource(
            path, criteria, criteria_source, num_runs, unmapped, traps, simulator=simulator
        )
        name, description, file_cases = _read_evalset(source)
        names.append(name)
        if description:
            descriptions.append(description)
        for case in file_cases:
            if case.id in seen:
                raise source.fail("$.eval_cases", f"case {case.id!r} also in {seen[case.id]}")
            seen[case.id] = path
        cases += [_with_traps(case, source) for case in file_cases]
    dataset_name = re.sub(r"[@\s]+", "_", names[0] if len(names) == 1 else "+".join(names))
    dataset = Dataset(
        name=dataset_name,
        description="\n".join(descriptions) or None,
        cases=cases,
    )
    return AdkImport(dataset, unmapped, traps)


def _with_traps(case: Case, source: AdkSource) -> Case:
    eval_id = case.metadata["adk"]["eval_id"]  # type: ignore[index,call-overload]
    found = [*source.traps_by_case.get("*", []), *source.traps_by_case.get(case.id, [])]
    found += [] if eval_id == case.id else source.traps_by_case.get(str(eval_id), [])
    if not found:
        return case
    adk = {**case.metadata["adk"], "traps": found}  # type: ignore[dict-item]
    return case.model_copy(update={"metadata": {**case.metadata, "adk": adk}})


def _read_evalset(source: AdkSource) -> tuple[str, str | None, list[Case]]:
    data = load_json(source.path)
    if isinstance(data, list):
        raise source.fail("$", "a list: the old *.test.json format is not read; convert it first")
    data = expect_object(data, source, "$")
    set_id = get_key(data, "eval_set_id")
    if set_id is None:
        set_id = source.path.name.removesuffix(".json").removesuffix(".evalset")
    set_id = expect_string(set_id, source, "$.eval_set_id")
    description = get_key(data, "description")
    eval_cases = expect_list(get_key(data, "eval_cases"), source, "$.eval_cases")
    report_criteria(source)
    cases = [
        _read_case(source, set_id, raw, f"$.eval_cases[{index}]")
        for index, raw in enumerate(eval_cases)
    ]
    if any(case.user is not None for case in cases):
        report_simulator_config(source)
    return set_id, description if isinstance(description, str) else None, cases


@dataclass
class _Turns:
    """The parts of a conversation the case is built from."""

    users: list[str] = field(default_factory=list)
    responses: list[str | None] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    arguments: list[dict[str, Any]] = field(default_factory=list)
    rubrics: list[Rubric] = field(default_factory=list)
    invocation_ids: list[str] = field(default_factory=list)


def _read_case(source: AdkSource, set_id: str, raw: Any, where: str) -> Case:
    raw = expect_object(raw, source, where)
    eval_id = expect_string(get_key(raw, "eval_id"), source, f"{where}.eval_id")
    case_id = f"{set_id}/{eval_id}"
    conversation = get_key(raw, "conversation")
    scenario = get_key(raw, "conversation_scenario")
    if scenario is not None:
        if conversation is not None:
            raise source.fail(where, "both conversation and conversation_scenario: ADK takes one")
        return _scenario_case(source, set_id, eval_id, raw, where)
    conversation = expect_list(conversation, source, f"{where}.conversation")
    if not conversation:
        raise source.fail(f"{where}.conversation", "no invocation: a case has at least one turn")
    turns = _Turns()
    for index, invocation in enumerate(conversation):
        _read_invocation(source, invocation, turns, f"{where}.conversation[{index}]")
    turns.rubrics += read_rubrics(source, get_key(raw, "rubrics"), f"{where}.rubrics")
    session = expect_object(get_key(raw, "session_input") or {}, source, f"{where}.session_input")
    data = {
        "id": case_id,
        "input": turns.users[0]
        if len(turns.users) == 1
        else [Message(role="user", content=text) for text in turns.users],
        "reference_response": turns.responses[-1],
        "rubrics": case_rubrics(source, case_id, turns.rubrics),
        "review_status": "candidate",
        "metadata": _metadata(source, set_id, eval_id, turns, session),
        **_trajectory(source, case_id, turns),
    }
    if any(response is not None for response in turns.responses[:-1]):
        source.note(
            case_id,
            "final responses of turns before the last: trailcheck compares the final answer only",
        )
    _note_session_state(source, case_id, session)
    _check_grounding(source, case_id, turns)
    try:
        return Case(**data)
    except ValidationError as error:
        raise source.fail(where, f"not a valid case: {error}") from None


def _scenario_case(
    source: AdkSource, set_id: str, eval_id: str, raw: dict[str, Any], where: str
) -> Case:
    """A ``conversation_scenario`` case: a simulated user, rubrics and session state."""
    case_id = f"{set_id}/{eval_id}"
    at = f"{where}.conversation_scenario"
    starting, user, scenario_metadata = scenario_speakers(
        source, case_id, get_key(raw, "conversation_scenario"), at
    )
    turns = _Turns()
    turns.rubrics += read_rubrics(source, get_key(raw, "rubrics"), f"{where}.rubrics")
    session = expect_object(get_key(raw, "session_input") or {}, source, f"{where}.session_input")
    metadata = _metadata(source, set_id, eval_id, turns, session)
    metadata["adk"].update(scenario_metadata)
    _note_session_state(source, case_id, session)
    try:
        return Case(
            id=case_id,
            input=starting,
            user=user,
            rubrics=case_rubrics(source, case_id, turns.rubrics),
            review_status="candidate",
            metadata=metadata,
        )
    except ValidationError as error:
        raise source.fail(where, f"not a valid case: {error}") from None


def _note_session_state(source: AdkSource, case_id: str, session: dict[str, Any]) -> None:
    if get_key(session, "state"):
        source.note(
            case_id,
            "session_input.state: a case has no initial state; kept in "
            "metadata.adk.session_state for the environment to set",
        )


def _read_invocation(source: AdkSource, raw: Any, turns: _Turns, where: str) -> None:
    raw = expect_object(raw, source, where)
    turns.users.append(_content_text(source, get_key(raw, "user_content"), f"{where}.user_content"))
    response = get_key(raw, "final_response")
    turns.responses.append(
        None if response is None else _content_text(source, response, f"{where}.final_response")
    )
    invocation_id = get_key(raw, "invocation_id")
    if isinstance(invocation_id, str):
        turns.invocation_ids.append(invocation_id)
    intermediate = expect_object(
        get_key(raw, "intermediate_data") or {}, source, f"{where}.intermediate_data"
    )
    uses_where = f"{where}.intermediate_data.tool_uses"
    for index, use in enumerate(
        expect_list(get_key(intermediate, "tool_uses") or [], source, uses_where)
    ):
        use = expect_object(use, source, f"{uses_where}[{index}]")
        turns.tools.append(
            expect_string(get_key(use, "name"), source, f"{uses_where}[{index}].name")
        )
        turns.arguments.append(
            expect_object(get_key(use, "args") or {}, source, f"{uses_where}[{index}].args")
        )
    turns.rubrics += read_rubrics(source, get_key(raw, "rubrics"), f"{where}.rubrics")


def _content_text(source: AdkSource, content: Any, where: str) -> str:
    """The text of a genai ``Content``: its text parts joined by newlines."""
    content = expect_object(content, source, where)
    parts = expect_list(get_key(content, "parts"), source, f"{where}.parts")
    texts = [
        part["text"]
        for part in parts
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]
    if not "".join(texts).strip():
        raise source.fail(f"{where}.parts", "no text part")
    return "\n".join(texts)


def _trajectory(source: AdkSource, case_id: str, turns: _Turns) -> dict[str, Any]:
    settings = source.criteria.get(TRAJECTORY)
    if settings is None:
        if turns.tools:
            source.note(
                case_id,
                f"tool uses {', '.join(turns.tools)}: no {TRAJECTORY} criterion, "
                "so ADK checks no trajectory; none imported",
            )
        return {}
    match_type = get_key(settings, "match_type") or "EXACT"
    if not turns.tools and match_type != "EXACT":
        source.trap(
            case_id,
            f"{TRAJECTORY} {match_type} with no expected tool uses passes any "
            "trajectory in ADK; imported as expected_tools: [] (no tool may be called)",
        )
    result: dict[str, Any] = {
        "expected_tools": list(turns.tools),
        "tool_match": MATCH_TYPES[match_type],
        "tool_threshold": min(max(float(get_key(settings, "threshold")), 0.0), 1.0),
    }
    if get_key(settings, "ignore_args"):
        if any(turns.arguments):
            source.note(
                case_id,
                f"tool arguments: {TRAJECTORY} sets ignore_args, so none are "
                "checked; kept in metadata.adk.tool_args",
            )
        return result
    result["expected_arguments"] = [
        ExpectedInvocation(
            tool=tool, arguments={key: ExactComparator(value=value) for key, value in args.items()}
        )
        for tool, args in zip(turns.tools, turns.arguments, strict=True)
        if args
    ]
    return result


def _check_grounding(source: AdkSource, case_id: str, turns: _Turns) -> None:
    if turns.tools:
        return
    for name in source.criteria:
        if GROUNDEDNESS.search(name):
            source.trap(
                case_id,
                f"{name} on a case that calls no tool: the answer has no tool "
                "output to be grounded on",
            )


def _metadata(
    source: AdkSource, set_id: str, eval_id: str, turns: _Turns, session: dict[str, Any]
) -> dict[str, Any]:
    adk: dict[str, Any] = {
        "file": source.path.name,
        "eval_set_id": set_id,
        "eval_id": eval_id,
        "criteria": source.criteria_source,
    }
    if turns.invocation_ids:
        adk["invocation_ids"] = turns.invocation_ids
    for key in ("app_name", "user_id"):
        if isinstance(get_key(session, key), str):
            adk[key] = get_key(session, key)
    if get_key(session, "state"):
        adk["session_state"] = get_key(session, "state")
    trajectory = source.criteria.get(TRAJECTORY)
    if trajectory is not None and get_key(trajectory, "ignore_args") and any(turns.arguments):
        adk["tool_args"] = [
            {"tool": t, "args": a} for t, a in zip(turns.tools, turns.arguments, strict=True)
        ]
    if trajectory is None and turns.tools:
        adk["tool_uses"] = [
            {"tool": t, "args": a} for t, a in zip(turns.tools, turns.arguments, strict=True)
        ]
    return {"adk": adk}
