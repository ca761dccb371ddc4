"""The optional parts of trailcheck and the one-line error for a command whose extra is missing.

``pip install trailcheck`` brings the trace model, the importers, the scorers, the runner and
the CLI; a command that needs more names the extra to install::

    with needs_extra("serve", "trailcheck serve"):
        from trailcheck.commands.serve_impl import serve

    trailcheck serve needs the 'serve' extra (no module 'fastapi'): pip install
    'trailcheck[serve]', or uv sync --extra serve

(one line; a :class:`~trailcheck.errors.UsageError`, so exit 2 without a traceback). Only a
missing package of that extra is translated: any other ``ModuleNotFoundError`` is a bug and
propagates as one. Where the extra's packages are imported only later, deep in the work (as
clustering does), :func:`require_extra` refuses up front, before the command opens a store.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib.util import find_spec
from typing import Final

from trailcheck.errors import UsageError

__all__ = ["EXTRAS", "missing_extra", "needs_extra", "require_extra"]

EXTRAS: Final[dict[str, tuple[str, ...]]] = {
    # The OTLP endpoints of ``trailcheck serve`` (and ``trailcheck pending``, which reads what
    # they hold): HTTP through FastAPI on uvicorn, gRPC through grpcio.
    "serve": ("fastapi", "starlette", "uvicorn", "grpc"),
    # Real models behind an OpenAI-compatible API: ``--model``, ``--judge-model``.
    "openai": ("openai",),
    # PostgreSQL stores (``--db postgresql://...``); SQLite needs nothing extra.
    "postgres": ("psycopg",),
    # ``--executor ray``: trials and chunks as Ray tasks.
    "ray": ("ray",),
    # Traces in Parquet files: pyarrow reads them.
    "parquet": ("pyarrow",),
    # The improvement loop's clustering (``trailcheck clusters``, the demo's traffic loop):
    # TF-IDF vectors, connected components.
    "loop": ("sklearn", "scipy", "numpy"),
    # The routing gate (:mod:`trailcheck.route`, ``trailcheck route eval``): the router and the
    # lexical scorers; scikit-learn brings scipy.
    "route": ("sklearn", "scipy", "numpy"),
}
"""Each extra of the package and the top-level modules it brings that trailcheck imports."""


def missing_extra(what: str, extra: str, error: ImportError) -> UsageError:
    """``what`` needs the optional dependencies of ``extra``; ``error`` says which is missing."""
    missing = f"no module {error.name!r}" if error.name else str(error)
    return UsageError(
        f"{what} needs the '{extra}' extra ({missing}):"
        f" pip install 'trailcheck[{extra}]', or uv sync --extra {extra}"
    )


@contextmanager
def needs_extra(extra: str, what: str) -> Iterator[None]:
    """Within the block, an import that fails for a module of ``extra`` (see :data:`EXTRAS`)
    raises :func:`missing_extra`'s error instead; other errors pass through unchanged."""
    modules = EXTRAS[extra]
    try:
        yield
    except ModuleNotFoundError as error:
        top = (error.name or "").partition(".")[0]
        if top not in modules:
            raise
        raise missing_extra(what, extra, error) from None


def require_extra(extra: str, what: str) -> None:
    """Raise :func:`missing_extra`'s error now when a module of ``extra`` is not installed.

    Finds each module without importing it; a module that is installed but fails to import is
    a bug, and fails later as one."""
    with needs_extra(extra, what):
        for module in EXTRAS[extra]:
            if find_spec(module) is None:
                raise ModuleNotFoundError(f"No module named {module!r}", name=module)
