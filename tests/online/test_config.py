"""The online file: the smallest file loads as written, every kind of evaluator, every problem
reported with its file, line and field, and versions that follow the definition."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from trailcheck.loop import EfficiencyRule, builtin_rules
from trailcheck.online import (
    Evaluator,
    EvaluatorFilter,
    GroundednessJudgeSpec,
    OnlineConfig,
    OnlineConfigError,
    RubricJudgeSpec,
    TaskCompletionJudgeSpec,
    duration_seconds,
    load_online_config,
    parse_online_config,
    reference_free_scorers,
)
from trailcheck.policy import MustPrecedePolicy

# The smallest file of issue 36, as written there.
SMALLEST = """\
evaluators:
  - name: refund-policy
    rule: refund_without_identity_check   # a detect rule by name; `scorer:`, `policy:`, `judge:` name the other kinds
    sampling: 0.25
    delay: 0s
"""  # noqa: E501 (the issue's comment, as written)


def problems_of(text: str) -> list[str]:
    with pytest.raises(OnlineConfigError) as raised:
        parse_online_config(text, source="online.yaml")
    return [str(problem) for problem in raised.value.problems]


def one(text: str) -> Evaluator:
    (evaluator,) = parse_online_config(text).evaluators
    return evaluator


# --- loading ------------------------------------------------------------------------------------


def test_the_smallest_file_loads_exactly_as_written_with_the_rest_defaulted(
    tmp_path: Path,
) -> None:
    path = tmp_path / "online.yaml"
    path.write_text(SMALLEST, encoding="utf-8")
    (evaluator,) = load_online_config(path).evaluators
    assert evaluator.model_dump() == {
        "name": "refund-policy",
        "rule": "refund_without_identity_check",
        "scorer": None,
        "policy": None,
        "judge": None,
        "filter": EvaluatorFilter().model_dump(),
        "sampling": 0.25,
        "delay": "0s",
        "sample_by": "trace",
    }
    assert evaluator.kind == "rule"
    assert evaluator.delay_seconds == 0
    assert len(evaluator.version) == 12
    assert int(evaluator.version, 16) >= 0


def test_every_kind_of_evaluator_loads() -> None:
    config = parse_online_config(
        """\
evaluators:
  - {name: loops, rule: tool_call_loop}
  - {name: ended, scorer: termination}
  - name: lean
    scorer: {name: efficiency, max_tool_calls: 12}
  - name: refunds
    policy: [{name: must_precede, tool: verify_identity, before: issue_refund}]
  - {name: done, judge: task_completion, sampling: 0.05}
  - {name: grounded, judge: {name: groundedness, model: gpt-4.1-mini}}
  - name: polite
    judge: {name: rubric, criterion: The agent apologises when a refund is refused.}
    sample_by: session
    delay: 1h30m
    filter:
      service: support-api
      agent: support
      tool: issue_refund
      label: tool_call_loop
      metadata: {tier: gold, region: 3}
      metadata_keys: [customer_id]
      since: 2026-06-01T00:00:00Z
      until: 2026-07-01
"""
    )
    kinds = {e.name: e.kind for e in config.evaluators}
    assert kinds == {
        "loops": "rule",
        "ended": "scorer",
        "lean": "scorer",
        "refunds": "policy",
        "done": "judge",
        "grounded": "judge",
        "polite": "judge",
    }
    lean = config.evaluator("lean")
    assert lean.scorer is not None
    assert lean.scorer.settings == {"max_tool_calls": 12}
    assert config.evaluator("refunds").policy == [
        MustPrecedePolicy(tool="verify_identity", before="issue_refund")
    ]
    assert config.evaluator("done").judge == TaskCompletionJudgeSpec()
    assert config.evaluator("grounded").judge == GroundednessJudgeSpec(model="gpt-4.1-mini")
    polite = config.evaluator("polite")
    assert isinstance(polite.judge, RubricJudgeSpec)
    assert polite.judge.template_version == "1"
    assert (polite.sample_by, polite.delay_seconds) == ("session", 5400)
    assert polite.filter.metadata == {"tier": "gold", "region": 3}
    assert polite.filter.since is not None
    assert polite.filter.since.isoformat() == "2026-06-01T00:00:00+00:00"
    with pytest.raises(KeyError):
        config.evaluator("absent")


def test_the_reference_free_builtin_scorers() -> None:
    assert {"termination", "efficiency", "grounding"} <= reference_free_scorers()
    for needs_a_case in ("trajectory", "arguments", "state", "response", "policy"):
        assert needs_a_case not in reference_free_scorers()


def test_a_rule_is_checked_against_the_rules_given_instead_of_the_builtins() -> None:
    custom = EfficiencyRule(name="chatty", label="too_many_calls", severity="low", max_tool_calls=5)
    text = "evaluators:\n  - {name: c, rule: chatty}\n"
    assert problems_of(text) == [
        "online.yaml:2: field 'evaluators[0].rule': unknown detection rule 'chatty'; known: "
        + ", ".join(sorted(rule.name for rule in builtin_rules()))
    ]
    (evaluator,) = parse_online_config(text, rules=[*builtin_rules(), custom]).evaluators
    assert evaluator.definition["rule"]["max_tool_calls"] == 5
    with pytest.raises(OnlineConfigError, match="unknown detection rule 'tool_call_loop'"):
        parse_online_config("evaluators:\n  - {name: c, rule: tool_call_loop}\n", rules=[custom])


# --- problems -----------------------------------------------------------------------------------


def test_every_problem_is_reported_with_its_line_and_field() -> None:
    assert problems_of(
        """\
