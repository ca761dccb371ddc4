"""The alerts that fired, read back from the store (``online_alerts``), newest first.

The worker writes a row per alert, evaluator version and window, with the notice it sent as
JSON (:class:`~trailcheck.online.notices.AlertNotice`). A notice that cannot be read is still
listed, with the reason it could not be (failures are data): the row says the alert fired even
when its text is damaged.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError
from sqlalchemy import Engine, select

from trailcheck.online.notices import AlertNotice, FailingTrace
from trailcheck.store import schema
from trailcheck.store.backends import read_only

__all__ = ["FiredAlert", "fired_alerts", "fired_notices"]

_alerts = schema.online_alerts


class FiredAlert(BaseModel):
    """An alert that fired over a window of an evaluator version, with its notice; ``problem``
    says why the stored notice could not be read (``notice`` is then ``None``)."""

    model_config = ConfigDict(frozen=True)

    id: int
    alert: str
    name: str
    version: str
    window_start_ns: int
    window_end_ns: int
    fired_ns: int
    notice: AlertNotice | None
    problem: str | None = None

    @property
    def reason(self) -> str:
        return "" if self.notice is None else self.notice.reason

    @property
    def failing_traces(self) -> list[FailingTrace]:
        """The failing traces the notice names (some of them: see ``total_failing``)."""
        return [] if self.notice is None else self.notice.failing_traces

    @property
    def total_failing(self) -> int:
        """How many traces failed in the window."""
        return 0 if self.notice is None else self.notice.failed


def _read_notice(text: str) -> tuple[AlertNotice | None, str | None]:
    try:
        return AlertNotice.model_validate_json(text), None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "notice"
        return None, f"unreadable notice: {where}: {first['msg']}"


def fired_alerts(
    engine: Engine,
    *,
    since_ns: int | None = None,
    name: str | None = None,
    version: str | None = None,
    limit: int | None = 50,
) -> list[FiredAlert]:
    """The ``limit`` latest alerts that fired (by when they fired; ``None``: every one), of
    windows that ended after ``since_ns`` when given, of the evaluator ``name`` (and
    ``version``) when given."""
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
        fired.append(
            FiredAlert(
                id=row["id"],
                alert=row["alert"],
                name=row["name"],
                version=row["version"],
                window_start_ns=row["window_start_ns"],
                window_end_ns=row["window_end_ns"],
                fired_ns=row["fired_ns"],
                notice=notice,
                problem=problem,
            )
        )
    return fired


def fired_notices(engine: Engine, *, alert: str | None = None) -> list[AlertNotice]:
    """The readable notices of every alert fired (of ``alert`` only, when given), in the order
    of their windows."""
    fired = [f for f in fired_alerts(engine, limit=None) if alert is None or f.alert == alert]
    fired.sort(key=lambda f: (f.window_start_ns, f.alert))
    return [f.notice for f in fired if f.notice is not None]
