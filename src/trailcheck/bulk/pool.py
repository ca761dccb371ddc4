"""Work items mapped over worker processes, results in input order, memory bounded.

At most ``workers * 2`` items are in flight: the parent submits the next item only as it yields
a result, so a file of any size holds a few chunks' results at a time, not the whole output. A
worker's exception is re-raised in the parent when its item's turn comes, with the items before
it already yielded. With one worker (or one item) nothing is forked: the work runs in process,
so a small input pays no start-up.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

__all__ = ["MapChunks", "default_workers", "ordered_map", "start_method"]

Item = TypeVar("Item")
Result = TypeVar("Result")


MapChunks = Callable[..., Iterator[Any]]
"""What runs bulk work: :func:`ordered_map`'s signature, ``(work, items, *, workers, initializer,
initargs)``, results in input order; ``trailcheck.distributed`` passes Ray's."""


def start_method() -> str:
    """How workers start. ``fork`` starts them in milliseconds with the parent's imports (the
    CLI's bulk commands start no thread before they fork). But a child forked while another
    thread of the parent holds a lock (a Ray or gRPC client's, a server's, a logging handler's)
    waits on it forever: with another thread alive, workers start from a fork server, a process
    of one thread (slower to start: each worker imports what its work needs, and, as with
    ``spawn``, a script that calls this needs the ``if __name__ == "__main__":`` guard)."""
    if os.name != "posix":
        return "spawn"
    return "fork" if threading.active_count() == 1 else "forkserver"


def default_workers() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def ordered_map(
    work: Callable[[Item], Result],
    items: Iterable[Item],
    *,
    workers: int,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
) -> Iterator[Result]:
    """``work(item)`` for each item, in order. ``work`` and ``initializer`` must be importable
    module-level functions; ``initializer(*initargs)`` runs once per worker (loading a dataset,
    say), and in process before the first item when there is one worker."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    iterator = iter(items)
    first = next(iterator, None)
    second = next(iterator, None)
    if first is None:
        return
    if workers == 1 or second is None:
        if initializer is not None:
            initializer(*initargs)
        yield work(first)
        if second is not None:
            yield work(second)
        for item in iterator:
            yield work(item)
        return
    yield from _pooled(work, [first, second], iterator, workers, initializer, initargs)


def _pooled(
    work: Callable[[Item], Result],
    head: list[Item],
    rest: Iterator[Item],
    workers: int,
    initializer: Callable[..., object] | None,
    initargs: tuple[Any, ...],
) -> Iterator[Result]:
    context = multiprocessing.get_context(start_method())
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=initializer, initargs=initargs
    ) as pool:
        in_flight: deque[Future[Result]] = deque()

        def submit(item: Item) -> None:
            in_flight.append(pool.submit(work, item))

        try:
            for item in head:
                submit(item)
            for item in rest:
                submit(item)
                if len(in_flight) >= workers * 2:
                    yield in_flight.popleft().result()
            while in_flight:
                yield in_flight.popleft().result()
        finally:
            # Stopped early (an error, or the consumer closed us): queued work is not started.
            for future in in_flight:
                future.cancel()
