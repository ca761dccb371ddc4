"""What ``trailcheck demo online`` does (its options: :mod:`trailcheck.commands.demo_online`):
the traffic into a store, one pass of the online worker with a scripted judge, the hourly
status, and the alerts that fired, checked against where the regression was shipped."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import typer

from trailcheck.commands.demo_online import DemoOnlineRequest
from trailcheck.commands.online_impl import print_status
from trailcheck.commands.output import print_json, stdout
from trailcheck.commands.store_commands_impl import open_store
from trailcheck.demo.online import (
    DEMO_ONLINE_FILE,
    TrafficShape,
    scripted_completion_judge,
    support_traffic,
)
from trailcheck.errors import EXIT_FAILED, UsageError
from trailcheck.judge import JudgeItem
from trailcheck.online import Evaluator, parse_online_config
from trailcheck.online.alert_log import fired_notices
from trailcheck.online.alerting import Notifier
from trailcheck.online.evaluate import JudgeResult
from trailcheck.online.judges import judge_criterion
from trailcheck.online.results import online_status
from trailcheck.online.worker import OnlineWorker
from trailcheck.store import Store
from trailcheck.trace import Trace

__all__ = ["demo_online_command"]

_HOUR_NS = 3_600 * 10**9


@contextmanager
def _demo_store(db: str | None) -> Iterator[Store]:
    if db is not None:
        with open_store(db) as store:
            if store.list_traces(limit=1):
                raise UsageError(f"the demo fills an empty store; {store.url} holds traces")
            yield store
        return
    with (
        tempfile.TemporaryDirectory(prefix="trailcheck-online-") as folder,
        open_store(f"sqlite:///{Path(folder) / 'online.db'}") as store,
    ):
        yield store


def demo_online_command(request: DemoOnlineRequest) -> None:
    """The body of :func:`trailcheck.commands.demo_online.demo_online_command`."""
    shape = TrafficShape(traces=request.traces)
    config = parse_online_config(DEMO_ONLINE_FILE, source="demo online file")
    judge = scripted_completion_judge()

    async def scripted(evaluator: Evaluator, trace: Trace) -> JudgeResult:
        assert evaluator.judge is not None
        criterion = judge_criterion(evaluator.judge)
        item = JudgeItem(item_id=trace.trace_id, trace=trace, criterion=criterion)
        return JudgeResult(await judge.judge(item), model="scripted")

    lines: list[str] = []
    with _demo_store(request.db) as store, httpx.Client() as client:
        traffic = support_traffic(shape)
        store.ingest(traffic)
        notifier = Notifier(write=lines.append, client=client)
        worker = OnlineWorker(store, config, judge=scripted, notifier=notifier)
        summary = worker.run_once()
        status = online_status(
            store.engine, now_ns=time.time_ns(), window_ns=_HOUR_NS, window_text="1h"
        )
        notices = fired_notices(store.engine)
    second_half = [n.window.start_ns >= shape.midpoint_ns for n in notices]
    ok = bool(notices) and all(second_half)
    if request.as_json:
        print_json(
            {
                "traces": len(traffic),
                "pass": summary.as_dict(),
                "status": status.model_dump(mode="json"),
                "alerts": [n.model_dump(mode="json") for n in notices],
                "alerts_on_second_half_only": ok,
            }
        )
    else:
        stdout.print(
            f"{len(traffic)} support traces over {shape.hours} h; the refund-without-identity"
            f" share goes from {shape.before:.0%} to {shape.after:.0%} at the midpoint",
            markup=False,
        )
        stdout.print(f"online pass: {summary.as_dict()}", markup=False, highlight=False)
        print_status(status)
        for line in lines:
            stdout.print(line, markup=False, highlight=False)
        verdict = "on the second half only" if ok else "NOT on the second half only"
        stdout.print(f"{len(notices)} alerts fired, {verdict}", markup=False)
    if not ok:
        raise typer.Exit(EXIT_FAILED)
