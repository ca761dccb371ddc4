"""The properties every ``trailcheck import`` and ``trailcheck ingest`` of an input holds,
checked through the CLI (in process, output captured); a broken one raises
:class:`PropertyError` naming its rule.

For every input: the exit code is 0, 1 or 2 and no exception escapes; every ``rejected:`` (and
``refused:``) line names the file and the line, span, trace or record, and the field when a
value inside a record was damaged. A valid input imports whole. When an import exits 0, what it
wrote reads back to equal traces and nothing was repaired, by the rule of docs/traces.md ("What
is rejected, and how"):

- the input is well-formed as written: every JSON text parses strictly (no NaN or Infinity, no
  key twice, valid UTF-8, within the parser's depth), every protobuf message parses, and no
  file is empty. So a cut mid-record, a flipped byte that breaks the syntax, NaN, a duplicate
  key are rejected; a flipped byte inside a string, or a cut at a record boundary, leaves a
  valid file, whose import is right;
- JSON text held in a string (tool arguments, messages) that is not strict JSON is kept
  verbatim as text or rejected, never parsed leniently;
- an OTLP id of the wrong length or not hex is rejected; an integer as large as 2^64-1 is kept
  exactly (it appears in the trace as written) or rejected, never rounded or clamped;
- no float in an imported trace is NaN or infinite.

``trailcheck ingest`` of the same input stores exactly the traces the import made, or refuses
one naming the field when the store cannot hold a value, and stores nothing the import rejects.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.importing.fuzz_json import dumps
from tests.importing.fuzz_mutations import MutatedInput, Mutation
from trailcheck.cli import run_cli
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.store import Store
from trailcheck.trace import Trace

OTLP_FORMATS = frozenset({"otlp-json", "otlp-proto"})
VALUE_KINDS = frozenset({"wrong_type", "missing", "huge_int", "bad_id", "embedded"})
OTLP_ID_KEYS = (".traceId", ".spanId", ".parentSpanId")
# Fields whose schema is a float: an integer there becomes the float nearest it, as JSON allows.
FLOAT_FIELDS = frozenset({"cost_usd", "latency_ms", "reward", "doubleValue"})


class PropertyError(AssertionError):
    """A broken property: ``rule`` names it (for :data:`KNOWN_BUGS`), the message shows it."""

    def __init__(self, rule: str, detail: str, where: str) -> None:
        super().__init__(f"{rule}: {detail}\n{where}")
        self.rule = rule
        self.detail = detail


def require(condition: object, rule: str, detail: str, where: str) -> None:
    if not condition:
        raise PropertyError(rule, detail, where)


@dataclass
class Run:
    """One CLI command's exit code and output; ``crash`` is the traceback of an exception that
    escaped ``run_cli`` (a user of the console script would have seen it)."""

    code: int | None
    out: str
    err: str
    crash: str | None = None

    @property
    def rejected_lines(self) -> list[str]:
        """The records rejected by the reader, and the traces the store refused."""
        problems = ("rejected: ", "refused: ")
        return [line for line in self.err.splitlines() if line.startswith(problems)]


def run_command(argv: list[str]) -> Run:
    """``trailcheck ARGV``, in process, with its output captured."""
    out, err = io.StringIO(), io.StringIO()
    code: int | None = None
    crash = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = run_cli(argv)
        except Exception:  # noqa: BLE001 - what escapes is the finding
            crash = traceback.format_exc()
    return Run(code, out.getvalue(), err.getvalue(), crash)


def _read_jsonl(path: Path) -> list[Trace]:
    return [Trace.model_validate_json(line) for line in path.read_bytes().splitlines()]


def _values(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _values(item)


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"duplicate key among {keys}")
    return dict(pairs)


def _strict_json(text: bytes) -> None:
    """Raise unless ``text`` is strict JSON: orjson's syntax (no NaN, valid UTF-8, bounded
    depth) and no object with a key twice."""
    orjson.loads(text)
    json.loads(text, object_pairs_hook=_reject_duplicates)


def well_formed(name: str, data: bytes) -> str | None:
    """Why the file is not well-formed as written, or None when it is. An empty file is
    refused as detection refuses it: it is most often an export that never got written."""
    if not data.strip():
        return "the file is empty"
    try:
        if name.endswith(".pb"):
            message = ExportLogsServiceRequest if "logs" in name else ExportTraceServiceRequest
            message.FromString(data)
        elif name.endswith(".jsonl"):
            for line in data.splitlines():
                if line.strip():
                    _strict_json(line)
        else:
            _strict_json(data)
    except Exception as error:  # noqa: BLE001 - any reason makes the file ill-formed
        return f"{type(error).__name__}: {error}"
    return None


def names_place(line: str, paths: list[str]) -> bool:
    """A rejection names a file and where in it: a line (``file:12:``), a span, a trace, a
    record, or a field path with its index (``spans[3].spanId``); a protobuf file that does not
    parse is rejected whole, so its name is the place."""
    files = [path for path in paths if path in line]
    if not files:
        return False
    rest = line.split(f"{files[0]}:", 1)[-1]
    whole_file = files[0].endswith(".pb") and "field '" not in line
    places = ("span ", "trace ", "record", "].")
    return rest[:1].isdigit() or whole_file or any(place in rest for place in places)


def names_field(lines: list[str], mutation: Mutation) -> bool:
    """Some line names a field (``field 'x'``) or the key the mutation changed, or, for a key
    removed, says what the record lacks (``no resourceSpans``)."""
    key = mutation.where.rsplit(".", 1)[-1].split("[", 1)[0]
    lacks = mutation.kind == "missing" and any(re.search(r"\bno \w|none of", x) for x in lines)
    # A field whose name holds a quote is shown in double quotes (Python's repr).
    named = ("field '", 'field "')
    return lacks or any(any(n in line for n in named) or (key and key in line) for line in lines)


def about_a_value(mutation: Mutation | None) -> bool:
    """A value inside a record was damaged (not a whole record, not the syntax)."""
    return (
        mutation is not None
        and mutation.kind in VALUE_KINDS
        and mutation.where != "."  # the root: a whole document
        and "." in mutation.where
    )


def check_import(
    case: MutatedInput, fmt: str, directory: Path, *, detect: bool = False
) -> tuple[Run, Run]:
    """Import and ingest the input through the CLI, as format ``fmt`` (``detect``: as the
    format detected); check every property of the module docstring. Returns both runs."""
    paths = []
    for name, data in case.files.items():
        (directory / name).write_bytes(data)
        paths.append(str(directory / name))
    mutation = case.mutation
    out = directory / "out.jsonl"
    named = [] if detect else ["--format", fmt]
    imported = run_command(["import", *paths, "-o", str(out), *named])
    where = f"{mutation or 'valid input'}\nimport stderr:\n{imported.err}"
    check_run(imported, paths, where)
    if imported.code != 0 and about_a_value(mutation):
        assert mutation is not None
        lines = imported.rejected_lines
        detail = "\n".join(lines)
        require(names_field(lines, mutation), "rejection names no field", detail, where)
    if mutation is None:
        require(imported.code == 0, "valid input rejected", "", where)
    if imported.code == 0:
        traces = check_faithful(case, fmt, paths, out, where)
        if mutation is None:
            require(len(traces) == case.original.traces, "valid input lost traces", "", where)
    stored = check_ingest(case, paths, named, directory, imported, out)
    return imported, stored


def check_run(run: Run, paths: list[str], where: str) -> None:
    """What holds for every command: no exception, a documented exit code, placed problems."""
    require(run.crash is None, "exception escaped", f"\n{run.crash}", where)
    require(run.code in (0, 1, 2), "undocumented exit code", str(run.code), where)
    output = run.err + run.out
    require("Traceback (most recent call last)" not in output, "traceback printed", "", where)
    for line in run.rejected_lines:
        require(names_place(line, paths), "unplaced rejection", line, where)


def check_faithful(
    case: MutatedInput, fmt: str, paths: list[str], out: Path, where: str
) -> list[Trace]:
    """An import that exited 0: nothing repaired, and its output reads back equal."""
    for name, data in case.files.items():
        problem = well_formed(name, data)
        require(problem is None, "accepted ill-formed input", f"{problem}", where)
    summary = ImportSummary()
    traces = list(iter_import([Path(p) for p in paths], format_name=fmt, summary=summary))
    require(summary.ok, "import in process differs from the CLI", "", where)
    require(_read_jsonl(out) == traces, "written traces read back different", "", where)
    dumped = [trace.model_dump(mode="python") for trace in traces]
    for value in _values(dumped):
        finite = not isinstance(value, float) or math.isfinite(value)
        require(finite, "non-finite float imported", repr(value), where)
    if case.mutation is not None:
        check_acceptable(case.mutation, fmt, dumps(dumped).decode(), where)
    return traces


def check_acceptable(mutation: Mutation, fmt: str, dumped: str, where: str) -> None:
    """The mutation-specific half of the rule: what no faithful reader accepts."""
    otlp_id = mutation.kind == "bad_id" and (
        mutation.file.endswith(".pb") or mutation.where.endswith(OTLP_ID_KEYS)
    )
    require(not (fmt in OTLP_FORMATS and otlp_id), "bad OTLP id accepted", "", where)
    float_field = mutation.where.rsplit(".", 1)[-1] in FLOAT_FIELDS
    if mutation.kind == "huge_int" and mutation.replaced_number and not float_field:
        huge = int(mutation.value)
        require(_holds(dumped, huge), "huge integer changed", f"{huge} is not in the trace", where)
    if mutation.kind == "embedded":
        inner, text, value = mutation.value
        verbatim = orjson.dumps(text).decode()[1:-1] in dumped
        if inner in ("nan", "duplicate_key"):
            require(verbatim, "lenient embedded JSON", "not kept verbatim, not rejected", where)
        if inner == "huge_int" and mutation.replaced_number:
            kept = verbatim or _holds(dumped, int(value))
            require(kept, "huge integer changed", f"{value} is not in the trace", where)


def _holds(dumped: str, number: int) -> bool:
    """The trace holds ``number`` exactly (below 2^53 a float holds it too)."""
    return abs(number) < 2**53 or str(number) in dumped


def check_ingest(
    case: MutatedInput,
    paths: list[str],
    named: list[str],
    directory: Path,
    imported: Run,
    out: Path,
) -> Run:
    """Ingest the same input into a fresh SQLite store: no traceback; it stores exactly what
    the import wrote, or refuses a trace naming the field."""
    url = f"sqlite:///{directory / 'store.db'}"
    stored = run_command(["ingest", *paths, *named, "--db", url])
    where = f"{case.mutation or 'valid input'}\ningest stderr:\n{stored.err}"
    check_run(stored, paths, where)
    if imported.code == 0:
        require(stored.code in (0, 1), "ingest refused a readable input", "", where)
    if imported.code == 0 and stored.code == 1:
        lines = stored.rejected_lines
        detail = "\n".join(lines)
        require(any("field '" in line for line in lines), "refusal names no field", detail, where)
    if stored.code == 0:
        require(imported.code == 0, "ingest stored what import rejected", "", where)
        with Store.open(url) as store:
            for trace in _read_jsonl(out):
                same = store.get_trace(trace.trace_id) == trace
                require(same, "stored trace differs", trace.trace_id, where)
    return stored
