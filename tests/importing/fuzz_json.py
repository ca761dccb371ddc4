"""JSON that strict encoders refuse to write, and one structural mutation of a JSON value.

:func:`dumps` writes NaN and Infinity, integers of any size, an object with a key twice
(:class:`Duplicated`) and text as it is (:class:`RawJson`, for nesting deeper than any parser
takes). :func:`json_mutation` damages a value at any path: a wrong JSON type, a missing field,
NaN or Infinity, a huge integer (2^63, 2^64-1, ...), an id of the wrong length or not hex, deep
nesting, a duplicate key, or any of these inside JSON text held in a string (tool arguments).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

import orjson
from hypothesis import strategies as st

from tests.importing.fuzz_inputs import InputFile

EMBEDDED_KINDS = ("wrong_type", "missing", "nan", "huge_int", "deep", "duplicate_key")
HUGE_INTEGERS = (2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**100, -(2**63), -(2**63) - 1, -1)
NON_FINITE = (math.nan, math.inf, -math.inf)
DEPTHS = (64, 600, 1100, 20_000)
ID_KEYS = frozenset(
    {"traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id", "id"}
)


@dataclass(frozen=True)
class Duplicated:
    """A JSON object written with a key twice (``pairs`` in order)."""

    pairs: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class RawJson:
    """Text written as it is, such as ``[[[...]]]`` nested deeper than an encoder would go."""

    text: str


def dumps(value: Any) -> bytes:
    """JSON text of ``value``, writing what strict encoders refuse: NaN and Infinity, integers
    of any size, :class:`Duplicated` keys and :class:`RawJson` as they are."""
    if isinstance(value, RawJson):
        return value.text.encode()
    if isinstance(value, Duplicated):
        items = (orjson.dumps(key) + b":" + dumps(item) for key, item in value.pairs)
        return b"{" + b",".join(items) + b"}"
    if isinstance(value, dict):
        return dumps(Duplicated(tuple(value.items())))
    if isinstance(value, list):
        return b"[" + b",".join(dumps(item) for item in value) + b"]"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return orjson.dumps(value)
    if isinstance(value, int):
        return str(value).encode()
    if math.isnan(value):
        return b"NaN"
    if math.isinf(value):
        return b"Infinity" if value > 0 else b"-Infinity"
    return orjson.dumps(value)


def encode(file: InputFile) -> bytes:
    """A file's bytes: JSON arrays one element per line (so readers can name a record's line),
    JSON Lines, or the serialized protobuf message."""
    if file.layout == "protobuf":
        return bytes(file.content.SerializeToString())
    if file.layout == "jsonl":
        return b"".join(dumps(line) + b"\n" for line in file.content)
    if isinstance(file.content, list):
        return b"[\n" + b",\n".join(dumps(item) for item in file.content) + b"\n]\n"
    return dumps(file.content) + b"\n"


Path = tuple[str | int, ...]


def _nodes(value: Any, path: Path = ()) -> list[tuple[Path, Any]]:
    found = [(path, value)]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_nodes(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_nodes(item, (*path, index)))
    return found


def path_text(path: Path) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path) or "."


def _replaced(root: Any, path: Path, new: Any, *, delete: bool = False) -> Any:
    """A copy of ``root`` with the node at ``path`` replaced by ``new`` (or removed)."""
    if not path:
        return new
    result = copy.deepcopy(root)
    parent = result
    for part in path[:-1]:
        parent = parent[part]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return result


def _other_type_values(value: Any) -> list[Any]:
    samples = [None, True, 0, -1, 1.5, "", "text", [], [1], {}, {"k": 1}]
    return [v for v in samples if type(v) is not type(value)]


def _is_numeric(value: Any) -> bool:
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return is_number or (isinstance(value, str) and value.isdigit())


def _bad_ids(value: str) -> list[str]:
    return [value[:-1], value + "0", value[:-2], "zz" * (len(value) // 2), "é" * len(value)]


def _nested(depth: int) -> RawJson:
    return RawJson("[" * depth + "]" * depth)


def _json_text(value: Any) -> Any:
    """The JSON container a string holds, or None when it holds none."""
    if not isinstance(value, str) or value[:1] not in ("{", "["):
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


@st.composite
def json_mutation(
    draw: st.DrawFn, root: Any, kind: str, *, min_depth: int = 0
) -> tuple[Any, Path, str, Any] | None:
    """``root`` with one mutation of ``kind``: (new root, path, what was written, (the value,
    whether it replaced a number)); for ``embedded`` the value is (the inner kind, the text,
    the inner value);
    None when ``root`` has no node the kind applies to, at ``min_depth`` or deeper (1 for JSON
    Lines, whose root is the list of lines)."""
    nodes = [(p, v) for p, v in _nodes(root) if len(p) >= min_depth]
    if kind in ("wrong_type", "nan", "deep"):
        candidates = nodes
    elif kind == "missing":
        candidates = [(p, v) for p, v in nodes if p]
    elif kind == "huge_int":
        candidates = [(p, v) for p, v in nodes if _is_numeric(v)] or nodes
    elif kind == "bad_id":
        candidates = [(p, v) for p, v in nodes if p and p[-1] in ID_KEYS and isinstance(v, str)]
    elif kind == "duplicate_key":
        candidates = [(p, v) for p, v in nodes if isinstance(v, dict) and v]
    else:
        assert kind == "embedded", kind
        candidates = [(p, v) for p, v in nodes if _json_text(v) is not None]
    if not candidates:
        return None
    path, value = draw(st.sampled_from(candidates))
    if kind == "missing":
        return _replaced(root, path, None, delete=True), path, "removed", (None, False)
    if kind == "embedded":
        inner_kind = draw(st.sampled_from(EMBEDDED_KINDS))
        inner = draw(json_mutation(_json_text(value), inner_kind))
        if inner is None:
            return None
        text = dumps(inner[0]).decode()
        where = f"{path_text(path)} {inner_kind} at {path_text(inner[1])}"
        written = ((inner_kind, text, inner[3][0]), inner[3][1])
        return _replaced(root, path, text), path, f"{where}: {text[:80]!r}", written
    new = _new_value(draw, kind, value)
    return _replaced(root, path, new), path, repr(new)[:80], (new, _is_numeric(value))


def _new_value(draw: st.DrawFn, kind: str, value: Any) -> Any:
    if kind == "wrong_type":
        return draw(st.sampled_from(_other_type_values(value)))
    if kind == "nan":
        return draw(st.sampled_from(NON_FINITE))
    if kind == "huge_int":
        huge = draw(st.sampled_from(HUGE_INTEGERS))
        return str(huge) if isinstance(value, str) else huge
    if kind == "bad_id":
        return draw(st.sampled_from(_bad_ids(value)))
    if kind == "deep":
        return _nested(draw(st.sampled_from(DEPTHS)))
    assert kind == "duplicate_key", kind
    key = draw(st.sampled_from(sorted(value)))
    other = (key, draw(st.sampled_from(_other_type_values(value[key]))))
    # Before the key, a parser that keeps the last value drops it silently; after, it wins.
    pairs = (other, *value.items()) if draw(st.booleans()) else (*value.items(), other)
    return Duplicated(pairs)
