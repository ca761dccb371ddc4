"""The alerts that fired, read back from the store (``online_alerts``), newest first.

The worker writes a row per alert, evaluator version and window, with the notice it sent as
JSON. What is read here is the part a reader needs: the ``reason`` (the arithmetic of the
rule), the failing traces it names with their detect cluster, and how many failed in all (a
notice names some, not necessarily every one). Fields the notice carries beyond these are
left for their own readers. A notice that cannot be read is still listed, with the reason it
could not be (failures are data): the row says the alert fired even when its text is damaged.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError
from sqlalchemy import Engine, select

from trailcheck.store import schema
from trailcheck.store.backends import read_only

__all__ = ["FailingTraceRef", "FiredAlert", "fired_alerts"]

_alerts = schema.online_alerts


class FailingTraceRef(BaseModel):
    """A trace an alert names as failing, and the detect cluster it belongs to, if any."""

    model_config = ConfigDict(frozen=True)

    trace_id: str
    cluster_id: str | None = None


class _Notice(BaseModel):
    """The part of a stored notice read here; the rest is ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    reason: str
    failing_traces: list[FailingTraceRef] = []
    total_failing: int | None = None


class FiredAlert(BaseModel):
    """An alert that fired over a window of an evaluator version. ``problem`` says why the
    stored notice could not be read (its ``reason`` is then empty)."""

    model_config = ConfigDict(frozen=True)

    id: int
    alert: str
    name: str
    version: str
    window_start_ns: int
    window_end_ns: int
    fired_ns: int
    reason: str
    failing_traces: list[FailingTraceRef]
    total_failing: int
    problem: str | None = None


def _read_notice(text: str) -> tuple[_Notice, str | None]:
    try:
        return _Notice.model_validate_json(text), None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "notice"
        return _Notice(reason=""), f"unreadable notice: {where}: {first['msg']}"


def fired_alerts(
    engine: Engine,
    *,
    since_ns: int | None = None,
    name: str | None = None,
    version: str | None = None,
    limit: int = 50,
) -> list[FiredAlert]:
    """The ``limit`` latest alerts that fired (by when they fired), of windows that ended after
    ``since_ns`` when given, of the evaluator ``name`` (and ``version``) when given."""
    query = select(_alerts).order_by(_alerts.c.fired_ns.desc(), _alerts.c.id.desc()).limit(limit)
    if since_ns is not None:
        query = query.where(_alerts.c.window_end_ns > since_ns)
    if name is not None:
        query = query.where(_alerts.c.name == name)
    if version is not None:
        query = query.where(_alerts.c.version == version)
    with read_only(engine) as connection:
        rows = connection.execute(query).mappings().all()
    fired = []
    for row in rows:
        notice, problem = _read_notice(row["notice"])
        total = notice.total_failing
        fired.append(
            FiredAlert(
                id=row["id"],
                alert=row["alert"],
                name=row["name"],
                version=row["version"],
                window_start_ns=row["window_start_ns"],
                window_end_ns=row["window_end_ns"],
                fired_ns=row["fired_ns"],
                reason=notice.reason,
                failing_traces=notice.failing_traces,
                total_failing=len(notice.failing_traces) if total is None else total,
                problem=problem,
            )
        )
    return fired
