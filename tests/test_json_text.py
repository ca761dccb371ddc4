"""The rules every JSON text an importer reads is held to (trailcheck.json_text)."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.json_text import (
    MAX_DEPTH,
    JsonValueError,
    decode_json,
    element_errors,
    embedded_field,
    loads_json,
    may_break_a_value_rule,
    may_hold_a_long_integer,
)


def _refusal(text: bytes | str) -> tuple[str, str]:
    with pytest.raises(JsonValueError) as caught:
        loads_json(text)
    return caught.value.field, caught.value.message


def test_valid_json_is_read_as_orjson_reads_it() -> None:
    text = b'{"t": "10:00:00", "n": [1, 2.5, -3], "s": {"a": null, "b": true}, "u": "\\u00e9"}'
    assert loads_json(text) == orjson.loads(text)
    assert loads_json(text.decode()) == orjson.loads(text)


@pytest.mark.parametrize("text", [b'{"x": NaN}', b"[Infinity]", b"-Infinity", b'{"a": 1} x'])
def test_what_is_not_json_is_refused_as_orjson_places_it(text: bytes) -> None:
    with pytest.raises(orjson.JSONDecodeError) as caught:
        loads_json(text)
    with pytest.raises(orjson.JSONDecodeError) as expected:
        orjson.loads(text)
    assert caught.value.pos == expected.value.pos


def test_a_key_given_twice_is_refused_naming_where() -> None:
    assert _refusal(b'{"a": 1, "a": 2}') == ("a", "the key 'a' is given twice in one object")
    field, _ = _refusal(b'{"x": {"y": [0, {"k": 1, "j": 2, "k": 1}]}}')
    assert field == "x.y[1].k"
    assert _refusal('{"a": {}, "a": {}}')[0] == "a"


def test_the_same_key_in_different_objects_is_not_a_repeat() -> None:
    text = b'[{"a": 1}, {"a": 2}, {"b": {"a": 3}}]'
    assert loads_json(text) == [{"a": 1}, {"a": 2}, {"b": {"a": 3}}]


def test_a_colon_written_as_an_escape_is_not_taken_for_a_repeated_key() -> None:
    # The text has one colon fewer than its encoding, which sends it down the exact search.
    assert loads_json(b'{"a": "\\u003a", "b": 1}') == {"a": ":", "b": 1}


@pytest.mark.parametrize("number", [2**64 - 1, -(2**63), 2**53 + 1, 1790000000000000000])
def test_integers_within_64_bits_are_kept_exactly(number: int) -> None:
    assert loads_json(f'{{"n": {number}}}'.encode()) == {"n": number}


@pytest.mark.parametrize("number", [2**64, 2**64 + 1, -(2**63) - 1, 10**30])
def test_an_integer_beyond_64_bits_is_refused_not_rounded(number: int) -> None:
    field, message = _refusal(f'{{"id": "{"0" * 32}", "v": [1, {number}]}}'.encode())
    assert field == "v[1]"
    assert str(number) in message
    assert _refusal(str(number).encode())[0] == ""


def test_long_runs_of_digits_in_strings_are_text() -> None:
    text = b'{"id": "000000000000000000000000000000001", "neg": "-12345678901234567890"}'
    assert loads_json(text) == orjson.loads(text)


def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_nesting_is_refused_beyond_max_depth_naming_where() -> None:
    assert loads_json(_nested(MAX_DEPTH)) is not None
    field, message = _refusal(b'{"a": ' + _nested(MAX_DEPTH) + b"}")
    assert message == f"nested deeper than {MAX_DEPTH} levels"
    assert field.startswith("a[0][0]")
    # Deeper than Python or msgspec recurse: still an answer.
    with pytest.raises((JsonValueError, orjson.JSONDecodeError)):
        loads_json(_nested(5000))


def test_element_errors_name_only_the_bad_records_relative_to_themselves() -> None:
    text = b'[{"a": 1}, {"m": {"k": 1, "k": 2}}, {"n": 18446744073709551616}, [{"x": 1, "x": 1}]]'
    errors = element_errors(text, decode_json(text))
    assert sorted(errors) == [1, 2, 3]
    assert errors[1].field == "m.k"
    assert errors[2].field == "n"
    assert errors[3].field == "[0].x"


def test_an_embedded_field_continues_the_path_of_its_holder() -> None:
    error = JsonValueError("a.b", "m")
    assert embedded_field("tool_calls[0].function.arguments", error) == (
        "tool_calls[0].function.arguments.a.b"
    )
    assert embedded_field("args", JsonValueError("[2]", "m")) == "args[2]"
    assert embedded_field("args", JsonValueError("", "m")) == "args"


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=30,
)


@given(_json_values)
def test_every_json_value_within_the_rules_reads_back_equal(value: object) -> None:
    assert loads_json(orjson.dumps(value)) == value


@pytest.mark.parametrize(
    "text",
    [b'{"v":\n  18446744073709551616}', b"[1,\t-9223372036854775809]", b"18446744073709551616"],
)
def test_an_integer_beyond_64_bits_is_found_after_any_json_whitespace(text: bytes) -> None:
    assert "beyond what trailcheck can write back" in _refusal(text)[1]


_any_integers = st.integers(min_value=-(2**70), max_value=2**70)
_loose_values = st.recursive(
    st.none()
    | st.booleans()
    | _any_integers
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=30,
)


@given(
    _loose_values,
    st.sampled_from([",", ", ", ",\n", ",\t"]),
    st.sampled_from([":", ": ", ":\r\n"]),
    st.sampled_from([None, 1]),
)
def test_the_quick_value_rule_check_finds_every_long_integer(
    value: object, comma: str, colon: str, indent: int | None
) -> None:
    # The reader runs the full check only where the quick one says a rule may be broken: it
    # may say so of text within the rules, never miss text beyond them.
    text = json.dumps(value, separators=(comma, colon), indent=indent).encode()
    try:
        loads_json(text)
    except JsonValueError:
        assert may_break_a_value_rule(text)


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1])
def test_the_quick_value_rule_check_counts_arrays_and_objects(depth: int) -> None:
    # ``depth`` containers inside the top object, arrays and objects alternating.
    inner = b"1"
    for level in range(depth):
        inner = b"[" + inner + b"]" if level % 2 else b'{"k": ' + inner + b"}"
    assert may_break_a_value_rule(b'{"a": ' + inner + b"}") == (depth + 1 > MAX_DEPTH)


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        (b"18446744073709551616", True),  # 20 digits, ended by the end of the text
        (b"-9223372036854775809", True),  # 19 after a minus, ended by the end of the text
        (b"[1844674407370955161]", False),  # 19 digits: within 64 bits
        (b'["18446744073709551616"]', False),  # digits in a string are text
        (b"[12345678901234567890.5]", False),  # a float, not an integer
        (b'{"id": "a-1234567890123456789 "}', True),  # a minus in a word: a false alarm only
    ],
)
def test_the_quick_long_integer_check_reads_number_tokens(text: bytes, flagged: bool) -> None:
    assert may_hold_a_long_integer(text) is flagged
