"""Rule files: valid rules load; every problem is reported with its file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.loop import (
    RULE_KINDS,
    EfficiencyRule,
    PolicyRule,
    RuleFileError,
    builtin_rules,
    combined_rules,
    load_rules,
    parse_rules,
)
from trailcheck.policy import MustPrecedePolicy
from trailcheck.testing import TraceBuilder


def test_builtin_rules_cover_every_kind_but_none_twice() -> None:
    rules = builtin_rules()
    assert len({rule.name for rule in rules}) == len(rules)
    assert {rule.kind for rule in rules} == set(RULE_KINDS)


def test_a_policy_rule_loads_as_the_policy_object(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(
        "rules:\n"
        "  - name: r1\n"
        "    label: refund_without_identity_check\n"
        "    severity: high\n"
        "    kind: policy\n"
        "    policy: {name: must_precede, tool: check_id, before: refund, bind: {cid: cid}}\n",
        encoding="utf-8",
    )
    (rule,) = load_rules(path)
    assert isinstance(rule, PolicyRule)
    assert rule.policy == MustPrecedePolicy(tool="check_id", before="refund", bind={"cid": "cid"})


def test_every_problem_is_named_with_line_and_field() -> None:
    text = """rules:
  - name: a
    label: x
    severity: high
    kind: policy
    policy: {name: must_precede, tool: a}
  - name: b
    label: Vague Label
    severity: high
    kind: efficiency
    loop_repeats: 3
  - name: c
    label: c
    severity: low
    kind: polic
  - name: d
    label: d
    severity: low
    kind: final_answer
    colour: red
"""
    with pytest.raises(RuleFileError) as raised:
        parse_rules(text, source="mine.yaml")
    shown = [str(problem) for problem in raised.value.problems]
    assert shown == [
        "mine.yaml:6: field 'rules[0].policy.before': required field is missing",
        "mine.yaml:8: field 'rules[1].label': String should match pattern '^[a-z][a-z0-9_]*$'",
        "mine.yaml:12: field 'rules[2]': unknown rule kind 'polic' (did you mean 'policy'?);"
        f" known: {', '.join(sorted(RULE_KINDS))}",
        "mine.yaml:20: field 'rules[3].colour': unknown setting",
    ]
    assert str(raised.value).startswith("mine.yaml: 4 problems")


def test_scorer_settings_are_checked_by_the_scorer() -> None:
    text = "rules:\n  - {name: a, label: a, severity: low, kind: efficiency, loop_repeats: 1}\n"
    with pytest.raises(RuleFileError, match=r"loop_repeats is at least 2, got 1"):
        parse_rules(text, source="r.yaml")
    with pytest.raises(RuleFileError, match="enables at least one check"):
        parse_rules("rules:\n  - {name: a, label: a, severity: low, kind: efficiency}\n")


def test_duplicate_names_and_keys_and_bad_yaml() -> None:
    twice = (
        "rules:\n"
        "  - {name: a, label: a, severity: low, kind: final_answer}\n"
        "  - {name: a, label: b, severity: low, kind: final_answer}\n"
    )
    with pytest.raises(
        RuleFileError, match=r"r.yaml:3: .*duplicate rule name 'a' \(first at line 2\)"
    ):
        parse_rules(twice, source="r.yaml")
    with pytest.raises(RuleFileError, match=r"r.yaml:2: .*duplicate key 'label'"):
        parse_rules(
            "rules:\n  - {name: a, label: a, label: b, severity: low, kind: final_answer}\n",
            source="r.yaml",
        )
    with pytest.raises(RuleFileError, match="not valid YAML"):
        parse_rules("rules: [\n", source="r.yaml")
    with pytest.raises(RuleFileError, match="holds rules: a list of rules"):
        parse_rules("- just a list\n", source="r.yaml")


def test_combined_rule_sets_refuse_a_name_twice() -> None:
    rules = builtin_rules()
    assert len(combined_rules(rules[:2], rules[2:])) == len(rules)
    with pytest.raises(RuleFileError, match="given twice"):
        combined_rules(rules, rules[:1])


def test_an_unreadable_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(RuleFileError, match="cannot read the file"):
        load_rules(tmp_path / "missing.yaml")


def test_efficiency_rule_in_python() -> None:
    rule = EfficiencyRule(name="n", label="tool_call_loop", severity="low", max_tool_calls=2)
    assert rule.kind == "efficiency"


def test_list_settings_load_from_yaml() -> None:
    text = """rules:
  - name: loop
    label: tool_call_loop
    severity: low
    kind: efficiency
    max_tool_calls: 1
    ignore_tools: [think]
  - name: claim
    label: claimed_upgrade_without_state_change
    severity: high
    kind: unsupported_claim
    claims:
      - {claim: upgrade, pattern: "\\\\bupgraded\\\\b", state_path: plan.tier}
"""
    loop_rule, claim_rule = parse_rules(text)
    assert isinstance(loop_rule, EfficiencyRule)
    assert loop_rule.ignore_tools == ["think"]
    trace = (
        TraceBuilder("t", input="upgrade me")
        .tool("think", {})
        .tool("think", {})
        .tool("set_plan", {"tier": "pro"})
        .output("You have been upgraded.")
        .state(before={"plan": {"tier": "free"}}, after={"plan": {"tier": "free"}})
        .build()
    )
    assert loop_rule.detect(trace) is None  # one call once think is left out
    finding = claim_rule.detect(trace)
    assert finding is not None
    assert finding.reason == (
        'answer claims upgrade ("upgraded") but state_after.plan.tier is unchanged from'
        " state_before"
    )
