"""JSON text as the importers read it: strict, exact, and only what trailcheck can write back.

Every JSON an importer reads (a document, a line of JSON Lines, a JSON string inside a field or
an attribute) goes through :func:`loads_json`, which holds it to four rules:

- **JSON, nothing more.** ``NaN`` and ``Infinity`` are not JSON (RFC 8259): such text is not
  JSON, reported with orjson's position as any other text that is not.
- **Integers exactly.** orjson reads an integer beyond 64 bits as the nearest float
  (18446744073709551617 would be imported as 1.8446744073709552e+19, a silent change); text
  that may hold one (a number of 20 digits, or 19 after a minus) is read again by msgspec,
  which keeps every integer as written.
- **What can be written back.** trailcheck writes values as JSON with orjson (the store's content,
  ``trailcheck import``'s output), which holds integers from -2^63 to 2^64-1 and nests 254
  levels. A value beyond 64 bits, or nested deeper than :data:`MAX_DEPTH` (which leaves room for
  the trace around the value), is refused where it is read, naming its field, instead of failing
  later where no line is known.
- **One value per key.** An object that names a key twice is refused, naming the key: RFC 8259
  leaves which value is meant unpredictable, and keeping the last (as orjson, pydantic and
  Python do) would drop the other without a word. OTLP attribute lists already refuse it.

The cost on the path every record takes is one orjson decode and encode, one ``bytes.translate``
with one substring search and a byte count (:func:`may_break_a_value_rule`), and two byte
counts: the text's colons outside strings are its keys, so a decoded value with fewer keys than
that (its encoding has fewer colons than the text) lost one. Only then is the text read again to
find which (:func:`_repeated_keys`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

import msgspec
import orjson

__all__ = [
    "MAX_DEPTH",
    "JsonValueError",
    "check_json",
    "decode_json",
    "element_errors",
    "embedded_field",
    "loads_json",
    "may_break_a_value_rule",
    "may_hold_a_long_integer",
]

# Deep enough for any real payload; what is left of orjson's 254 levels holds the trace around
# the value (a value sits at most 8 levels down in a stored trace: a message part's content).
MAX_DEPTH: Final = 240
_ORJSON_DEPTH: Final = 254
INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**64 - 1


def _number_shape_table() -> bytes:
    """Where an integer beyond 64 bits could be: a number token of 20 digits (2^64 has 20), or
    19 after a minus. Found in the text's *shape*: every digit and the minus written as 0 (so
    both kinds of token end in twenty 0s), every byte that can end a number as "z" (not a quote:
    a run of digits in a string is text), both brackets as "{" (so one count tells how many
    arrays and objects the text opens) and every other byte as "a", by one substring search for
    the last twenty characters of such a number and its end (a regular expression scans digits a
    hundred times slower). The searched bytes are rare in a shape of "a"s, so the search skips
    most of it; searched for by its start (a separator, then digits), such a number would stop
    the search at every key and every timestamp. A minus inside a word before 19 digits, or
    before 20 with one more digit in front, is a false alarm: the text is then read in full."""
    table = bytearray(b"a" * 256)
    for byte in b"0123456789":
        table[byte] = ord("0")
    for byte in b",}] \t\r\n":
        table[byte] = ord("z")
    for byte in b"[{":
        table[byte] = ord("{")
    table[ord("-")] = ord("0")
    return bytes(table)


_NUMBER_SHAPE: Final = _number_shape_table()
_LONG_INTEGER: Final = b"0" * 20 + b"z"
_exact_decoder: Final = msgspec.json.Decoder()


class JsonValueError(ValueError):
    """Valid JSON that trailcheck refuses: ``field`` is where, relative to the text's top
    (``""`` for the top itself, ``messages[2].content`` inside)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def loads_json(text: bytes | str) -> Any:
    """The value ``text`` holds. Raises ``orjson.JSONDecodeError`` (with orjson's message and
    position) when it is not JSON, :class:`JsonValueError` when it breaks a rule above."""
    value = decode_json(text)
    check_json(text, value)
    return value


def decode_json(text: bytes | str) -> Any:
    """The value ``text`` holds, integers exact, without the checks of :func:`check_json`."""
    value = orjson.loads(text)
    data = text.encode() if isinstance(text, str) else text
    if not may_hold_a_long_integer(data):
        return value
    try:
        return _exact_decoder.decode(data)
    except (msgspec.DecodeError, RecursionError) as error:
        raise JsonValueError("", f"cannot be read exactly: {error}") from None


def may_hold_a_long_integer(data: bytes) -> bool:
    """Whether ``data`` may hold an integer orjson reads as a float: a number token of 20 digits
    or more, or 19 after a minus (a string holding ``"... 0000..., "`` may also say yes)."""
    return _long_integer_shaped(_shape(data))


def may_break_a_value_rule(data: bytes) -> bool:
    """Whether ``data`` may hold an integer beyond 64 bits (:func:`may_hold_a_long_integer`) or
    nest deeper than :data:`MAX_DEPTH` (it opens more arrays and objects than that, brackets
    inside strings counted too), in one pass over ``data``: what a record's reader asks of
    every line."""
    shape = _shape(data)
    return shape.count(b"{") > MAX_DEPTH or _long_integer_shaped(shape)


