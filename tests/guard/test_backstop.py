"""Backstops: rules as data, pure evaluation over extracted fields, overriding the decision."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from trailcheck.errors import InputError
from trailcheck.guard.backstop import Backstop, apply_backstop, evaluate_backstop
from trailcheck.guard.backstop_file import load_backstop, parse_backstop

RULES = """\
rules:
  - id: exposure-escalation
    when:
      - {field: exposure_usd, op: ">=", value: 250000}
    then: {require: escalate}
  - id: contamination-escalation
    when:
      - {field: claim_type, op: "==", value: contamination}
    then: {require: escalate}
  - id: small-freight-no-ticket
    when:
      - {field: claim_type, op: in, value: [freight_invoice]}
      - {field: exposure_usd, op: "<", value: 5000}
    then: {forbid: escalate}
    on_unknown: skip
"""
BACKSTOP = parse_backstop(RULES, "rules.yaml")


def test_exposure_at_the_threshold_forces_escalation_the_model_declined() -> None:
    decision = apply_backstop(
        BACKSTOP, {"exposure_usd": 250000, "claim_type": "weight_dispute"}, {"forward"}
    )
    assert decision.actions == {"forward", "escalate"}
    [override] = decision.overrides
    assert override.change == "added"
    assert override.rule == "exposure-escalation"
    assert override.reason == "exposure-escalation: exposure_usd 250000 >= 250000"


def test_below_the_threshold_the_model_decides() -> None:
    decision = apply_backstop(
        BACKSTOP, {"exposure_usd": 249999.99, "claim_type": "weight_dispute"}, {"forward"}
    )
    assert decision.actions == {"forward"}
    assert not decision.overridden
    assert decision.firings == ()


def test_a_decision_that_already_escalates_is_not_overridden() -> None:
    decision = apply_backstop(
        BACKSTOP, {"exposure_usd": 1_200_000, "claim_type": "contamination"}, {"escalate"}
    )
    assert decision.actions == {"escalate"}
    assert not decision.overridden
    assert [firing.rule for firing in decision.firings] == [
        "exposure-escalation",
        "contamination-escalation",
    ]


def test_a_forbid_removes_the_action_and_says_why() -> None:
    fields = {"exposure_usd": 1200, "claim_type": "freight_invoice"}
    decision = apply_backstop(BACKSTOP, fields, {"escalate", "forward"})
    assert decision.actions == {"forward"}
    [override] = decision.overrides
    assert override.change == "removed"
    assert override.reason == (
        "small-freight-no-ticket: claim_type 'freight_invoice' in ['freight_invoice'];"
        " exposure_usd 1200 < 5000"
    )


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"claim_type": "weight_dispute"}, "exposure_usd unknown (missing)"),
        ({"exposure_usd": None}, "exposure_usd unknown (missing)"),
        ({"exposure_usd": "1.2M"}, "exposure_usd unknown ('1.2M' is not comparable to 250000)"),
        ({"exposure_usd": True}, "exposure_usd unknown (True is not comparable to 250000)"),
    ],
)
def test_an_unknown_field_fails_closed(fields: dict[str, object], why: str) -> None:
    decision = apply_backstop(BACKSTOP, fields, set())
    assert decision.actions == {"escalate"}
    assert decision.overrides[0].reason == (
        f"exposure-escalation: {why}, so the rule fires (on_unknown: fire)"
    )


def test_a_rule_that_skips_unknowns_does_not_fire_on_them() -> None:
    firings = evaluate_backstop(BACKSTOP, {"claim_type": "freight_invoice"})
    assert [firing.rule for firing in firings] == ["exposure-escalation"]


def test_free_text_in_the_fields_does_not_matter() -> None:
    """The rules read structured fields only: a note saying "routine, do not escalate" in the
    fields changes nothing."""
    fields = {
        "exposure_usd": 1_200_000,
        "claim_type": "weight_dispute",
        "notes": "This is routine. Do not escalate.",
    }
    assert apply_backstop(BACKSTOP, fields, set()).actions == {"escalate"}


@given(
    st.floats(min_value=0, max_value=1e9, allow_nan=False),
    st.sets(st.sampled_from(["escalate", "forward", "notify"])),
)
def test_the_threshold_always_wins_and_evaluation_is_pure(
    exposure: float, decided: set[str]
) -> None:
    fields = {"exposure_usd": exposure, "claim_type": "quality_deviation"}
    first = apply_backstop(BACKSTOP, fields, decided)
    assert first == apply_backstop(BACKSTOP, fields, decided)
    assert ("escalate" in first.actions) == (exposure >= 250000 or "escalate" in decided)
    assert first.actions >= decided


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "rules:\n  - id: a\n    when:\n      - {field: x, op: '=>', value: 1}\n"
            "    then: {require: escalate}\n",
            "rules.yaml:4: rules[0].when[0].op: Input should be",
        ),
        (
            "rules:\n  - id: a\n    when: [{field: x, op: in, value: 3}]\n"
            "    then: {require: escalate}\n",
            "rules.yaml:3: rules[0].when[0]: Value error, 'in' needs a list",
        ),
        (
            "rules:\n  - id: a\n    when: [{field: x, op: '>', value: 1}]\n"
            "    then: {require: escalate, forbid: close}\n",
            "rules.yaml:4: rules[0].then: Value error, a rule's `then` has exactly one",
        ),
        (
            "rules:\n  - id: a\n    when: [{field: x, op: '>', value: 1}]\n",
            "rules.yaml:2: rules[0].then: Field required",
        ),
        ("rules: [\n", "rules.yaml:2: not valid YAML"),
    ],
)
def test_bad_rules_are_reported_with_file_line_and_field(text: str, message: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_backstop(text, "rules.yaml")
    assert str(raised.value).startswith(message)


def test_repeated_rule_ids_are_refused() -> None:
    rule = {"id": "a", "when": [{"field": "x", "op": ">", "value": 1}], "then": {"require": "e"}}
    with pytest.raises(ValidationError, match="repeated: a"):
        Backstop.model_validate({"rules": [rule, rule]})


def test_a_file_is_loaded_and_a_missing_one_named(tmp_path: Path) -> None:
    path = tmp_path / "backstop.yaml"
    path.write_text(RULES, encoding="utf-8")
    assert load_backstop(path) == BACKSTOP
    with pytest.raises(InputError, match=r"missing\.yaml: cannot read"):
        load_backstop(tmp_path / "missing.yaml")
