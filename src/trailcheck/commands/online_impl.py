"""What ``trailcheck online`` does (its options: :mod:`trailcheck.commands.online`): the worker
run over a store, and the status read from it."""

from __future__ import annotations

import importlib
import signal
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

import httpx

from trailcheck.commands.executor_options import executor_kind
from trailcheck.commands.loop_impl import chosen_rules
from trailcheck.commands.online import OnlineRunRequest, OnlineStatusRequest
from trailcheck.commands.output import print_json, stderr, stdout
from trailcheck.commands.store_commands_impl import open_store
from trailcheck.commands.telemetry import emit_target
from trailcheck.errors import UsageError
from trailcheck.extras import needs_extra
from trailcheck.loop import Rule
from trailcheck.online import OnlineConfig, load_online_config
from trailcheck.online.alerting import Notifier
from trailcheck.online.evaluate import JudgeRunner
from trailcheck.online.judging import openai_judges
from trailcheck.online.periods import parse_since, parse_window
from trailcheck.online.results import OnlineStatus, online_status
from trailcheck.online.worker import (
    JudgeBudget,
    OnlineWorker,
    PassSummary,
    WorkerSettings,
    default_worker_id,
)
from trailcheck.store import Store

# A webhook that has not answered in this long is recorded as not delivered.
WEBHOOK_TIMEOUT_S = 10.0

__all__ = [
    "WEBHOOK_TIMEOUT_S",
    "judge_runner",
    "online_run",
    "online_status_command",
    "print_status",
]


def judge_runner(
    config: OnlineConfig,
    *,
    judge_model: str | None,
    base_url: str | None,
    api_key_env: str,
    rate: float | None = None,
) -> JudgeRunner | None:
    """The runner of the file's judges (:func:`~trailcheck.online.judging.openai_judges`);
    without the ``openai`` extra, a usage error before any pass."""
    if any(evaluator.judge is not None for evaluator in config.evaluators):
        with needs_extra("openai", "an online judge"):
            importlib.import_module("openai")
    return openai_judges(
        config, judge_model=judge_model, base_url=base_url, api_key_env=api_key_env, rate=rate
    )


def online_run(request: OnlineRunRequest) -> None:
    """The body of :func:`trailcheck.commands.online.online_run`."""
    where = executor_kind(request.executor, request.address, request.num_cpus)
    if where == "ray" and not request.once:
        raise UsageError("--executor ray drains a backlog: give --once too")
    if where == "local" and request.workers is not None:
        raise UsageError("--workers needs --executor ray")
    rules = chosen_rules(request.rules or [])
    config = load_online_config(request.config, rules=rules)
    settings = WorkerSettings(
        lease_s=request.lease,
        batch=request.batch,
        concurrency=request.concurrency,
        max_attempts=request.max_attempts,
        budget=JudgeBudget(
            calls=request.judge_calls_per_hour, tokens=request.judge_tokens_per_hour
        ),
        worker_id=request.worker_id or default_worker_id(),
    )
    judge = judge_runner(
        config,
        judge_model=request.judge_model,
        base_url=request.judge_base_url,
        api_key_env=request.api_key_env,
        rate=request.judge_rate,
    )
    target = emit_target(request.emit_otel, request.emit_otel_header)
    with open_store(request.db) as store, httpx.Client(timeout=WEBHOOK_TIMEOUT_S) as client:
        notifier = Notifier(write=_print_notice, client=client, otel=target)
        worker = OnlineWorker(
            store, config, rules=rules, judge=judge, settings=settings, notifier=notifier
        )
        if where == "ray":
            _report(_drain_on_ray(worker, request, store, rules), request.as_json)
            return
        if request.once:
            _report(worker.run_once(), request.as_json)
            return
        _keep_scoring(worker, request, store.url)


