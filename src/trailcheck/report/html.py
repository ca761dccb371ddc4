"""The single-file HTML report of a run: one page that opens offline and fetches nothing.

Everything is inline: the style sheet, the SVG chart, the data. There is no script at all, so
a browser needs no permission and a report mailed around cannot call home. All text from the
report is escaped (:mod:`trailcheck.report.html_markup`): agent output is untrusted, and a
``<script>`` in a final answer shows as text.
"""

from __future__ import annotations

from typing import Final

from trailcheck.report.html_awkward import awkward_section
from trailcheck.report.html_charts import pass_chart
from trailcheck.report.html_conversation import conversations_section
from trailcheck.report.html_markup import Html, el, join, void
from trailcheck.report.html_parts import (
    comparison_section,
    header,
    manifest_section,
    pass_table,
    summary,
    tools_section,
    trial_grid,
)
from trailcheck.report.html_trials import failures_section
from trailcheck.report.html_user_replay import user_replay_section
from trailcheck.report.outcomes import run_identity
from trailcheck.run.results import RunReport

_STYLE: Final = Html("""
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #59636e; --bg: #fff; --line: #d1d9e0;
  --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --mark: #fff8c5; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117;
  --line: #3d444d; --pass: #3fb950; --fail: #f85149; --warn: #d29922; --mark: #5a4a00; } }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg);
  max-width: 1200px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid var(--line); padding-bottom: .2em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid var(--line); padding: .25em .5em; text-align: left;
  vertical-align: top; }
.numbers td { font-variant-numeric: tabular-nums; }
.meta { color: var(--muted); }
.counts { display: flex; flex-wrap: wrap; gap: .5em; }
.count { border: 1px solid var(--line); border-radius: 6px; padding: .4em .8em; min-width: 6em; }
.count .value { display: block; font-size: 1.6em; font-weight: 600; }
.count.alarm { border-color: var(--fail); } .count.zero { color: var(--muted); }
.status-passed { color: var(--pass); }
.status-failed, .status-crashed, .down { color: var(--fail); }
.status-timeout, .status-infra_error, .status-unscorable, .status-sim_error {
  color: var(--warn);
}
.up { color: var(--pass); }
.glyph { font-size: 1.2em; padding: 0 .15em; }
.legend span { margin-right: 1.2em; }
.partial { border: 3px solid var(--fail); color: var(--fail); font-weight: 700; padding: .8em;
  font-size: 1.2em; }
tr.extra, tr.missing, tr.differs { background: var(--mark); }
tr.attributed, .attribution { outline: 2px solid var(--fail); }
mark { background: var(--mark); color: inherit; outline: 1px solid var(--warn); }
.args span, .args mark { margin-right: .6em; font-family: ui-monospace, monospace; }
pre { white-space: pre-wrap; word-break: break-word; border: 1px solid var(--line); padding: .5em; }
details.trial { border: 1px solid var(--line); margin: .5em 0; padding: .3em .6em; }
.reason { max-width: 48em; }
ol.conversation { list-style: none; padding: 0; margin: .4em 0; }
ol.conversation li { border-left: 3px solid var(--line); padding: .2em .6em; margin: .2em 0; }
ol.conversation li.user { border-left-color: #0969da; }
ol.conversation li.agent { border-left-color: var(--pass); margin-left: 2em; }
ol.conversation .who { font-weight: 600; font-size: .9em; }
ol.conversation .said { white-space: pre-wrap; word-break: break-word; }
svg .axis { stroke: var(--fg); } svg .grid { stroke: var(--line); }
svg text { fill: var(--fg); font-size: 11px; } svg .tick-y { text-anchor: end; }
svg .tick-x { text-anchor: middle; }
svg .series { fill: none; stroke-width: 2; } svg .whisker { stroke-width: 1.5; }
svg .hat { stroke: var(--fail); fill: var(--fail); } svg .series.hat { fill: none; }
svg .at { stroke: #0969da; fill: #0969da; } svg .series.at { fill: none; stroke-dasharray: 5 3; }
""")


def render_html(report: RunReport) -> str:
    """The report as one self-contained HTML document."""
    identity = run_identity(report)
    sections = [
        header(report),
        summary(report),
        el(
            "section",
            el("h2", "pass^k and pass@k by k"),
            pass_table(report.summary),
            pass_chart(report.summary),
            id="pass-k",
        ),
        trial_grid(report),
        awkward_section(report),
        failures_section(report),
        conversations_section(report),
        tools_section(report),
        comparison_section(report.comparison) if report.comparison is not None else None,
        user_replay_section(report),
        manifest_section(report),
    ]
    head = el(
        "head",
        void("meta", charset="utf-8"),
        void("meta", name="viewport", content="width=device-width, initial-scale=1"),
        el("title", f"trailcheck run: {identity.dataset}"),
        el("style", _STYLE),
    )
    return "<!DOCTYPE html>\n" + el("html", head, el("body", join(sections)), lang="en") + "\n"
