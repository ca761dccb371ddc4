"""A run's files on disk: ``NAME.json`` (the report), ``NAME.traces.jsonl`` (every trial's trace)
and, when asked, ``NAME.html``, each written whole or not at all (a temporary file renamed)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from trailcheck.errors import UsageError
from trailcheck.run.results import RunReport, dump_report


def write_atomically(path: Path, data: bytes) -> None:
    """``data`` into ``path`` through a temporary file beside it, so no reader sees half."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as error:
        raise UsageError(f"{path}: cannot write: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


def write_run(
    report: RunReport,
    trace_lines: list[bytes],
    out_dir: Path,
    name: str,
    *,
    html: Callable[[RunReport], str] | None = None,
) -> list[Path]:
    """Write the run's files into ``out_dir`` (``trace_lines``: trailcheck JSONL lines, as
    :class:`~trailcheck.run.RunResult` keeps them); returns their paths (report first)."""
    report_path = out_dir / f"{name}.json"
    traces_path = out_dir / f"{name}.traces.jsonl"
    write_atomically(report_path, dump_report(report))
    write_atomically(traces_path, b"".join(line + b"\n" for line in trace_lines))
    written = [report_path, traces_path]
    if html is not None:
        html_path = out_dir / f"{name}.html"
        write_atomically(html_path, html(report).encode())
        written.append(html_path)
    return written
