"""The redaction rules file: read into a redactor, or every problem reported with its file, line
and field; the hash key from the file or the environment variable it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.errors import InputError
from trailcheck.redaction import (
    BUILTIN_RULES,
    HASH_PREFIX,
    Redaction,
    RedactionRulesError,
    builtin_redactor,
    load_redaction_rules,
    load_redactor,
    parse_redaction_rules,
)

KEY_ENV = {"REDACT_KEY": "k" * 32}
RULES = """\
builtin: [email, secret_field]
hash_key_env: REDACT_KEY
patterns:
  - name: employee_id
    regex: 'EMP-[0-9]{6}'
fields:
  - field: user.id
    action: hash
  - field: "*ssn"
    action: drop
    name: ssn
"""


def _problems(text: str, environ: dict[str, str] | None = None) -> list[str]:
    with pytest.raises(RedactionRulesError) as raised:
        parse_redaction_rules(text, source="redact.yaml", environ=environ or {})
    return [str(problem) for problem in raised.value.problems]


def test_a_rules_file_makes_its_redactor() -> None:
    redactor = parse_redaction_rules(RULES, source="redact.yaml", environ=KEY_ENV)
    assert redactor.rule_names == ("email", "secret_field", "employee_id", "hash:user.id", "ssn")
    found: list[Redaction] = []
    value = {
        "text": "EMP-123456 ann@example.com sk-proj-abcdefghijklmnop1234",
        "user.id": "u-7",
        "patient_ssn": "123-45-6789",
    }
    redacted = redactor.value(value, "", found)
    # Only the detectors the file names: the API key stays.
    assert (
        redacted["text"] == "[REDACTED:employee_id] [REDACTED:email] sk-proj-abcdefghijklmnop1234"
    )
    assert redacted["user.id"].startswith(HASH_PREFIX)
    assert redacted["patient_ssn"] == "[REDACTED:ssn]"


def test_the_hash_key_comes_from_the_environment_and_changes_the_hash() -> None:
    def hashed(key: str) -> str:
        redactor = parse_redaction_rules(RULES, environ={"REDACT_KEY": key})
        value: str = redactor.value({"user.id": "u-7"}, "", [])["user.id"]
        return value

    assert hashed("a" * 16) == hashed("a" * 16)
    assert hashed("a" * 16) != hashed("b" * 16)


def test_builtin_is_every_detector_with_no_file() -> None:
    assert load_redactor("builtin") is builtin_redactor()
    assert builtin_redactor().rule_names == BUILTIN_RULES


def test_every_problem_is_reported_with_its_line_and_field() -> None:
    text = """\
builtin: [email, ssn]
patterns:
  - name: email
    regex: 'EMP-('
  - name: ticket
    regex: 'a*'
  - name: ticket
    regex: 'T-[0-9]+'
fields:
  - field: user.id
    action: hash
  - field: ssn
    action: shred
colour: blue
"""
    problems = _problems(text)
    assert problems == [
        "redact.yaml:1: field 'builtin': unknown built-in detector 'ssn'; known: api_key,"
        " bearer_token, card_number, email, iban, phone, private_key, secret_field,"
        " url_password",
        "redact.yaml:3: field 'patterns[0].name': 'email' is a built-in detector's name;"
        " choose another",
        "redact.yaml:4: field 'patterns[0].regex': not a regular expression: missing ),"
        " unterminated subpattern at position 4",
        "redact.yaml:6: field 'patterns[1].regex': the expression matches empty text: it would"
        " redact nothing",
        "redact.yaml:7: field 'patterns[2].name': duplicate rule name 'ticket' (first at line 5)",
        "redact.yaml:13: field 'fields[1].action': Input should be 'drop' or 'hash'",
        "redact.yaml:14: field 'colour': unknown field",
    ]


def test_a_hashing_rule_needs_a_key_once_and_set() -> None:
    hashing = "fields:\n  - field: user.id\n    action: hash\n"
    assert _problems(hashing) == [
        "redact.yaml:1: field 'fields': a field rule hashes: give the key in hash_key or"
        " hash_key_env"
    ]
    assert _problems("hash_key_env: REDACT_KEY\n" + hashing) == [
        "redact.yaml:1: field 'hash_key_env': the environment variable REDACT_KEY is not set:"
        " it holds the hash key"
    ]
    assert _problems("hash_key_env: REDACT_KEY\n" + hashing, {"REDACT_KEY": "short"}) == [
        "redact.yaml:1: field 'hash_key_env': the environment variable REDACT_KEY holds fewer"
        " than 16 characters: it holds the hash key"
    ]
    both = f"hash_key: {'k' * 16}\nhash_key_env: REDACT_KEY\n" + hashing
    assert _problems(both, KEY_ENV) == [
        "redact.yaml:2: field 'hash_key_env': give hash_key or hash_key_env, not both"
    ]
    assert _problems("hash_key: short\n") == [
        "redact.yaml:1: field 'hash_key': String should have at least 16 characters"
    ]


def test_a_file_that_is_not_rules_is_an_input_error(tmp_path: Path) -> None:
    assert _problems("- a list\n") == [
        "redact.yaml:1: a redaction rules file holds a mapping: builtin, patterns, fields,"
        " hash_key_env"
    ]
    assert _problems("builtin: [email\n")[0].startswith("redact.yaml:2: not valid YAML")
    with pytest.raises(InputError, match="cannot read the file"):
        load_redaction_rules(tmp_path / "missing.yaml")
    path = tmp_path / "redact.yaml"
    path.write_text("builtin: false\npatterns: [{name: a, regex: 'x+'}]\n")
    assert load_redactor(str(path)).rule_names == ("a",)
