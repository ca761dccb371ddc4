"""Which run of a Recorder a call belongs to: the one current in the calling context, else the
Recorder's only run.

The runs current in a context live in the :class:`~contextvars.ContextVar` ``CURRENT_RUNS``
beside the current span (``CURRENT_SCOPE``), so each asyncio task and each thread sees the runs
entered in it (and in the context it copied): one Recorder records overlapping runs, one per
task or thread, and each call finds its own. A thread that did not copy the context (a
``ThreadPoolExecutor`` worker, ``loop.run_in_executor``, a bare ``threading.Thread``) sees no
run; there the Recorder's only run is meant when it has exactly one, and with several none can
be told apart. A run entered in one context and left in another cannot restore the context it
was entered in: :meth:`ActiveRuns.remove` says so and the Recorder reports it.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from contextvars import ContextVar

from trailcheck.capture.recording import CURRENT_SCOPE, Scope
from trailcheck.capture.runs import Run
from trailcheck.errors import UsageError

CURRENT_RUNS: ContextVar[tuple[Run, ...]] = ContextVar("trailcheck_capture_runs", default=())


class ActiveRuns:
    """The runs of one Recorder in progress, in the order they began. Thread-safe."""

    def __init__(self, owner: object) -> None:
        # Weak: the owner holds this object, and a cycle would keep every finished Recorder
        # (with its environment and traces) alive until a full garbage collection.
        self._owner = weakref.ref(owner)
        self._lock = threading.Lock()
        self._runs: list[Run] = []

    def __len__(self) -> int:
        with self._lock:
            return len(self._runs)

    def check_none_here(self) -> None:
        """A :class:`UsageError` when the owner already has a run current in this context."""
        if self._current() is not None:
            raise UsageError(
                "this Recorder is already recording a run in this context; a run inside a run"
                " needs a Recorder of its own (runs in other tasks or threads are fine)"
            )

    def add(self, run: Run) -> None:
        """``run`` begins: it is current in this context, its root is where new spans go."""
        run.scope_token = CURRENT_SCOPE.set(Scope(run.recording, run.root.span_id))
        run.runs_token = CURRENT_RUNS.set((*CURRENT_RUNS.get(), run))
        with self._lock:
            self._runs.append(run)

    def remove(self, run: Run) -> bool:
        """``run`` is over: marked ended, no longer active, and this context restored as it
        was before :meth:`add`. False when this is not the context ``run`` began in, which
        is then left as it is (the one it began in still lists it, as ended)."""
        with self._lock:
            if run.ended:  # two exits raced for the same run (a thread without its context)
                raise UsageError("exit: this run has already ended")
            run.ended = True
            self._runs.remove(run)
        assert run.scope_token is not None  # set by add
        assert run.runs_token is not None
        try:
            CURRENT_SCOPE.reset(run.scope_token)
        except ValueError:  # "created in a different Context": the Recorder reports the misuse
            return False
        CURRENT_RUNS.reset(run.runs_token)  # set in the same context, just after the scope
        return True

    def here(self) -> Run | None:
        """The run current in the calling context; where there is none, the only run, if
        there is exactly one."""
        run = self._current()
        if run is not None:
            return run
        with self._lock:
            return self._runs[0] if len(self._runs) == 1 else None

    def require(self, what: str) -> Run:
        """:meth:`here`, or a :class:`UsageError` saying why there is no run to use."""
        run = self.here()
        if run is not None:
            return run
        running = len(self)
        if not running:
            raise UsageError(f"{what}: this Recorder is not recording; enter it first")
        raise UsageError(
            f"{what}: this Recorder is recording {running} runs and none is current here (a"
            " thread that did not copy the run's context?); call it from the run's task or"
            " thread, or pass the context along (asyncio.to_thread, contextvars.copy_context)"
        )

    def fallback_scope(self, tool_name: str) -> Scope | None:
        """Where a tool call goes when no recording is current in its context: under the root
        of the only run; with several runs, nowhere, with a :class:`RuntimeWarning`."""
        with self._lock:
            runs = list(self._runs)
        if len(runs) == 1:
            return Scope(runs[0].recording, runs[0].root.span_id)
        if runs:
            warnings.warn(
                f"tool {tool_name!r} was called where no run is current (a thread that did not"
                f" copy the run's context) while its Recorder records {len(runs)} runs: which"
                " run the call belongs to cannot be told, so it is not recorded; pass the"
                " context along (asyncio.to_thread, contextvars.copy_context().run)",
                RuntimeWarning,
                stacklevel=4,
            )
        return None

    def _current(self) -> Run | None:
        return next(
            (
                run
                for run in reversed(CURRENT_RUNS.get())
                if run.owner is self._owner() and not run.ended
            ),
            None,
        )
