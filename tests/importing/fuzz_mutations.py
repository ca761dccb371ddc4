"""Damage to a valid input, one mutation at a time, and the fuzz tests' settings.

A mutation is structural, on the JSON value (:mod:`tests.importing.fuzz_json`) or the protobuf
message (:mod:`tests.importing.fuzz_protobuf`), or on the encoded bytes: truncation at any byte,
one byte flipped. :class:`Mutation` says what was done where, for the reader of a failure and
for the rule of what a reader may accept (``tests/importing/test_no_traceback.py``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from tests.importing.fuzz_inputs import FuzzInput, InputFile
from tests.importing.fuzz_json import encode, json_mutation, path_text
from tests.importing.fuzz_protobuf import proto_mutation

# The long run: TRAILCHECK_FUZZ_EXAMPLES=5000 pytest tests/importing/test_no_traceback.py ...
FUZZ_EXAMPLES_ENV = "TRAILCHECK_FUZZ_EXAMPLES"

PROTOBUF_KINDS = (
    "truncate",
    "flip",
    "wrong_type",
    "missing",
    "nan",
    "huge_int",
    "bad_id",
    "deep",
    "duplicate_key",
)
# JSON adds a mutation inside JSON text held in a string (tool arguments, messages).
JSON_KINDS = (*PROTOBUF_KINDS, "embedded")


def fuzz_settings(ci_examples: int) -> settings:
    """``ci_examples`` per test, derandomized and not shrunk (a failure shows its mutation,
    and shrinking inputs this size takes minutes), for CI; ``$TRAILCHECK_FUZZ_EXAMPLES``
    examples, random (``--hypothesis-seed`` replays a run) and shrunk, for the long run."""
    long_run = os.environ.get(FUZZ_EXAMPLES_ENV)
    return settings(
        max_examples=int(long_run) if long_run else ci_examples,
        deadline=None,
        derandomize=not long_run,
        phases=tuple(Phase) if long_run else (Phase.explicit, Phase.generate),
        database=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
    )


@dataclass(frozen=True)
class Mutation:
    """What was done (``kind``), in which file, where (a JSON path, a byte offset, a span
    field) and the new value or byte, shown in a failure's message."""

    kind: str
    file: str = ""
    where: str = ""
    detail: str = ""
    inner: str = ""  # for "embedded": the kind of the mutation inside the JSON text
    value: Any = None  # the value written, where the rule about acceptance needs it
    replaced_number: bool = False  # whether a number (or a decimal string) was replaced

    def __str__(self) -> str:
        inner = f"/{self.inner}" if self.inner else ""
        return f"{self.kind}{inner} in {self.file} at {self.where}: {self.detail}"


@dataclass(frozen=True)
class MutatedInput:
    """The files of an input as bytes, by name, after ``mutation`` (None: left valid)."""

    files: dict[str, bytes]
    mutation: Mutation | None
    original: FuzzInput

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}: {data[:300]!r}" for name, data in self.files.items())
        return f"MutatedInput({self.mutation or 'valid'}; {shown})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """Hypothesis shows a failing input with this: the mutation and the files' start."""
        printer.text(repr(self))


def _bytes_mutation(draw: st.DrawFn, data: bytes, kind: str) -> tuple[bytes, str, str]:
    """Cut ``data`` before a byte, or flip one. The cut leaves at least one byte: hypothesis
    favours offset 0, and the empty file has a test of its own."""
    if len(data) < 2:
        return data, "0", "too short to damage, left as it is"
    offset = draw(st.integers(1 if kind == "truncate" else 0, len(data) - 1))
    if kind == "truncate":
        return data[:offset], f"byte {offset} of {len(data)}", f"cut before {data[offset:][:8]!r}"
    mask = draw(st.integers(1, 255))
    flipped = bytes([data[offset] ^ mask])
    return data[:offset] + flipped + data[offset + 1 :], f"byte {offset}", f"now {flipped!r}"


@st.composite
def mutated_inputs(
    draw: st.DrawFn, valid: st.SearchStrategy[FuzzInput], *, damage: bool = True
) -> MutatedInput:
    """A valid input with one mutation (one in ten left valid, as a control; all of them
    without ``damage``)."""
    original = draw(valid)
    files = {file.name: encode(file) for file in original.files}
    # 5, not 0: hypothesis favours the ends of a range, and would leave most inputs valid.
    if not damage or draw(st.integers(0, 9)) == 5:
        return MutatedInput(files, None, original)
    target = draw(st.sampled_from(original.files))
    kinds = PROTOBUF_KINDS if target.layout == "protobuf" else JSON_KINDS
    kind = draw(st.sampled_from(kinds))
    mutation = None
    if kind not in ("truncate", "flip"):
        mutation = draw(_structural(target, kind, files))
    if mutation is None:  # the kind does not apply to this file (no records, no ids): a flip
        kind = kind if kind in ("truncate", "flip") else "flip"
        data, where, detail = _bytes_mutation(draw, files[target.name], kind)
        files[target.name] = data
        mutation = Mutation(kind, target.name, where, detail)
    return MutatedInput(files, mutation, original)


@st.composite
def _structural(
    draw: st.DrawFn, target: InputFile, kind: str, files: dict[str, bytes]
) -> Mutation | None:
    """Mutate ``target`` by ``kind`` into ``files``; None when the kind does not apply."""
    if target.layout == "protobuf":
        changed = draw(proto_mutation(target.content, kind))
        if changed is None:
            return None
        files[target.name], where, value = changed
        numeric = kind == "huge_int"
        return Mutation(kind, target.name, where, repr(value), value=value, replaced_number=numeric)
    min_depth = 1 if target.layout == "jsonl" else 0
    mutated = draw(json_mutation(target.content, kind, min_depth=min_depth))
    if mutated is None:
        return None
    content, path, detail, (value, numeric) = mutated
    files[target.name] = encode(InputFile(target.name, target.layout, content))
    inner = value[0] if kind == "embedded" else ""
    where = path_text(path)
    return Mutation(kind, target.name, where, detail, inner, value, replaced_number=numeric)
