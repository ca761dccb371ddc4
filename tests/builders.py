"""What several test files build alike: the shop dataset with traces to grade against it, and the
JSONL and Parquet files those traces are written to. A helper one test file uses stays in it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from trailcheck.importing.formats import UTF8_BOM
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace

SHOP_DATASET = """\
name: shop
cases:
  - id: refund
    input: Refund A-1
    expected_tools: [lookup_order, issue_refund]
    expected_arguments:
      - tool: issue_refund
        arguments: {order_id: A-1}
  - id: lookup
    input: Where is A-2?
    expected_tools: [lookup_order]
"""
"""A dataset file of two cases: ``refund`` (look the order up, then refund A-1) and ``lookup``."""

# (case_id, tools called, order id), one per trace in turn.
_PLANS = [
    ("refund", ["lookup_order", "issue_refund"], "A-1"),
    ("refund", ["issue_refund"], "A-1"),
    ("refund", ["lookup_order", "issue_refund"], "A-9"),
    ("lookup", ["lookup_order"], "A-2"),
    ("lookup", ["lookup_order", "lookup_order", "lookup_order"], "A-2"),
    ("nowhere", ["lookup_order"], "A-2"),
]


def shop_trace(index: int) -> Trace:
    """Trace ``t{index}`` for :data:`SHOP_DATASET`, naming its case in ``metadata.case_id``.
    Six kinds in turn (``index % 6``): a refund done right, one without the lookup, one of the
    wrong order; a lookup, one made three times; and a trace naming ``nowhere``, no case."""
    case_id, tools, order = _PLANS[index % len(_PLANS)]
    builder = TraceBuilder(f"t{index}", input=f"Please help with {order}")
    for tool in tools:
        builder.tool(tool, {"order_id": order}, result={"order_id": order, "total": 12.5})
    return builder.output(f"Done for {order}: 12.5").metadata(case_id=case_id).build()


def shop_lines(count: int, start: int = 0) -> list[bytes]:
    """:func:`shop_trace` ``start`` to ``start + count - 1``, as trailcheck JSONL lines."""
    return [dump_trace(shop_trace(index)) for index in range(start, start + count)]


def write_jsonl(path: Path, lines: Iterable[bytes], *, bom: bool = False) -> Path:
    """``lines`` written to ``path``, each ended by a newline, after a UTF-8 BOM if ``bom``."""
    path.write_bytes((UTF8_BOM if bom else b"") + b"".join(line + b"\n" for line in lines))
    return path


def write_parquet(
    path: Path, lines: Sequence[bytes | None], *, binary: bool = False, group: int = 6
) -> Path:
    """``lines`` as the ``trace`` column of a Parquet file (text unless ``binary``; ``None`` a
    null row) in row groups of ``group``, beside a ``day`` column the reader leaves alone.
    Needs pyarrow: a caller skips without it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    values: list[Any] = [line if binary or line is None else line.decode() for line in lines]
    table = pa.table(
        {
            "trace": pa.array(values, pa.binary() if binary else pa.string()),
            "day": pa.array(["2026-12-05"] * len(lines)),
        }
    )
    pq.write_table(table, path, row_group_size=group)
    return path