def _shape(data: bytes) -> bytes:
    return data.translate(_NUMBER_SHAPE)


def _long_integer_shaped(shape: bytes) -> bool:
    # The end of the text ends a number too.
    return _LONG_INTEGER in shape or shape.endswith(_LONG_INTEGER[:-1])


def check_json(text: bytes | str, value: Any) -> None:
    """Raise the first :class:`JsonValueError` of ``value``, decoded from ``text``: a value that
    cannot be written back, or a key given twice."""
    if isinstance(value, dict | list):
        _check_writable_and_unique(text, value)
    elif isinstance(value, int) and not INT_MIN <= value <= INT_MAX:
        raise JsonValueError("", _integer_message(value))


def element_errors(text: bytes | str, elements: list[Any]) -> dict[int, JsonValueError]:
    """For an array ``text`` of records that :func:`check_json` refused: each refused element's
    first error, its field relative to the element (so one bad record rejects only itself)."""
    errors: dict[int, JsonValueError] = {}
    for index, element in enumerate(elements):
        try:
            orjson.dumps(_nested_in_lists(element, _ORJSON_DEPTH - MAX_DEPTH))
        except orjson.JSONEncodeError:
            errors[index] = _first_unwritable(element)
    if len(errors) < len(elements):
        for error in _repeated_keys(text):
            index_text, _, inner = error.field[1:].partition("]")
            errors.setdefault(
                int(index_text), JsonValueError(inner.removeprefix("."), error.message)
            )
    return errors


def embedded_field(field: str, error: JsonValueError) -> str:
    """The path of ``error`` inside the JSON text that ``field`` holds (``arguments.a``)."""
    if not error.field:
        return field
    return f"{field}{error.field}" if error.field.startswith("[") else f"{field}.{error.field}"


def _check_writable_and_unique(text: bytes | str, value: dict[str, Any] | list[Any]) -> None:
    try:
        encoded = orjson.dumps(_nested_in_lists(value, _ORJSON_DEPTH - MAX_DEPTH))
    except orjson.JSONEncodeError:
        raise _first_unwritable(value) from None
    colon: Any = b":" if isinstance(text, bytes) else ":"
    if text.count(colon) != encoded.count(b":"):
        for repeated in _repeated_keys(text):
            raise repeated


def _nested_in_lists(value: Any, levels: int) -> Any:
    # orjson refuses to nest deeper than 254 levels: wrapped so, a value encodes exactly when it
    # is at most MAX_DEPTH deep.
    for _ in range(levels):
        value = [value]
    return value


def _integer_message(value: int) -> str:
    return (
        f"the integer {value} is beyond what trailcheck can write back: JSON integers are"
        f" kept from {INT_MIN} to {INT_MAX}"
    )


def _first_unwritable(value: Any) -> JsonValueError:
    """Why ``value``, which orjson could not encode, is refused, and where."""
    for path, item, depth in _walk(value):
        if isinstance(item, dict | list) and depth > MAX_DEPTH:
            shown = path if len(path) <= 60 else f"{path[:60]}..."
            return JsonValueError(shown, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, int) and not INT_MIN <= item <= INT_MAX:
            return JsonValueError(path, _integer_message(item))
    return JsonValueError("", "cannot be written back as JSON")


def _walk(value: Any) -> Iterator[tuple[str, Any, int]]:
    """Each value with its path and how many containers hold it (itself included), in the
    order of the text. Iterative: msgspec reads deeper than Python recurses."""
    stack: list[tuple[str, Any, int]] = [("", value, 1)]
    while stack:
        path, item, depth = stack.pop()
        yield path, item, depth
        if isinstance(item, dict):
            children = [(f"{path}.{key}" if path else key, child) for key, child in item.items()]
        elif isinstance(item, list):
            children = [(f"{path}[{index}]", child) for index, child in enumerate(item)]
        else:
            continue
        stack.extend((child_path, child, depth + 1) for child_path, child in reversed(children))


class _RepeatedKeys(dict[str, Any]):
    """An object read from text that names ``key`` more than once."""

    key: str


def _keep_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    decoded: dict[str, Any] = dict(pairs)
    if len(decoded) == len(pairs):
        return decoded
    repeated = _RepeatedKeys(decoded)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            repeated.key = key
            break
        seen.add(key)
    return repeated


def _repeated_keys(text: bytes | str) -> Iterator[JsonValueError]:
    """The error of each object of ``text`` (valid JSON, at most MAX_DEPTH deep) that names a
    key twice, in order; none when the colons differed for another reason (a colon written as
    an escape inside a string)."""
    try:
        value = json.loads(text, object_pairs_hook=_keep_repeats)
    except RecursionError:
        return  # another element is too deep for Python's reader; it is refused for that
    for path, item, _ in _walk(value):
        if isinstance(item, _RepeatedKeys):
            field = f"{path}.{item.key}" if path else item.key
            yield JsonValueError(field, f"the key {item.key!r} is given twice in one object")
