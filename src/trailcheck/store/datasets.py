"""Dataset versions as the store keeps them: every version's cases, as they were.

A dataset version is the hash of its canonical content (:func:`trailcheck.cases.dataset_version`),
so saving the same dataset twice records one version, and a reviewed change records a new one
while the old one stays readable (a run's report names the version it ran).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import orjson
from sqlalchemy import Connection, func, select

from trailcheck.cases import Case, Dataset
from trailcheck.store import schema
from trailcheck.store.backends import insert_or_ignore

__all__ = [
    "CaseSources",
    "iter_case_sources",
    "read_dataset_cases",
    "read_dataset_versions",
    "write_dataset_version",
]


@dataclass(frozen=True, slots=True)
class CaseSources:
    """A stored case's source traces, where it is and what became of its review: what a prune
    keeps (a candidate or approved case of a dataset's latest version) and a deletion on
    request reports (every stored case citing a deleted trace)."""

    dataset: str
    version: str
    case_id: str
    review_status: str
    source_trace_ids: tuple[str, ...]
    latest: bool
    """The case is in its dataset's latest recorded version."""

    @property
    def named(self) -> str:
        """``version/case_id`` (``shop@1a2b3c4d5e6f/c1``; a version names its dataset): how the
        log of deletions names it."""
        return f"{self.version}/{self.case_id}"


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


def iter_case_sources(connection: Connection) -> Iterator[CaseSources]:
    """Every stored case that cites a source trace, with its dataset, version and review, read
    from the stored content (``source_trace_ids`` is a field of the case, not a column)."""
    versions, cases = schema.dataset_versions, schema.cases
    newest = (
        select(versions.c.dataset, func.max(versions.c.created_ns).label("created_ns"))
        .group_by(versions.c.dataset)
        .subquery()
    )
    latest = {
        dataset: version
        for dataset, version in connection.execute(
            select(versions.c.dataset, func.max(versions.c.version))
            .join(
                newest,
                (newest.c.dataset == versions.c.dataset)
                & (newest.c.created_ns == versions.c.created_ns),
            )
            .group_by(versions.c.dataset)
        )
    }
    query = select(cases.c.dataset, cases.c.version, cases.c.case_id, cases.c.content).where(
        cases.c.content.contains('"source_trace_ids"')
    )
    for dataset, version, case_id, content in connection.execute(query):
        case = orjson.loads(content)
        sources = tuple(str(trace_id) for trace_id in case.get("source_trace_ids") or ())
        if sources:
            yield CaseSources(
                dataset=dataset,
                version=version,
                case_id=case_id,
                review_status=str(case.get("review_status", "candidate")),
                source_trace_ids=sources,
                latest=latest.get(dataset) == version,
            )
