"""Renderings for people: terminal views of traces (reports of runs come later)."""

from trailcheck.report.trace_view import render_trace

__all__ = ["render_trace"]
