"""Importing tau-bench and tau2 task files: each task's instruction the brief of a simulated user,
graded on the gold writes and the required outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trailcheck.cases import Case, ExactComparator, StopCondition, dump_dataset, load_dataset
from trailcheck.cases.importers.tau_bench import (
    TauImport,
    import_tau_bench,
    is_write_tool,
    write_tools_of,
)
from trailcheck.cases.importers.tau_user import DEFAULT_MAX_TURNS
from trailcheck.errors import InputError, RecordError
from trailcheck.scorers.grade import grade
from trailcheck.scorers.registry import scorer_from_spec
from trailcheck.testing import TraceBuilder

TAU = Path("tau-bench")
RETAIL_WRITES = {
    "cancel_pending_order",
    "exchange_delivered_order_items",
    "modify_pending_order_address",
    "modify_pending_order_items",
    "modify_pending_order_payment",
    "modify_user_address",
    "return_delivered_order_items",
}
AIRLINE_WRITES = {
    "book_reservation",
    "cancel_reservation",
    "send_certificate",
    "update_reservation_baggages",
    "update_reservation_flights",
    "update_reservation_passengers",
}


def _import(external: Path, domain: str) -> TauImport:
    return import_tau_bench(
        [external / TAU / f"{domain}_tasks_test.json"],
        tools_info=external / TAU / f"{domain}_tools_info.json",
    )


def _by_id(result: TauImport, case_id: str) -> Case:
    return next(case for case in result.dataset.cases if case.id == case_id)


def _passes_doing_nothing(case: Case) -> bool:
    """No expected write and no required output: the state left unchanged is the gold state."""
    assert case.scorers is not None
    return (
        case.expected_tools == []
        and not case.expected_arguments
        and all(spec.name != "response" for spec in case.scorers)
    )


@pytest.mark.external
@pytest.mark.parametrize(
    ("domain", "tasks", "tools", "writes"),
    [("retail", 115, 16, RETAIL_WRITES), ("airline", 50, 14, AIRLINE_WRITES)],
)
def test_the_real_task_files_import(
    external: Path, domain: str, tasks: int, tools: int, writes: set[str]
) -> None:
    result = _import(external, domain)
    assert len(result.dataset.cases) == tasks
    assert result.dataset.tools is not None
    assert len(result.dataset.tools) == tools
    assert result.write_tools == writes
    assert result.unmapped == []
    for case in result.dataset.cases:
        assert case.review_status == "candidate"
        assert case.tool_match == "any_order"
        assert set(case.expected_tools or []) <= writes  # reads are never required
        assert case.scorers is not None
        for spec in case.scorers:
            scorer_from_spec(spec)  # every spec's settings are ones its scorer takes


@pytest.mark.external
def test_a_retail_task_expects_its_one_write_with_the_gold_arguments(external: Path) -> None:
    case = _by_id(_import(external, "retail"), "retail_tasks_test-0")
    assert case.expected_tools == ["exchange_delivered_order_items"]
    [invocation] = case.expected_arguments
    assert invocation.tool == "exchange_delivered_order_items"
    assert invocation.arguments == {
        "order_id": ExactComparator(value="#W2378156"),
        "item_ids": ExactComparator(value=["1151293680", "4983901480"]),
        "new_item_ids": ExactComparator(value=["7706410293", "7747408585"]),
        "payment_method_id": ExactComparator(value="credit_card_9513926"),
    }
    assert case.input is None  # the simulated user speaks first, as in tau-bench
    assert case.user is not None
    assert case.user.instruction.startswith("You are Yusuf Rossi in 19122.")
    assert case.user.known_facts == {"user_id": "yusuf_rossi_9620"}
    assert case.metadata["user_id"] == "yusuf_rossi_9620"
    assert case.metadata["instruction"] == case.user.instruction
    gold = case.metadata["gold_actions"]
    assert isinstance(gold, list)
    assert len(gold) == 5
    assert case.scorers is not None
    trajectory = case.scorers[0]
    assert trajectory.name == "trajectory"
    assert "get_order_details" in trajectory.settings["ignore_tools"]  # type: ignore[operator]


HAND_OFF = StopCondition(tool_called="transfer_to_human_agents", goal=False)


@pytest.mark.external
def test_the_airline_tasks_import_with_their_instructions_as_simulated_users(
    external: Path, tmp_path: Path
) -> None:
    tasks = json.loads((external / TAU / "airline_tasks_test.json").read_text(encoding="utf-8"))
    dataset = _import(external, "airline").dataset
    assert len(dataset.cases) == len(tasks) == 50
    for task, case in zip(tasks, dataset.cases, strict=True):
        assert case.input is None
        assert case.user is not None
        assert case.user.instruction == task["instruction"]
        assert case.user.known_facts == {"user_id": task["user_id"]}
        assert case.user.max_turns == DEFAULT_MAX_TURNS
        assert case.user.stop_when == [HAND_OFF]  # tau-bench's terminating tool: a hand-off
    out = tmp_path / "airline.yaml"
    dump_dataset(dataset, out)
    assert load_dataset(out).cases == dataset.cases  # every case validates from the file


@pytest.mark.external
def test_instruction_as_input_keeps_the_flattened_cases_for_a_run_without_a_simulator(
    external: Path,
) -> None:
    flat = import_tau_bench(
        [external / TAU / "airline_tasks_test.json"],
        tools_info=external / TAU / "airline_tools_info.json",
        instruction_as_input=True,
    ).dataset
    simulated = _import(external, "airline").dataset
    for flat_case, case in zip(flat.cases, simulated.cases, strict=True):
        assert case.user is not None
        assert flat_case.user is None
        assert flat_case.input == case.user.instruction
        # Graded the same way either way: only who speaks differs.
        assert flat_case.model_copy(update={"input": None, "user": case.user}) == case


@pytest.mark.external
def test_required_outputs_become_a_contains_check(external: Path) -> None:
    case = _by_id(_import(external, "retail"), "retail_tasks_test-2")
    assert case.scorers is not None
    [response] = [spec for spec in case.scorers if spec.name == "response"]
    assert response.settings == {"all_of": ["10"], "scope": "every_answer"}
    assert case.metadata["outputs"] == ["10"]


@pytest.mark.external
def test_the_tasks_a_do_nothing_agent_passes(external: Path) -> None:
    retail = [c.id for c in _import(external, "retail").dataset.cases if _passes_doing_nothing(c)]
    airline = [c.id for c in _import(external, "airline").dataset.cases if _passes_doing_nothing(c)]
    assert len(retail) == 5
    assert len(airline) == 19  # 38% of airline: the share published audits report
    case = _by_id(_import(external, "airline"), airline[0])
    silent = TraceBuilder(input=case.input).tool("get_user_details", {"user_id": "x"}).build()
    assert grade(silent, case).status == "passed"  # reads allowed, no write made
    writes = TraceBuilder().tool("cancel_reservation", {"reservation_id": "Z"}).build()
    assert grade(writes, case).status == "failed"


@pytest.mark.external
def test_grading_the_gold_write_passes_and_a_wrong_argument_fails(external: Path) -> None:
    case = _by_id(_import(external, "retail"), "retail_tasks_test-0")
    tasks = json.loads((external / TAU / "retail_tasks_test.json").read_text(encoding="utf-8"))
    gold = {action["name"]: action["kwargs"] for action in tasks[0]["actions"]}
    name = "exchange_delivered_order_items"
    right = TraceBuilder().tool("get_order_details", {}).tool(name, gold[name]).build()
    assert grade(right, case).status == "passed"
    wrong = TraceBuilder().tool(name, {**gold[name], "payment_method_id": "gift_card_1"}).build()
    assert grade(wrong, case).status == "failed"
    assert grade(TraceBuilder().build(), case).status == "failed"


@pytest.mark.external
def test_the_tau2_mock_tasks_import(external: Path) -> None:
    result = import_tau_bench([external / "tau2-bench-mock" / "tasks.json"])
    cases = {case.id: case for case in result.dataset.cases}
    assert len(cases) == 10
    assert result.dataset.tools is None  # no tools info given
    assert result.write_tools == {"create_task", "update_task_status"}
    create = cases["create_task_1"]
    assert create.expected_tools == ["create_task"]
    assert create.expected_arguments[0].arguments == {
        "user_id": ExactComparator(value="user_1"),
        "title": ExactComparator(value="Important Meeting"),
    }
    # ACTION in the reward basis: the hand-off is required, compare_args [] compares no argument
    impossible = cases["impossible_task_1"]
    assert impossible.expected_tools == ["transfer_to_human_agents"]
    assert impossible.expected_arguments == []
    # COMMUNICATE (the default basis): communicate_info must be said
    communicate = cases["update_task_with_initialization_data"]
    assert communicate.scorers is not None
    assert any(spec.name == "response" for spec in communicate.scorers)
    # Only ENV_ASSERTION counts: nothing trailcheck can check, said so
    env_only = cases["update_task_with_history_and_env_assertions"]
    assert env_only.scorers == []
    assert env_only.expected_tools is None
    assert any(line.startswith(env_only.id + ": env_assertions") for line in result.unmapped)
    assert [c.id for c in cases.values() if _passes_doing_nothing(c)] == ["create_task_1_nl_eval"]


@pytest.mark.external
def test_the_tau2_mock_tasks_keep_their_persona_and_the_users_actions_are_reported(
    external: Path,
) -> None:
    result = import_tau_bench([external / "tau2-bench-mock" / "tasks.json"], max_turns=12)
    tasks = json.loads((external / "tau2-bench-mock" / "tasks.json").read_text(encoding="utf-8"))
    for task, case in zip(tasks, result.dataset.cases, strict=True):
        scenario = task["user_scenario"]
        assert case.input is None
        assert case.user is not None
        assert case.user.instruction == scenario["instructions"]
        assert case.user.persona == scenario.get("persona")
        assert case.user.max_turns == 12
        assert case.user.stop_when == [HAND_OFF]  # no tools info: the hand-off is assumed
        assert case.metadata["user_scenario"] == scenario


@pytest.mark.external
@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_an_import_round_trips_through_a_dataset_file(
    external: Path, tmp_path: Path, suffix: str
) -> None:
    dataset = _import(external, "airline").dataset
    out = tmp_path / f"airline{suffix}"
    dump_dataset(dataset, out)
    again = load_dataset(out)
    assert again == dataset
    assert again.version == dataset.version


def _write(tmp_path: Path, data: object, name: str = "tasks.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_task_without_an_instruction_is_named_by_file_and_index(tmp_path: Path) -> None:
    good = {"user_id": "u", "instruction": "Cancel order 1.", "actions": [], "outputs": []}
    path = _write(tmp_path, [good, {"user_id": "u", "actions": []}])
    with pytest.raises(RecordError, match=r"tasks\.json: field '\[1\]\.instruction': expected str"):
        import_tau_bench([path])


def test_a_bad_action_is_named_by_its_index(tmp_path: Path) -> None:
    task = {"instruction": "x", "actions": [{"name": "cancel", "kwargs": []}], "outputs": []}
    with pytest.raises(RecordError, match=r"'\[0\]\.actions\[0\]\.kwargs': expected an object"):
        import_tau_bench([_write(tmp_path, [task])])


def test_a_tool_missing_from_the_tools_info_is_an_input_error(tmp_path: Path) -> None:
    task = {"instruction": "x", "actions": [{"name": "cancel", "kwargs": {"id": 1}}]}
    tools = _write(tmp_path, [{"type": "function", "function": {"name": "get_order"}}], "t.json")
    with pytest.raises(RecordError, match="tool 'cancel' is not in the tools info"):
        import_tau_bench([_write(tmp_path, [task])], tools_info=tools)


def test_a_file_that_is_not_a_task_list_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"tasks\.json: expected a JSON list of tasks, got dict"):
        import_tau_bench([_write(tmp_path, {"base": []})])
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    with pytest.raises(RecordError, match=r"broken\.json:1: not JSON"):
        import_tau_bench([broken])


def test_which_tools_write_by_name_and_by_schema() -> None:
    assert not is_write_tool("get_user_details")
    assert not is_write_tool("search_direct_flight")
    assert not is_write_tool("think")
    assert not is_write_tool("transfer_to_human_agents")  # tau-bench skips it when replaying
    assert is_write_tool("cancel_pending_order")
    schemas = [
        {"type": "function", "function": {"name": "get_quote"}},
        {"function": {"name": "get_and_reserve"}, "annotations": {"readOnlyHint": False}},
        {"name": "lookup", "annotations": {"readOnlyHint": True}},
    ]
    assert write_tools_of(schemas) == {"get_quote": False, "get_and_reserve": True, "lookup": False}


def _tau2_task(instructions: object, **scenario: object) -> dict[str, object]:
    return {
        "id": "refund_1",
        "user_scenario": {"instructions": instructions, **scenario},
        "evaluation_criteria": {"actions": [], "reward_basis": ["DB"]},
    }


def test_tau2_structured_instructions_split_what_the_user_knows_from_its_goal(
    tmp_path: Path,
) -> None:
    """Written from tau2's documented ``StructuredUserInstructions`` (domain, reason_for_call,
    known_info, unknown_info, task_instructions): the mock tasks in shared material have only
    plain-text instructions."""
    structured = {
        "domain": "airline",
        "reason_for_call": "You want to cancel reservation EHGLP3.",
        "known_info": "You are Emma Kim. Your user id is emma_kim_9957.",
        "unknown_info": "You do not remember the date of the flight.",
        "task_instructions": "Do not accept a voucher. If refused a refund, end the call.",
    }
    path = _write(tmp_path, [_tau2_task(structured, persona="Polite but firm.")])
    [case] = import_tau_bench([path]).dataset.cases
    assert case.user is not None
    assert case.user.instruction == (
        "Domain: airline\n"
        "Reason for call: You want to cancel reservation EHGLP3.\n"
        "Unknown info: You do not remember the date of the flight.\n"
        "Task instructions: Do not accept a voucher. If refused a refund, end the call."
    )
    assert "Emma Kim" not in case.user.instruction  # told only when asked: a known fact
    assert case.user.known_facts == {"known_info": structured["known_info"]}
    assert case.user.persona == "Polite but firm."
    [flat] = import_tau_bench([path], instruction_as_input=True).dataset.cases
    assert flat.user is None
    assert isinstance(flat.input, str)
    assert flat.input.startswith("domain: airline\nreason_for_call: You want to cancel")
    assert "known_info: You are Emma Kim." in flat.input


def test_tau2_instructions_without_task_instructions_are_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, [_tau2_task({"domain": "airline", "reason_for_call": "x"})])
    with pytest.raises(RecordError, match=r"'\[0\]\.user_scenario\.instructions'"):
        import_tau_bench([path])


def test_no_hand_off_condition_where_the_tools_info_has_no_hand_off_tool(tmp_path: Path) -> None:
    task = {"user_id": "u_1", "instruction": "Cancel order 1.", "actions": [], "outputs": []}
    tools = [{"type": "function", "function": {"name": "cancel_order"}}]
    path = _write(tmp_path, [task])
    [case] = import_tau_bench([path], tools_info=_write(tmp_path, tools, "t.json")).dataset.cases
    assert case.user is not None
    assert case.user.stop_when == []
    tools.append({"type": "function", "function": {"name": "transfer_to_human_agents"}})
    [case] = import_tau_bench([path], tools_info=_write(tmp_path, tools, "t.json")).dataset.cases
    assert case.user is not None
    assert case.user.stop_when == [HAND_OFF]
