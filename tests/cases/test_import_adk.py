"""Importing Google ADK evalsets: the real samples, the mapping, ADK's traps, malformed input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trailcheck.cases import dump_dataset, load_dataset
from trailcheck.cases.importers.adk import import_adk
from trailcheck.errors import InputError


def _turn(text: str, answer: str | None = None, tools: list[Any] | None = None) -> dict[str, Any]:
    turn: dict[str, Any] = {
        "invocation_id": f"inv-{text[:8]}",
        "user_content": {"role": "user", "parts": [{"text": text}]},
    }
    if answer is not None:
        turn["final_response"] = {"role": "model", "parts": [{"text": answer}]}
    if tools is not None:
        turn["intermediate_data"] = {"tool_uses": tools}
    return turn


def _write(
    folder: Path, cases: list[dict[str, Any]], criteria: dict[str, Any] | None = None
) -> Path:
    path = folder / "demo.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "demo", "eval_cases": cases}), encoding="utf-8")
    if criteria is not None:
        (folder / "test_config.json").write_text(json.dumps({"criteria": criteria}), "utf-8")
    return path


def _case(eval_id: str, *turns: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"eval_id": eval_id, "conversation": list(turns), **extra}


def _round_trip(tmp_path: Path, dataset: Any) -> None:
    out = tmp_path / "imported.yaml"
    dump_dataset(dataset, out)
    assert load_dataset(out) == dataset


# The real samples.


def test_pit_wall_imports_tools_and_traps(external: Path, tmp_path: Path) -> None:
    result = import_adk([external / "adk-pit-wall"])
    cases = {case.id: case for case in result.dataset.cases}
    assert len(cases) == 5
    race = cases["pit_wall_tools/race_winner"]
    assert race.expected_tools == ["get_race_results"]
    assert race.tool_match == "in_order"
    assert race.expected_arguments == []  # test_config.json sets ignore_args
    assert race.metadata["adk"]["tool_args"] == [
        {"tool": "get_race_results", "args": {"season": 2024, "circuit_id": "interlagos"}}
    ]
    assert race.review_status == "candidate"
    assert race.reference_response is not None
    assert "Verstappen" in race.reference_response
    assert sum(len(case.expected_tools or []) for case in cases.values()) == 3
    assert cases["pit_wall_guardrails/off_topic"].expected_tools == []
    empty_list = [line for line in result.traps if "IN_ORDER with no expected tool uses" in line]
    grounding = [line for line in result.traps if "hallucinations_v1 on a case" in line]
    assert len(empty_list) == 2
    assert len(grounding) == 2
    assert any("final_response_match_v2" in line for line in result.unmapped)
    _round_trip(tmp_path, result.dataset)


def test_pit_wall_guardrails_with_their_own_config(external: Path) -> None:
    folder = external / "adk-pit-wall"
    result = import_adk(
        [folder / "pit_wall_guardrails.evalset.json"], config=folder / "guardrails_config.json"
    )
    assert [case.tool_match for case in result.dataset.cases] == ["exact", "exact"]
    assert all(case.expected_tools == [] for case in result.dataset.cases)
    assert result.traps == []  # EXACT over [] is a real check in ADK too


def test_hello_trench_imports_rubrics(external: Path, tmp_path: Path) -> None:
    result = import_adk([external / "adk-hello-trench" / "hello_trench.evalset.json"])
    dataset = result.dataset
    assert dataset.name == "hello_trench_behavior"
    assert len(dataset.cases) == 13
    assert all(len(case.rubrics) == 6 for case in dataset.cases)
    assert all(case.expected_tools is None for case in dataset.cases)  # no trajectory criterion
    assert all(case.reference_response for case in dataset.cases)
    assert dataset.cases[0].metadata["adk"]["eval_id"] == "canon_lore"
    assert result.traps == []
    _round_trip(tmp_path, dataset)


# The mapping, on hand-written evalsets.


def test_multi_turn_arguments_and_state(tmp_path: Path) -> None:
    lookup = {"name": "lookup", "args": {"order_id": "A-1", "opts": {"$compare": "x"}}}
    path = _write(
        tmp_path,
        [
            _case(
                "refund",
                _turn("hi", "hello", []),
                _turn("refund A-1", "done", [lookup, {"name": "refund", "args": {}}]),
                session_input={"app_name": "shop", "user_id": "u", "state": {"tier": "gold"}},
            )
        ],
        {"tool_trajectory_avg_score": {"threshold": 0.5, "match_type": "ANY_ORDER"}},
    )
    result = import_adk([path])
    case = result.dataset.cases[0]
    assert isinstance(case.input, list)
    assert [m.text for m in case.input] == ["hi", "refund A-1"]
    assert case.expected_tools == ["lookup", "refund"]
    assert (case.tool_match, case.tool_threshold) == ("any_order", 0.5)
    assert [(e.tool, sorted(e.arguments)) for e in case.expected_arguments] == [
        ("lookup", ["opts", "order_id"])
    ]
    assert case.reference_response == "done"
    assert case.metadata["adk"]["session_state"] == {"tier": "gold"}
    assert any("session_input.state" in line for line in result.unmapped)
    assert any("turns before the last" in line for line in result.unmapped)
    assert result.traps == []  # num_runs 1: nothing is averaged over runs
    _round_trip(tmp_path, result.dataset)


def test_default_criteria_report_rouge(tmp_path: Path) -> None:
    path = _write(tmp_path, [_case("a", _turn("q", "a", [{"name": "t", "args": {"x": 1}}]))])
    result = import_adk([path])
    case = result.dataset.cases[0]
    assert (case.tool_match, case.expected_tools) == ("exact", ["t"])
    assert any("response_match_score" in line and "ROUGE" in line for line in result.unmapped)


# ADK's traps.


def test_trap_in_order_over_empty_tool_list(tmp_path: Path) -> None:
    criteria = {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "ANY_ORDER"}}
    result = import_adk([_write(tmp_path, [_case("a", _turn("q", "a"))], criteria)])
    assert result.dataset.cases[0].expected_tools == []
    assert len(result.traps) == 1
    assert "ANY_ORDER with no expected tool uses" in result.traps[0]


def test_trap_untyped_rubric_is_dropped(tmp_path: Path) -> None:
    typed = {
        "rubric_id": "ok",
        "type": "FINAL_RESPONSE_QUALITY",
        "rubric_content": {"text_property": "Answers politely."},
    }
    untyped = {"rubric_id": "lost", "rubric_content": {"text_property": "Cites a source."}}
    case = _case("a", {**_turn("q", "a"), "rubrics": [typed, untyped]})
    criteria = {"rubric_based_final_response_quality_v1": {"threshold": 0.8}}
    result = import_adk([_write(tmp_path, [case], criteria)])
    assert result.dataset.cases[0].rubrics == ["Answers politely."]
    assert len(result.traps) == 1
    assert "'lost' (type missing)" in result.traps[0]
    assert any("'lost'" in line and "not imported" in line for line in result.unmapped)


def test_trap_groundedness_without_tools(tmp_path: Path) -> None:
    criteria = {"hallucinations_v1": {"threshold": 0.9}}
    with_tool = _case("b", _turn("q", "a", [{"name": "t", "args": {}}]))
    result = import_adk([_write(tmp_path, [_case("a", _turn("q", "a")), with_tool], criteria)])
    assert len(result.traps) == 1
    assert "demo/a: hallucinations_v1" in result.traps[0]


def test_trap_half_threshold_over_runs(tmp_path: Path) -> None:
    criteria = {"tool_trajectory_avg_score": 0.5}
    path = _write(tmp_path, [_case("a", _turn("q", "a", [{"name": "t", "args": {}}]))], criteria)
    assert import_adk([path], num_runs=1).traps == []
    traps = import_adk([path], num_runs=2).traps
    assert len(traps) == 1
    assert "threshold 0.5 over 2 runs" in traps[0]


# Bad input.


def test_malformed_evalset_names_file_and_path(tmp_path: Path) -> None:
    bad = _case("a", {"user_content": {"role": "user", "parts": "not a list"}})
    path = _write(tmp_path, [bad])
    with pytest.raises(
        InputError,
        match=r"demo\.evalset\.json: \$\.eval_cases\[0\]\.conversation"
        r"\[0\]\.user_content\.parts: expected a list, got str",
    ):
        import_adk([path])


def test_not_json_and_duplicate_ids(tmp_path: Path) -> None:
    broken = tmp_path / "broken.evalset.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match=r"broken\.evalset\.json: not JSON"):
        import_adk([broken])
    path = _write(tmp_path, [_case("a", _turn("q"))])
    with pytest.raises(InputError, match="case 'demo/a' also in"):
        import_adk([path, path])


def test_unknown_match_type_names_the_config(tmp_path: Path) -> None:
    criteria = {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "SOMETIMES"}}
    path = _write(tmp_path, [_case("a", _turn("q"))], criteria)
    with pytest.raises(InputError, match=r"test_config\.json: \$\.criteria\.tool_trajectory"):
        import_adk([path])


def test_traps_are_kept_in_the_cases_so_an_audit_of_the_file_reports_them(
    external: Path, tmp_path: Path
) -> None:
    from trailcheck.audit import check_adk_traps
    from trailcheck.cases import dump_dataset, load_dataset
    from trailcheck.cases.importers.adk import import_adk

    imported = import_adk([external / "adk-pit-wall"])
    path = tmp_path / "pit.yaml"
    dump_dataset(imported.dataset, path)
    findings = check_adk_traps(load_dataset(path))
    messages = [(f.case_id, f.severity, f.message) for f in findings]
    grounding = [m for m in messages if "hallucinations_v1 on a case that calls no tool" in m[2]]
    assert {case for case, _, _ in grounding} == {
        "pit_wall_guardrails/missing_season",
        "pit_wall_guardrails/off_topic",
    }
    assert all(severity == "medium" for _, severity, _ in grounding)
    empty = [m for m in messages if m[1] == "high"]
    assert len(empty) == 2


# Conversation scenarios (ADK's user simulation). The evalsets in shared material have none, so
# these are written from ADK's documented schema: ConversationScenario (starting_prompt,
# conversation_plan, user_persona: a pre-built persona's id or a UserPersona with behaviors) in
# google/adk-python's evaluation/conversation_scenarios.py, and the user_simulator_config
# (max_allowed_invocations, default 20, the starting prompt counted) of the criteria file.

DICE_PLAN = (
    "Ask the agent to roll a 20-sided die. After you get the result, ask the agent to check if"
    " it is prime."
)


def _scenario(eval_id: str, **scenario: Any) -> dict[str, Any]:
    fields = {"starting_prompt": "What can you do for me?", "conversation_plan": DICE_PLAN}
    return {"eval_id": eval_id, "conversation_scenario": {**fields, **scenario}}


def _write_config(folder: Path, config: dict[str, Any]) -> None:
    (folder / "test_config.json").write_text(json.dumps(config), encoding="utf-8")


def test_a_conversation_scenario_imports_as_a_simulated_user(tmp_path: Path) -> None:
    custom = {
        "id": "TERSE",
        "description": "A terse user in a hurry.",
        "behaviors": [
            {
                "name": "Short",
                "description": "Few words.",
                "behavior_instructions": ["Use few words.", "End with {{ stop_signal }}."],
                "violation_rubrics": ["The user writes a paragraph."],
            }
        ],
    }
    typed = {
        "rubric_id": "prime",
        "type": "FINAL_RESPONSE_QUALITY",
        "rubric_content": {"text_property": "Says whether the roll is prime."},
    }
    cases = [
        {
            **_scenario("plain"),
            "session_input": {"app_name": "dice", "user_id": "u", "state": {"sides": 20}},
        },
        _scenario("novice", user_persona="NOVICE"),
        {**_scenario("custom", user_persona=custom), "rubrics": [typed]},
        _case("fixed", _turn("roll a die", "4")),
    ]
    path = _write(tmp_path, cases)
    _write_config(
        tmp_path,
        {
            "criteria": {
                "tool_trajectory_avg_score": 1.0,
                "rubric_based_final_response_quality_v1": {"threshold": 0.8},
                "per_turn_user_simulator_quality_v1": 0.8,
            },
            "user_simulator_config": {"model": "gemini-2.5-flash", "max_allowed_invocations": 8},
        },
    )
    result = import_adk([path])
    by_id = {case.id: case for case in result.dataset.cases}
    assert list(by_id) == ["demo/plain", "demo/novice", "demo/custom", "demo/fixed"]
    plain = by_id["demo/plain"]
    assert plain.input == "What can you do for me?"  # the fixed first turn
    assert plain.user is not None
    assert plain.user.instruction == DICE_PLAN
    assert plain.user.persona is None
    assert plain.user.max_turns == 7  # 8 invocations, the starting prompt one of them
    assert (plain.user.known_facts, plain.user.stop_when) == ({}, [])
    assert (plain.expected_tools, plain.reference_response) == (None, None)
    assert plain.metadata["adk"]["session_state"] == {"sides": 20}
    novice = by_id["demo/novice"].user
    assert novice is not None
    assert novice.persona is not None
    assert novice.persona.startswith("A novice who does not fully understand")
    mine = by_id["demo/custom"]
    assert mine.user is not None
    assert mine.user.persona == (
        "A terse user in a hurry.\n- Use few words.\n- End with the end-of-conversation signal."
    )
    assert mine.rubrics == ["Says whether the roll is prime."]
    assert mine.metadata["adk"]["user_persona"] == custom
    assert by_id["demo/fixed"].user is None
    notes = "\n".join(result.unmapped)
    for case_id in ("demo/plain", "demo/novice", "demo/custom"):
        assert f"{case_id}: tool_trajectory_avg_score: compares with a fixed conversation" in notes
    assert "demo/fixed: tool_trajectory_avg_score" not in notes
    assert "*: user_simulator_config.model: the simulator is chosen at run time" in notes
    assert "demo/custom: user_persona violation_rubrics (1)" in notes
    assert "per_turn_user_simulator_quality_v1 (threshold 0.8, test_config.json): a model" in notes
    assert "max_allowed_invocations" not in notes  # 8 is imported as it is
    _round_trip(tmp_path, result.dataset)


def test_scenario_turn_limits_from_adks_default_to_no_limit(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            {
                "eval_id": "a",
                "conversationScenario": {
                    "startingPrompt": "Hi",
                    "conversationPlan": DICE_PLAN,
                    "userPersona": "SOMEONE",
                },
            }
        ],
    )
    result = import_adk([path])  # no criteria file: ADK's defaults
    [case] = result.dataset.cases
    assert case.user is not None
    assert (case.input, case.user.max_turns) == ("Hi", 19)
    assert case.user.persona == "SOMEONE"
    assert any("user_persona 'SOMEONE': not one of ADK's pre-built" in n for n in result.unmapped)
    _write_config(
        tmp_path, {"criteria": {}, "user_simulator_config": {"max_allowed_invocations": -1}}
    )
    result = import_adk([path])
    assert result.dataset.cases[0].user is not None
    assert result.dataset.cases[0].user.max_turns == 200
    assert any(
        "max_allowed_invocations -1: imported as max_turns 200" in n for n in result.unmapped
    )


def test_a_case_with_both_a_conversation_and_a_scenario_is_refused(tmp_path: Path) -> None:
    both = {**_scenario("a"), "conversation": [_turn("q")]}
    with pytest.raises(InputError, match=r"\$\.eval_cases\[0\]: both conversation and"):
        import_adk([_write(tmp_path, [both])])
    no_plan = {"eval_id": "b", "conversation_scenario": {"starting_prompt": "Hi"}}
    with pytest.raises(InputError, match=r"conversation_scenario\.conversation_plan: expected"):
        import_adk([_write(tmp_path, [no_plan])])
