""":func:`~trailcheck.bulk.ordered_map`'s contract on Ray: ``work(item)`` for each item as a Ray
task, results in input order, at most ``workers * 2`` tasks in flight (memory stays bounded on a
file of any size), a task's exception re-raised when its item's turn comes.

``initializer(*initargs)`` (loading the dataset, say) runs once in each Ray worker process before
the first item it takes, as a process pool's initializer does; a worker that later takes items of
another map (another dataset) runs that map's initializer first.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from trailcheck.distributed.ray_import import ray

__all__ = ["ray_ordered_map"]

Item = TypeVar("Item")
Result = TypeVar("Result")

# What this worker process was last initialised with: Ray reuses worker processes across tasks
# (one task at a time each), so the initializer runs again only when the map changes.
_initialised: list[tuple[Callable[..., object], tuple[Any, ...]]] = []


def _work_in_worker(
    work: Callable[[Item], Result],
    item: Item,
    initializer: Callable[..., object] | None,
    initargs: tuple[Any, ...],
) -> Result:
    if initializer is not None and _initialised != [(initializer, initargs)]:
        initializer(*initargs)
        _initialised[:] = [(initializer, initargs)]
    return work(item)


def ray_ordered_map(
    work: Callable[[Item], Result],
    items: Iterable[Item],
    *,
    workers: int,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
    num_cpus: float = 1.0,
) -> Iterator[Result]:
    """``work(item)`` for each item, in order, each a Ray task asking for ``num_cpus`` CPUs;
    ``workers`` is how many Ray runs at once (``workers * 2`` are in flight)."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    task: Any = ray.remote(_work_in_worker).options(num_cpus=num_cpus)
    in_flight: deque[Any] = deque()
    try:
        for item in items:
            in_flight.append(task.remote(work, item, initializer, initargs))
            if len(in_flight) >= workers * 2:
                yield _result(in_flight.popleft())
        while in_flight:
            yield _result(in_flight.popleft())
    finally:
        # Stopped early (an error, Ctrl-C, or the consumer closed us): queued work is dropped.
        for pending in in_flight:
            ray.cancel(pending, force=True)


def _result(ref: Any) -> Any:
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as failed:
        # The work's own exception, as the process pool gives it, not Ray's wrapper.
        cause: BaseException = failed.as_instanceof_cause()  # type: ignore[no-untyped-call]
        raise cause from None
