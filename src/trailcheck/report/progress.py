"""Progress of a run: a live bar with counts and ETA on a terminal, plain lines elsewhere (CI).

A CI log wants few, greppable lines, not a redrawn bar: there a line is printed when another
tenth of the trials has finished and at least :data:`PLAIN_LINE_EVERY_S` have passed since the
last line, and at the end.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from types import TracebackType
from typing import Self

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from trailcheck.run.results import TrialResult
from trailcheck.run.status import TRIAL_STATUSES

PLAIN_LINE_EVERY_S = 5.0


def status_counts(counts: Counter[str]) -> str:
    """``passed 30 · failed 8 · infra_error 2``: the statuses seen so far, in a fixed order."""
    shown = [f"{status} {counts[status]}" for status in TRIAL_STATUSES if counts[status]]
    return " · ".join(shown) or "none finished"


class ProgressObserver:
    """A :class:`~trailcheck.run.runner.RunObserver` that shows progress on ``console``."""

    def __init__(
        self,
        console: Console,
        label: str = "trials",
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self._clock = clock
        self._last_line = 0.0
        self.label = label
        self.counts: Counter[str] = Counter()
        self.total = 0
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._next_line = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def started(self, total: int) -> None:
        self.total = total
        if self.console.is_terminal:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[counts]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=total, counts="")
        else:
            self.console.print(f"{self.label}: {total} trials", markup=False, highlight=False)
            self._next_line = max(1, total // 10)
            self._last_line = self._clock()

    def finished(self, trial: TrialResult) -> None:
        self.counts[trial.status] += 1
        done = sum(self.counts.values())
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=done, counts=status_counts(self.counts))
        elif done == self.total or (
            done >= self._next_line and self._clock() - self._last_line >= PLAIN_LINE_EVERY_S
        ):
            self._last_line = self._clock()
            width = len(str(self.total))
            line = f"{self.label}: [{done:>{width}}/{self.total}] {status_counts(self.counts)}"
            self.console.print(line, markup=False, highlight=False)
            self._next_line = done + max(1, self.total // 10)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
