"""The terminal summary of a run, read as plain text (as CI logs show it)."""

from __future__ import annotations

from rich.console import Console

from trailcheck.report.outcomes import GLYPHS, NOT_SCORED, group_failures
from trailcheck.report.run_view import render_comparison, render_run
from trailcheck.run.results import RunReport


def plain(renderable: object, width: int = 120) -> str:
    console = Console(width=width, record=True, color_system=None, force_terminal=False)
    console.print(renderable)
    return console.export_text()


def test_header_counts_every_status(v1_report: RunReport) -> None:
    text = plain(render_run(v1_report))
    assert "run of support@" in text
    assert "model support-v1" in text
    assert "k = 4" in text
    trials = v1_report.summary.trials
    assert f"{trials.attempted} trials attempted" in text
    for status in ("passed", "failed", "timeout", "crashed", "unscorable", "infra_error"):
        assert f"{getattr(trials, status)} {status}" in text
    assert "PARTIAL" not in text


def test_pass_table_shows_each_k_with_labelled_intervals(v1_report: RunReport) -> None:
    text = plain(render_run(v1_report))
    summary = v1_report.summary
    hat_4 = summary.pass_hat_k[4]
    assert hat_4 is not None
    interval = summary.pass_hat_k_interval[4]
    assert interval.low is not None
    assert interval.high is not None
    row_4 = next(line for line in text.splitlines() if line.startswith("│ 4 │"))
    assert f"{hat_4:.3f}" in row_4
    assert f"[{interval.low:.3f}, {interval.high:.3f}]" in row_4
    assert "intervals: bootstrap-task 95%, 2000 resamples, seed 0" in text
    assert "wilson 95%; trials taken as independent" in text


def test_grid_has_a_glyph_per_trial_and_a_legend(v1_report: RunReport) -> None:
    text = plain(render_run(v1_report), width=300)
    line = next(line for line in text.splitlines() if "reschedule-friday" in line)
    assert line.count(GLYPHS["failed"]) == 4
    assert "0/4 = 0.000" in line
    assert "regression" in line
    assert "legend:" in text
    assert "infra_error (model or network failed; not scored)" in text


def test_failures_grouped_by_mode_with_reason_lines(v1_report: RunReport) -> None:
    text = plain(render_run(v1_report), width=200)
    assert "wrong_date: 4 trial(s)" in text
    assert "reschedule-friday  trial(s) 1, 2, 3, 4: failed" in text
    assert "reschedule_delivery[0].new_date: expected 2026-06-19, got 2026-06-17" in text
    assert "retry_loop: 4 trial(s)" in text
    groups = {group.mode: group for group in group_failures(v1_report)}
    failed = v1_report.summary.trials.failed
    # Every failing trial is under at least one mode, and none under a mode its case lacks.
    cases_by_id = {case.id: case for case in v1_report.cases}
    listed = {(e.case_id, a) for g in groups.values() for e in g.entries for a in e.attempts}
    assert len(listed) == failed
    for mode, group in groups.items():
        assert all(mode in cases_by_id[e.case_id].failure_modes for e in group.entries)


def test_a_run_without_failures_says_so(v2_report: RunReport) -> None:
    assert "no failures: every attempted trial passed" in plain(render_run(v2_report))


def test_comparison_lists_changed_cases_and_the_statement(v2_report: RunReport) -> None:
    comparison = v2_report.comparison
    assert comparison is not None
    text = plain(render_comparison(comparison), width=200)
    changed = [d for d in comparison.deltas if d.delta != 0]
    assert changed
    for delta in changed:
        assert delta.task_id in text
    unchanged = next(d for d in comparison.deltas if d.delta == 0)
    assert unchanged.task_id not in text
    assert f"{comparison.mcnemar.improved} improved" in text
    assert f"p = {comparison.mcnemar.p_value:.4g}" in text
    assert "bootstrap-paired-task 95%" in text
    assert comparison.statement in text
    assert comparison.statement in plain(render_run(v2_report), width=200)


def test_partial_run_is_flagged_top_and_bottom(mixed_report: RunReport) -> None:
    text = plain(render_run(mixed_report), width=160)
    assert text.count("PARTIAL RUN") == 2
    assert "2 trial(s) did not finish" in text
    assert text.strip().splitlines()[-1].startswith("╰")


def test_infra_errors_crashes_and_unscored_trials_are_shown(mixed_report: RunReport) -> None:
    text = plain(render_run(mixed_report), width=200)
    for count in ("1 infra_error", "1 unscorable", "1 crashed", "1 timeout"):
        assert count in text
    assert "infra error rate 1/6" in text
    line = next(line for line in text.splitlines() if "markup" in line and "holdout" in line)
    for status in ("crashed", "unscorable", "infra_error"):
        assert GLYPHS[status] in line
    assert NOT_SCORED in text
    assert "crashed: KeyError: 'order'" in text
    assert "judge raised ValueError: bad verdict" in text
    assert "infra_error: APIConnectionError: refused" in text
    assert "timeout: timed out after 5 s" in text
    assert "(no failure mode declared)" in text


def test_report_text_is_not_read_as_markup(mixed_report: RunReport) -> None:
    text = plain(render_run(mixed_report), width=200)
    assert "[bold]markup[/bold]" in text


def test_comparison_shows_each_tools_success_in_both_runs(v2_report: RunReport) -> None:
    comparison = v2_report.comparison
    assert comparison is not None
    assert comparison.tools
    text = plain(render_comparison(comparison), width=200)
    assert "tools against the baseline" in text
    for tool in comparison.tools:
        line = next(line for line in text.splitlines() if f" {tool.tool} " in line)
        if tool.candidate.success_rate is not None:
            assert f"{tool.candidate.success_rate:.3f} of {tool.candidate.calls}" in line