evaluators:
  - name: refund-policy
    rule: refund_without_identity_chek
    sampling: 1.25
    delay: 5
  - name: paths
    scorer: trajectory
  - name: lean
    scorer: {name: efficiency, max_tool_calls: "3"}
  - name: two
    rule: tool_call_loop
    judge: task_completion
  - name: nothing
  - name: rubric
    judge: rubric
  - name: refund-policy
    judge: {name: rubric, criterion: x, template_version: "9"}
    filter: {service: a, colour: red}
    sample_by: user
  - name: window
    policy: [{name: forbidden, tool: delete_account}]
    filter: {since: 2026-06-02, until: 2026-06-01}
  - {name: epoch, scorer: grounding, filter: {since: 1780000000}}
  - {name: soon, scorer: grounding, delay: 5 minutes}
extra: 1
"""
    ) == [
        "online.yaml:3: field 'evaluators[0].rule': unknown detection rule"
        " 'refund_without_identity_chek' (did you mean 'refund_without_identity_check'?); known: "
        + ", ".join(sorted(rule.name for rule in builtin_rules())),
        "online.yaml:4: field 'evaluators[0].sampling': Input should be less than or equal to 1",
        "online.yaml:5: field 'evaluators[0].delay': a duration is text with its unit, as 0s,"
        " 30s, 5m or 1h; not 5",
        "online.yaml:7: field 'evaluators[1].scorer': scorer 'trajectory' compares a trace with"
        " a case's expectation, which online traffic has none of; the reference-free scorers:"
        " efficiency, grounding, termination; or use rule:, policy: or judge:",
        "online.yaml:9: field 'evaluators[2].scorer': scorer 'efficiency': max_tool_calls:"
        " Input should be a valid integer",
        "online.yaml:10: field 'evaluators[3]': an evaluator runs exactly one of rule, scorer,"
        " policy, judge; this one gives rule and judge",
        "online.yaml:13: field 'evaluators[4]': an evaluator runs exactly one of rule, scorer,"
        " policy, judge",
        "online.yaml:15: field 'evaluators[5].judge': a rubric judge needs its criterion:"
        " {name: rubric, criterion: ...}",
        "online.yaml:16: field 'evaluators[6].name': duplicate evaluator name 'refund-policy'"
        " (first at line 2)",
        "online.yaml:17: field 'evaluators[6].judge.template_version': no rubric template '9'"
        " (known: 1)",
        "online.yaml:18: field 'evaluators[6].filter.colour': unknown field",
        "online.yaml:19: field 'evaluators[6].sample_by': Input should be 'trace' or 'session'",
        "online.yaml:22: field 'evaluators[7].filter': until (2026-06-01 00:00:00+00:00) must"
        " come after since (2026-06-02 00:00:00+00:00)",
        "online.yaml:23: field 'evaluators[8].filter.since': a time is ISO 8601 text, as"
        " 2026-06-19T09:00:00Z; not 1780000000",
        "online.yaml:24: field 'evaluators[9].delay': a duration is whole numbers with units"
        " (d, h, m, s) in that order, as 0s, 30s, 5m, 1h or 1h30m; not '5 minutes'",
        "online.yaml:25: field 'extra': unknown field",
    ]


def test_the_policy_scorer_is_pointed_at_policy() -> None:
    (problem,) = problems_of("evaluators:\n  - {name: p, scorer: policy}\n")
    assert problem.endswith("; write policy rules under policy:")


def test_problems_of_the_text_itself_are_reported_as_for_datasets(tmp_path: Path) -> None:
    assert problems_of("evaluators:\n  - name: a\n    name: b\n    rule: tool_call_loop\n") == [
        "online.yaml:3: field 'evaluators[0].name': duplicate key 'name' (first at line 2)"
    ]
    (syntax,) = problems_of("evaluators: [\n")
    assert syntax.startswith("online.yaml:2: not valid YAML: while parsing a flow node")
    assert problems_of("- 1\n") == [
        "online.yaml:1: an online file holds a mapping: evaluators, a list of evaluators"
    ]
    assert problems_of("evaluators: []\n") == [
        "online.yaml:1: field 'evaluators': an online file holds evaluators: a list of one or"
        " more evaluators"
    ]
    with pytest.raises(OnlineConfigError, match="cannot read the file"):
        load_online_config(tmp_path / "absent.yaml")
    with pytest.raises(OnlineConfigError, match="not UTF-8"):
        parse_online_config(b"\xff\xfe", source="online.yaml")


@pytest.mark.parametrize(
    ("written", "canonical", "seconds"),
    [
        ("0s", "0s", 0),
        ("30s", "30s", 30),
        ("5m", "5m", 300),
        ("1h", "1h", 3600),
        ("90s", "1m30s", 90),
        ("1h90m", "2h30m", 9000),
        ("2d", "2d", 172_800),
    ],
)
def test_durations_are_kept_in_canonical_form(written: str, canonical: str, seconds: int) -> None:
    evaluator = one(f"evaluators:\n  - {{name: e, rule: tool_call_loop, delay: {written}}}\n")
    assert (evaluator.delay, evaluator.delay_seconds) == (canonical, seconds)
    assert duration_seconds(written) == seconds


# --- versions -----------------------------------------------------------------------------------


def version_of(body: str) -> str:
    return one(f"evaluators:\n  - {{name: e, {body}}}\n").version


def test_the_same_definition_written_differently_is_the_same_version() -> None:
    assert version_of("scorer: efficiency") == version_of("scorer: {name: efficiency}")
    assert version_of("scorer: efficiency") == version_of(
        "scorer: {name: efficiency, max_identical_calls: 2}"  # its default
    )
    assert version_of("policy: [{name: must_precede, tool: a, before: b}]") == version_of(
        "policy: [{before: b, successful: true, tool: a, name: must_precede}]"
    )
    assert version_of("judge: task_completion") == version_of("judge: {name: task_completion}")


def test_which_traces_and_when_do_not_change_the_version() -> None:
    assert version_of("rule: tool_call_loop") == version_of(
        "rule: tool_call_loop, sampling: 0.05, delay: 5m, sample_by: session,"
        " filter: {service: api}"
    )


def test_changing_what_decides_a_score_is_a_new_version() -> None:
    versions = {
        version_of(body)
        for body in (
            "rule: tool_call_loop",
            "rule: excessive_tool_calls",
            "scorer: efficiency",
            "scorer: {name: efficiency, max_tool_calls: 12}",
            "scorer: termination",
            "policy: [{name: forbidden, tool: a}]",
            "policy: [{name: forbidden, tool: b}]",
            "judge: task_completion",
            "judge: {name: task_completion, model: m}",
            "judge: {name: rubric, criterion: x}",
            "judge: {name: rubric, criterion: y}",
            "judge: groundedness",
        )
    }
    assert len(versions) == 12


def test_a_rules_version_follows_the_rules_definition_not_only_its_name() -> None:
    tuned = [
        rule.model_copy(update={"call_repeats": 4}) if rule.name == "tool_call_loop" else rule
        for rule in builtin_rules()
    ]
    text = "evaluators:\n  - {name: e, rule: tool_call_loop}\n"
    (builtin,) = parse_online_config(text).evaluators
    (retuned,) = parse_online_config(text, rules=tuned).evaluators
    assert builtin.version != retuned.version
    assert builtin.definition["rule"]["call_repeats"] == 3


def test_the_version_is_the_digest_of_the_canonical_definition() -> None:
    import hashlib
    import json

    evaluator = one("evaluators:\n  - {name: e, policy: [{name: forbidden, tool: a}]}\n")
    assert evaluator.definition == {"policy": [{"name": "forbidden", "tool": "a"}]}
    canonical = json.dumps(evaluator.definition, sort_keys=True, separators=(",", ":"))
    assert evaluator.version == hashlib.sha256(canonical.encode()).hexdigest()[:12]


# --- in Python ----------------------------------------------------------------------------------


def test_evaluators_built_in_python_are_checked_the_same_way() -> None:
    built = Evaluator(name="e", rule="tool_call_loop", sampling=0.5)
    assert built.version == version_of("rule: tool_call_loop")
    with pytest.raises(ValidationError, match="exactly one of"):
        Evaluator(name="e")
    with pytest.raises(ValidationError, match="unique"):
        OnlineConfig(evaluators=[built, built])
