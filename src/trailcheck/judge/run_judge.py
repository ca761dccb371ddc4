"""Judging the labelled items: each label's criterion about its item, by the judge calibrated.

An item is a trace, found by its id, or by a case id its ``metadata.case_id`` names when exactly
one trace names it (a label may refer to a trace or to a case). Its case, when cases are given,
is the one with the item's id or the trace's ``case_id`` (:func:`case_of`): the reference judge
reads its reference answer there. The replay judge needs no
trace: it answers from its recorded verdicts by ``(item_id, criterion)``. A label whose item is
not among the traces, and a judge that raises, each give an ``unscorable`` judging with the
reason, so the calibration reports them instead of losing them.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from trailcheck.cases import Case
from trailcheck.errors import InputError, UsageError
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.judge.judge import Judge
from trailcheck.judge.labels import HumanLabel
from trailcheck.judge.replay import ReplayJudge
from trailcheck.judge.verdict import JudgeItem, Judging
from trailcheck.trace import Trace

__all__ = ["case_of", "judge_labelled", "load_items", "traces_by_item_id"]


def traces_by_item_id(traces: Iterable[Trace]) -> dict[str, Trace]:
    """Each trace by its id, and by the case id it names when no other trace names that case
    and no trace has it as its id."""
    listed = list(traces)
    by_id = {trace.trace_id: trace for trace in listed}
    case_ids = [trace.metadata.get("case_id") for trace in listed]
    once = {
        case_id for case_id, n in Counter(case_ids).items() if isinstance(case_id, str) and n == 1
    }
    for trace, case_id in zip(listed, case_ids, strict=True):
        if case_id in once and case_id not in by_id:
            by_id[case_id] = trace
    return by_id


def load_items(paths: Sequence[Path], format_name: str | None = None) -> dict[str, Trace]:
    """The traces of ``paths`` by item id; a rejected record is an input error, because labels
    whose trace was rejected would otherwise be reported as merely unscorable."""
    summary = ImportSummary()
    traces = list(iter_import(paths, format_name=format_name, summary=summary))
    if summary.rejections:
        shown = "; ".join(str(rejection) for rejection in summary.rejections[:5])
        raise InputError(f"{len(summary.rejections)} trace record(s) rejected: {shown}")
    return traces_by_item_id(traces)


def case_of(item_id: str, trace: Trace, cases: Mapping[str, Case]) -> Case | None:
    """The case of a labelled item: the one with its id, else the one its trace's
    ``metadata.case_id`` names; None when neither is among ``cases``."""
    named = trace.metadata.get("case_id")
    return cases.get(item_id) or (cases.get(named) if isinstance(named, str) else None)


def _unscorable(judge: Judge, label: HumanLabel, reason: str) -> Judging:
    return Judging.unscorable(
        item_id=label.item_id,
        criterion=label.criterion,
        judge_version=judge.version,
        reason=reason,
        attempts=0,
    )


async def _judge_one(
    judge: Judge,
    label: HumanLabel,
    items: Mapping[str, Trace],
    cases: Mapping[str, Case],
    gate: asyncio.Semaphore,
) -> Judging:
    if isinstance(judge, ReplayJudge):
        return judge.recorded(label.item_id, label.criterion)
    trace = items.get(label.item_id)
    if trace is None:
        return _unscorable(judge, label, f"no trace for item {label.item_id!r} among the traces")
    item = JudgeItem(
        item_id=label.item_id,
        trace=trace,
        criterion=label.criterion,
        case=case_of(label.item_id, trace, cases),
    )
    async with gate:
        try:
            return await judge.judge(item)
        # A judge that raises is the item's data, as for a scorer: recorded, and the rest go on.
        except Exception as error:  # noqa: BLE001
            return _unscorable(judge, label, f"judge raised {type(error).__name__}: {error}")


async def judge_labelled(
    judge: Judge,
    labels: Sequence[HumanLabel],
    items_by_id: Mapping[str, Trace] | None = None,
    concurrency: int = 4,
    cases: Mapping[str, Case] | None = None,
) -> list[Judging]:
    """One judging per label, in label order, at most ``concurrency`` at once; ``cases`` by
    id (see the module)."""
    if concurrency < 1:
        raise UsageError(f"concurrency must be 1 or more, not {concurrency}")
    gate = asyncio.Semaphore(concurrency)
    items, given = items_by_id or {}, cases or {}
    return list(
        await asyncio.gather(*(_judge_one(judge, label, items, given, gate) for label in labels))
    )
