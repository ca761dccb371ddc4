"""A list of ids bound as one parameter: ``column IN (...)`` for the hundreds of ids of a
prune's batch, with a statement that is compiled once and not rendered again for each list.

SQLAlchemy renders ``column.in_(ids)`` anew for every list (one bound parameter per id), which
costs more than running the statement when a batch runs twenty of them. Here the list is one
parameter: a PostgreSQL array (``column = ANY(:ids)``, which reads the column's index as a range
of keys) or, on SQLite, a JSON array read by ``json_each`` (``column IN (SELECT value FROM
json_each(:ids))``, looked up id by id on the column's index).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import orjson
from sqlalchemy import ColumnElement, Connection, String, bindparam, column, func, select
from sqlalchemy.dialects.postgresql import ARRAY

__all__ = ["IDS", "among_ids", "bound_ids"]

IDS: Final = "ids"


def among_ids(connection: Connection, ids_of: ColumnElement[Any]) -> ColumnElement[bool]:
    """``ids_of`` is one of the ids bound by :func:`bound_ids`, on the connection's backend."""
    if connection.dialect.name == "postgresql":
        return ids_of == func.any(bindparam(IDS, type_=ARRAY(String())))
    listed = select(column("value", String())).select_from(func.json_each(bindparam(IDS)))
    return ids_of.in_(listed)


def bound_ids(connection: Connection, ids: Sequence[str]) -> dict[str, Any]:
    """The parameters that bind ``ids`` for :func:`among_ids`."""
    if connection.dialect.name == "postgresql":
        return {IDS: list(ids)}
    return {IDS: orjson.dumps(list(ids)).decode()}
