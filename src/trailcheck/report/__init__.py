"""Renderings for people: terminal views of traces and runs, the single-file HTML report, and a
run's files on disk."""

from trailcheck.report.files import write_run
from trailcheck.report.html import render_html
from trailcheck.report.progress import ProgressObserver
from trailcheck.report.run_view import render_comparison, render_run
from trailcheck.report.trace_view import render_trace

__all__ = [
    "ProgressObserver",
    "render_comparison",
    "render_html",
    "render_run",
    "render_trace",
    "write_run",
]