def _drain_on_ray(
    worker: OnlineWorker, request: OnlineRunRequest, store: Store, rules: Sequence[Rule]
) -> PassSummary:
    """Plan here, then drain on Ray (:mod:`trailcheck.distributed.online`); then the alerts,
    here too (a window fires once however many workers check it)."""
    with needs_extra("ray", "trailcheck online run --executor ray"):
        from trailcheck.distributed import cluster_workers, ray_session
        from trailcheck.distributed.online import JudgeOptions, OnlineRecipe, drain_on_ray
    summary = PassSummary(planned=worker.plan())
    url = store.engine.url
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        url = url.set(database=str(Path(url.database).resolve()))
    recipe = OnlineRecipe(
        db_url=url.render_as_string(hide_password=False),
        config=worker.config,
        rules=tuple(rules),
        settings=worker.settings,
        judges=JudgeOptions(
            judge_model=request.judge_model,
            base_url=request.judge_base_url,
            api_key_env=request.api_key_env,
            rate=request.judge_rate,
        ),
    )
    task_cpus = 1.0 if request.num_cpus is None else request.num_cpus
    with ray_session(request.address):
        workers = request.workers or cluster_workers(task_cpus)
        for done in drain_on_ray(recipe, workers=workers, num_cpus=task_cpus):
            summary.add(done)
    summary.alerts += len(worker.check_alerts())
    return summary


def _keep_scoring(worker: OnlineWorker, request: OnlineRunRequest, url: str) -> None:
    stop = threading.Event()

    def interrupted(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, interrupted)
    stderr.print(f"online worker {worker.settings.worker_id} on {url}: scoring (Ctrl-C stops)")
    try:
        while not stop.is_set():
            done = worker.run_once()
            if done.planned or done.executed or done.alerts:
                _report(done, request.as_json)
            else:
                stop.wait(request.poll)
    except KeyboardInterrupt:
        stderr.print("online worker: stopped")
    finally:
        signal.signal(signal.SIGTERM, previous)


def _print_notice(text: str) -> None:
    stderr.print(text, markup=False, highlight=False)


def _report(summary: PassSummary, as_json: bool) -> None:
    if as_json:
        print_json(summary.as_dict())
        return
    counts = summary.as_dict()
    shown = ", ".join(f"{key} {value}" for key, value in counts.items() if value)
    stdout.print(f"online: {shown or 'nothing due'}", markup=False, highlight=False)


def online_status_command(request: OnlineStatusRequest) -> None:
    """The body of :func:`trailcheck.commands.online.online_status`."""
    now = time.time_ns()
    since_ns = None if request.since is None else parse_since(request.since, now)
    window_ns = None if request.window is None else parse_window(request.window)
    versions = None
    if request.config is not None:
        config = load_online_config(request.config)
        versions = [(e.name, e.version) for e in config.evaluators]
    with open_store(request.db, must_exist=True) as store:
        status = online_status(
            store.engine,
            now_ns=now,
            since_ns=since_ns,
            window_ns=window_ns,
            window_text=request.window,
            versions=versions,
            level=request.level,
            method=request.method,
        )
    if request.as_json:
        print_json(status.model_dump(mode="json"))
        return
    print_status(status)


def _bounds(interval: tuple[float | None, float | None]) -> str:
    low, high = interval
    return "–" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def print_status(status: OnlineStatus) -> None:
    if not status.evaluators:
        stdout.print("no online evaluator has run on this store (trailcheck online run)")
        return
    if status.since:
        stdout.print(f"traces started since {status.since}", markup=False)
    for row in status.evaluators:
        level = f"{row.level:.0%}"
        lag = "" if row.lag_s is None else f", lag {row.lag_s:.0f}s"
        lines = [
            f"{row.name}@{row.version} ({row.kind}): scored {row.scored}, failed {row.failed},"
            f" failure rate {_rate(row.failure_rate)} {level} {_bounds(row.interval)}",
            f"  queue: waiting {row.waiting}{lag}, skipped {row.skipped}, failed runs"
            f" {row.failed_executions}, quarantined {row.quarantined}",
        ]
        lines += [
            f"  {window.start}  scored {window.scored:>6}"
            f"  failed {window.scored - window.passed:>6}"
            f"  rate {_rate(window.failure_rate)} {_bounds(window.interval)}"
            for window in row.windows
        ]
        if row.calibration is not None:
            calibration = row.calibration
            kappa = "–" if calibration.kappa is None else f"{calibration.kappa:.2f}"
            lines.append(
                f"  calibration: {calibration.labelled} labelled traces, kappa {kappa}"
                f" {_bounds(calibration.kappa_interval)}"
            )
        stdout.print("\n".join(lines), markup=False, highlight=False)
