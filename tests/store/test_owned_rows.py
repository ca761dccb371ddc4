"""Every table of the schema is known to own rows of a trace or not: a new table that names
traces must be put in one list or the other, so a prune or a deletion never leaves it
behind unnoticed."""

from __future__ import annotations

from trailcheck.store import schema
from trailcheck.store.owned_rows import NOT_OWNED_TABLES, OWNED_TABLES


def test_every_table_is_owned_by_traces_or_named_as_not() -> None:
    owned = {table.name for table in OWNED_TABLES}
    not_owned = {table.name for table in NOT_OWNED_TABLES}
    assert owned.isdisjoint(not_owned)
    assert owned | not_owned == {table.name for table in schema.metadata.sorted_tables}


def test_every_owned_table_names_its_trace() -> None:
    assert all("trace_id" in table.c for table in OWNED_TABLES)
    assert OWNED_TABLES[-1] is schema.traces  # its children go first


def test_the_tables_that_name_a_trace_but_are_not_owned_are_few_and_named() -> None:
    naming = {table.name for table in NOT_OWNED_TABLES if "trace_id" in table.c}
    assert naming == {"trials"}  # a run's record of its trials: the run's, not the trace's
