"""Alerts in the online file: optional, inline rules that are rates' own, the defaults, every
problem with its line and field, and the evaluator each one watches."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tests.online.test_config import SMALLEST, problems_of
from trailcheck.online import (
    Evaluator,
    FailureRateAboveAlert,
    FailureRateAboveRule,
    FailureRateChangeAlert,
    FailureRateChangeRule,
    OnlineConfig,
    WebhookDestination,
    WindowCounts,
    evaluate_alert,
    online_json_schema,
    parse_online_config,
)

EVALUATORS = """\
evaluators:
  - name: refund-policy
    rule: refund_without_identity_check
  - {name: done, judge: task_completion, sampling: 0.05}
"""


def test_a_file_without_alerts_has_none() -> None:
    assert parse_online_config(SMALLEST).alerts == []


def test_alerts_load_with_their_rules_inline_and_the_rest_defaulted() -> None:
    config = parse_online_config(
        EVALUATORS
        + """\
alerts:
  - name: refunds-failing
    evaluator: refund-policy
    kind: failure_rate_above
    threshold: 0.05
  - name: done-worse
    evaluator: done
    window: 90m
    kind: failure_rate_change
    alpha: 0.001
    direction: either
    notify: [terminal, otel, {webhook: "https://hooks.example.com/T0/B0"}]
"""
    )
    above, change = config.alerts
    assert isinstance(above, FailureRateAboveAlert)
    assert (above.name, above.evaluator, above.window, above.window_seconds) == (
        "refunds-failing",
        "refund-policy",
        "1h",
        3600,
    )
    assert above.notify == ["terminal"]
    assert above.rule == FailureRateAboveRule(threshold=0.05)
    assert type(above.rule) is FailureRateAboveRule
    assert isinstance(change, FailureRateChangeAlert)
    assert (change.window, change.window_seconds) == ("1h30m", 5400)
    assert change.rule == FailureRateChangeRule(alpha=0.001, direction="either")
    assert change.notify == [
        "terminal",
        "otel",
        WebhookDestination(webhook="https://hooks.example.com/T0/B0"),
    ]
    assert config.alert("done-worse") is change
    with pytest.raises(KeyError):
        config.alert("absent")


def test_an_alerts_rule_is_what_the_rates_evaluate() -> None:
    alert = FailureRateAboveAlert(name="a", evaluator="e", threshold=0.2)
    fired = evaluate_alert(alert.rule, WindowCounts(scored=200, passed=120))
    assert fired is not None
    assert fired.rule == FailureRateAboveRule(threshold=0.2)
    assert evaluate_alert(alert.rule, WindowCounts(scored=5, passed=3)) is None


def test_every_problem_of_the_alerts_is_reported_with_its_line_and_field() -> None:
    assert problems_of(
        EVALUATORS
        + """\
alerts:
  - name: a
    evaluator: refund-polcy
    kind: failure_rate_above
    threshold: 1.5
    notify: [terminal, sms, {webhook: "ftp://x"}, {hook: 1}, 3]
  - {name: a, evaluator: done, kind: failure_rate_abov}
  - {name: c, evaluator: done, alpha: 0.1}
  - {name: d, evaluator: done, kind: failure_rate_change, threshold: 0.1, window: 0s}
  - {name: e, evaluator: done, kind: failure_rate_change, notify: [otel, otel]}
  - {name: f, evaluator: done, kind: failure_rate_change, window: 1 hour, notify: []}
"""
    ) == [
        "online.yaml:7: field 'alerts[0].evaluator': unknown evaluator 'refund-polcy' (did you"
        " mean 'refund-policy'?); known: done, refund-policy",
        "online.yaml:9: field 'alerts[0].threshold': Input should be less than 1",
        "online.yaml:10: field 'alerts[0].notify[1]': Input should be 'terminal' or 'otel'",
        "online.yaml:10: field 'alerts[0].notify[2].webhook': a webhook is an http(s) URL with a"
        " host; not 'ftp://x'",
        "online.yaml:10: field 'alerts[0].notify[3].webhook': required field is missing",
        "online.yaml:10: field 'alerts[0].notify[3].hook': unknown field",
        "online.yaml:10: field 'alerts[0].notify[4]': a destination is terminal, otel or"
        " {webhook: URL}",
        "online.yaml:11: field 'alerts[1].kind': unknown alert kind 'failure_rate_abov' (did you"
        " mean 'failure_rate_above'?); known: failure_rate_above, failure_rate_change",
        "online.yaml:11: field 'alerts[1].name': duplicate alert name 'a' (first at line 6)",
        "online.yaml:12: field 'alerts[2].kind': an alert names its rule: kind:"
        " failure_rate_above or failure_rate_change",
        "online.yaml:13: field 'alerts[3].window': a window lasts some time: 5m, 1h, 1d; not 0s",
        "online.yaml:13: field 'alerts[3].threshold': unknown field",
        "online.yaml:14: field 'alerts[4].notify': each destination is named once; otel is"
        " repeated",
        "online.yaml:15: field 'alerts[5].window': a duration is whole numbers with units (d, h,"
        " m, s) in that order, as 0s, 30s, 5m, 1h or 1h30m; not '1 hour'",
        "online.yaml:15: field 'alerts[5].notify': List should have at least 1 item after"
        " validation, not 0",
    ]


def test_an_alert_on_a_broken_evaluator_is_not_reported_again() -> None:
    problems = problems_of(
        "evaluators:\n  - {name: e, rule: tool_call_lop}\n"
        "alerts:\n  - {name: a, evaluator: e, kind: failure_rate_above, threshold: 0.1}\n"
    )
    assert len(problems) == 1
    assert problems[0].startswith("online.yaml:2: field 'evaluators[0].rule'")


def test_alerts_that_are_not_a_list_are_a_problem() -> None:
    assert problems_of(EVALUATORS + "alerts: {name: a}\n") == [
        "online.yaml:5: field 'alerts': alerts is a list of alerts, each with a name, an"
        " evaluator and a kind"
    ]


def test_alerts_built_in_python_are_checked_against_the_evaluators() -> None:
    evaluator = Evaluator(name="e", rule="tool_call_loop")
    alert = FailureRateChangeAlert(name="a", evaluator="e")
    assert OnlineConfig(evaluators=[evaluator], alerts=[alert]).alerts == [alert]
    with pytest.raises(ValidationError, match="alert 'a' watches an unknown evaluator 'x'"):
        OnlineConfig(evaluators=[evaluator], alerts=[alert.model_copy(update={"evaluator": "x"})])
    with pytest.raises(ValidationError, match="alert names are unique: 'a' repeated"):
        OnlineConfig(evaluators=[evaluator], alerts=[alert, alert])


def test_the_schema_describes_alerts_with_their_kind_required() -> None:
    schema = online_json_schema()
    assert schema["required"] == ["evaluators"]
    assert list(schema["properties"]) == ["evaluators", "alerts"]
    items = schema["properties"]["alerts"]["items"]
    assert items["discriminator"]["propertyName"] == "kind"
    above = schema["$defs"]["FailureRateAboveAlert"]
    assert list(above["properties"]) == [
        "name",
        "evaluator",
        "window",
        "notify",
        "kind",
        "threshold",
        "level",
        "method",
    ]
    assert above["required"] == ["name", "evaluator", "threshold", "kind"]
    assert schema["$defs"]["FailureRateChangeAlert"]["required"] == ["name", "evaluator", "kind"]
    assert above["additionalProperties"] is False
