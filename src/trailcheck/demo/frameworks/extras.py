"""The one-line error for a framework that is not installed: which extra brings it."""

from __future__ import annotations

from trailcheck.errors import UsageError

__all__ = ["missing_extra"]


def missing_extra(what: str, extra: str, error: ImportError) -> UsageError:
    """``what`` needs the optional dependencies of ``extra``; ``error`` says which is missing."""
    missing = f"no module {error.name!r}" if error.name else str(error)
    return UsageError(
        f"{what} needs the '{extra}' extra ({missing}):"
        f" pip install 'trailcheck[{extra}]', or uv sync --extra {extra}"
    )
