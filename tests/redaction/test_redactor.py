"""The redactor over JSON values: field rules that drop or hash, secret-named keys, custom
patterns, JSON held in text, and redacted values that keep their type and shape."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.redaction import (
    HASH_PREFIX,
    FieldAction,
    FieldRule,
    KeyedHash,
    PatternRule,
    Redaction,
    Redactor,
)

KEY = b"0123456789abcdef-test-key"


def _redact(redactor: Redactor, value: Any) -> tuple[Any, list[str]]:
    found: list[Redaction] = []
    redacted = redactor.value(value, "args", found)
    return redacted, [str(redaction) for redaction in found]


def _fields(*rules: tuple[str, FieldAction]) -> Redactor:
    field_rules = [FieldRule(f"{action}:{field}", field, action) for field, action in rules]
    return Redactor(fields=field_rules, hash_key=KEY)


def test_a_dropped_value_keeps_its_type() -> None:
    redactor = _fields(("ssn", "drop"), ("dob", "drop"), ("tags", "drop"), ("home", "drop"))
    value = {"ssn": "123-45-6789", "dob": 19700101, "tags": ["a", "b"], "home": {"city": "x"}}
    redacted, found = _redact(redactor, {**value, "vip": True})
    assert redacted == {
        "ssn": "[REDACTED:drop:ssn]",
        "dob": None,  # a number becomes null, never text
        "tags": [],
        "home": {},
        "vip": True,
    }
    assert found == [
        "drop:ssn at args.ssn",
        "drop:dob at args.dob",
        "drop:tags at args.tags",
        "drop:home at args.home",
    ]


def test_a_hashed_value_keeps_its_type_and_groups() -> None:
    redactor = _fields(("customer_id", "hash"), ("user.id", "hash"))
    first, found = _redact(redactor, {"customer_id": "C-1001", "user.id": 42, "n": 3})
    again, _ = _redact(redactor, {"customer_id": "C-1001", "user.id": "42", "n": 3})
    assert first["customer_id"] == again["customer_id"]  # the same id gives the same hash
    assert first["customer_id"].startswith(HASH_PREFIX)
    assert "C-1001" not in first["customer_id"]
    assert isinstance(first["user.id"], int)  # a number stays a number
    assert first["n"] == 3
    assert found == ["hash:customer_id at args.customer_id", "hash:user.id at args.user.id"]


def test_a_field_rule_names_a_key_or_the_last_keys_of_a_path_anywhere() -> None:
    redactor = _fields(("customer.id", "drop"), ("*_email", "drop"))
    value = {
        "customer.id": "a",  # an attribute named so
        "order": {"customer": {"id": "b", "name": "Ann"}},  # the key id inside customer
        "id": "kept",
        "subcustomer": {"id": "kept too"},  # not the key customer: a dot bounds it
        "items": [{"Billing_Email": "c"}],  # case ignored, through lists
    }
    redacted, _ = _redact(redactor, value)
    assert redacted == {
        "customer.id": "[REDACTED:drop:customer.id]",
        "order": {"customer": {"id": "[REDACTED:drop:customer.id]", "name": "Ann"}},
        "id": "kept",
        "subcustomer": {"id": "kept too"},
        "items": [{"Billing_Email": "[REDACTED:drop:*_email]"}],
    }


def test_secret_named_keys_are_masked_whole_and_keep_their_shape() -> None:
    value = {
        "http.request.header.authorization": ["Basic dXNlcjpwYXNz"],
        "password": "hunter2",
        "pin": 1234,
        "token": 987654,
        "api_key": "",  # nothing to hide
        "config": {"client_secret": {"value": "s", "rotations": 2}},
    }
    redacted, found = _redact(Redactor(), value)
    assert redacted == {
        "http.request.header.authorization": ["[REDACTED:secret_field]"],
        "password": "[REDACTED:secret_field]",
        "pin": 1234,
        "token": None,
        "api_key": "",
        "config": {"client_secret": {"value": "[REDACTED:secret_field]", "rotations": None}},
    }
    assert len(found) == 4


def test_json_held_in_text_is_read_as_json_and_written_back_compact() -> None:
    arguments = orjson.dumps({"email": "ann@example.com", "customer_id": "C-1", "n": 2})
    text = orjson.dumps({"query": "a"}, option=orjson.OPT_INDENT_2).decode()
    redactor = _fields(("customer_id", "hash"))
    redacted, found = _redact(redactor, {"arguments": arguments.decode(), "other": text})
    inner = orjson.loads(redacted["arguments"])
    assert inner["email"] == "[REDACTED:email]"
    assert inner["customer_id"].startswith(HASH_PREFIX)
    assert inner["n"] == 2
    assert redacted["other"] == text  # nothing in it: kept as written
    assert found == [
        "email at args.arguments.email",
        "hash:customer_id at args.arguments.customer_id",
    ]


def test_text_that_only_starts_like_json_is_read_as_text() -> None:
    redacted, _ = _redact(Redactor(), "[note] mail ann@example.com")
    assert redacted == "[note] mail [REDACTED:email]"


def test_a_key_that_holds_personal_data_is_redacted_and_kept_apart() -> None:
    value = {"ann@example.com": 1, "bob@example.com": 2}
    redacted, found = _redact(Redactor(), value)
    assert redacted == {"[REDACTED:email]": 1, "[REDACTED:email]#2": 2}
    assert found == ["email at args.[REDACTED:email]", "email at args.[REDACTED:email]#2"]


def test_a_custom_pattern_replaces_its_match_or_its_secret_group() -> None:
    redactor = Redactor(
        patterns=[
            PatternRule("employee_id", re.compile(r"EMP-[0-9]{6}")),
            PatternRule("pin", re.compile(r"PIN (?P<secret>[0-9]{4})")),
        ]
    )
    found: list[Redaction] = []
    text = redactor.text("EMP-123456 used PIN 4321 to log in", "input", found)
    assert text == "[REDACTED:employee_id] used PIN [REDACTED:pin] to log in"
    assert [str(r) for r in found] == ["employee_id at input", "pin at input"]


def test_entries_counts_each_redaction_at_its_entry() -> None:
    found: list[Redaction] = []
    attributes = {"gen_ai.input.messages": [{"content": "ann@example.com, bob@example.com"}]}
    Redactor().entries(attributes, "span.attributes", found)
    assert [str(r) for r in found] == [
        "email at span.attributes.gen_ai.input.messages",
        "email at span.attributes.gen_ai.input.messages",
    ]


def test_a_hashing_rule_needs_a_key() -> None:
    with pytest.raises(ValueError, match="hash key"):
        Redactor(fields=[FieldRule("h", "user.id", "hash")])


def test_the_keyed_hash_hides_the_value_and_depends_on_the_key() -> None:
    one, other = KeyedHash(KEY), KeyedHash(b"another-key-of-16+chars")
    assert one.of("user-7") == one.of("user-7")
    assert one.of("user-7") != one.of("user-8")
    assert one.of("user-7") != other.of("user-7")  # a different key gives a different hash
    assert "user-7" not in one.of("user-7")
    assert one.of(42) == one.of(42) != other.of(42)
    assert 0 <= one.of(42) < 2**48
    assert isinstance(one.of(42.0), float)
    assert one.of(True) is None
    assert one.of({"a": "x", "b": [1, "y"]}) == {"a": one.of("x"), "b": [one.of(1), one.of("y")]}
    # The hash is not a bare digest of the value: without the key it cannot be recomputed.
    assert hashlib.sha256(b"user-7").hexdigest()[:16] not in one.of("user-7")


# Pieces of text a JSON value may be made of: secrets of each kind, and what stands around them
# (escaped whitespace and backslashes, quotes, word characters, digits, non-ASCII).
_PIECES = st.sampled_from(
    [
        "ann@example.com",
        "postgres://app:pw0rd@db",
        "Bearer abcdefghijkl",
        "bearer abcdefghijkl",
        "sk-proj-abcdefghijklmnop1234",
        "4111 1111 1111 1111",
        "415-555-0100",
        "+1 415 555 0100",
        "GB82WEST12345698765432",
        "eyJhbGciOi.eyJzdWIiOi.sig",
        "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----",
        "\n",
        "\t",
        "\\",
        "\\n",
        "\\b",
        '"',
        "/",
        " ",
        "n",
        "b",
        "x_",
        "-",
        "7",
        "é",
        "\u2028",
    ]
)


@given(leaf=st.lists(_PIECES, max_size=8).map("".join), ascii_only=st.booleans())
def test_json_in_text_is_redacted_as_its_values_are(leaf: str, ascii_only: bool) -> None:
    """Whatever JSON holds a value (escapes and all), the value comes out of it redacted as the
    value alone would be: reading JSON text as written first never lets a secret through."""
    redactor = Redactor()
    alone = redactor.text(leaf, "v", [])
    held = json.dumps({"content": leaf, "n": 1}, ensure_ascii=ascii_only)
    redacted = redactor.value(held, "v", [])
    assert json.loads(redacted)["content"] == alone
