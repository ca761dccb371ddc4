"""Dataset versions as the store keeps them: every version's cases, as they were.

A dataset version is the hash of its canonical content (:func:`trailcheck.cases.dataset_version`),
so saving the same dataset twice records one version, and a reviewed change records a new one
while the old one stays readable (a run's report names the version it ran).
"""

from __future__ import annotations

import time

from sqlalchemy import Connection, select

from trailcheck.cases import Case, Dataset
from trailcheck.store import schema
from trailcheck.store.backends import insert_or_ignore

__all__ = ["read_dataset_cases", "read_dataset_versions", "write_dataset_version"]


def write_dataset_version(connection: Connection, dataset: Dataset) -> str:
    """Record ``dataset``'s current version and its cases (a no-op when already recorded)."""
    version = dataset.version
    insert_or_ignore(
        connection,
        schema.dataset_versions,
        [{"dataset": dataset.name, "version": version, "created_ns": time.time_ns()}],
    )
    insert_or_ignore(
        connection,
        schema.cases,
        [
            {
                "dataset": dataset.name,
                "version": version,
                "case_id": case.id,
                "content": case.model_dump_json(exclude_defaults=True),
            }
            for case in dataset.cases
        ],
    )
    return version


def read_dataset_versions(connection: Connection, name: str) -> list[str]:
    """The recorded versions of dataset ``name``, oldest first."""
    table = schema.dataset_versions
    query = (
        select(table.c.version)
        .where(table.c.dataset == name)
        .order_by(table.c.created_ns, table.c.version)
    )
    return list(connection.scalars(query))


def read_dataset_cases(connection: Connection, name: str, version: str) -> list[Case]:
    """The cases of version ``version`` of dataset ``name``, by case id."""
    table = schema.cases
    query = (
        select(table.c.content)
        .where(table.c.dataset == name, table.c.version == version)
        .order_by(table.c.case_id)
    )
    return [Case.model_validate_json(content) for content in connection.scalars(query)]
