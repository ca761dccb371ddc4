"""Each trial that did not pass, in the HTML report: its conversation when a simulated user
spoke (:mod:`trailcheck.report.html_conversation`), its calls beside the expected ones, with
the differences marked, then its scores with their reasons, its error and its final output.

What counts as a difference is :mod:`trailcheck.report.trajectory_diff`'s: an in-order tool
alignment, and the argument fields the arguments scorer found mismatched. Marked rows and
fields carry ``data-mark`` (``extra``, ``missing``, ``differs``, ``argument``) so a test can
find them. A failed trial's attribution (docs/attribution.md) is said above its calls, and the
call it names is highlighted (``data-attribution``: its category), as is the call where the
failure became visible (``data-symptom``).
"""

from __future__ import annotations

import orjson
from pydantic import JsonValue

from trailcheck.report.html_conversation import conversation_block
from trailcheck.report.html_markup import Html, el, join
from trailcheck.report.outcomes import GLYPHS, group_failures
from trailcheck.report.trajectory_diff import Step, TrialDiff, diff_trial, expected_value_text
from trailcheck.run.results import CallSummary, CaseResult, RunReport, TrialResult
from trailcheck.scorers import Attribution

_KIND_NOTE = {
    "same": "",
    "extra": "not in the expected sequence",
    "missing": "expected, not called",
    "differs": "a different tool than expected here",
}


def _value(value: JsonValue) -> str:
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def _call_cell(call: CallSummary, missed: dict[str, str]) -> Html:
    fields = []
    for key, value in call.arguments.items():
        text = f"{key}={_value(value)}"
        if key in missed:
            note = el("small", f" ({missed[key]})", class_="meta")
            fields.append(el("mark", text, note, title=missed[key], data_mark="argument"))
        else:
            fields.append(el("span", text))
    for key, problem in missed.items():
        if key not in call.arguments:
            note = el("small", f" ({problem})", class_="meta")
            fields.append(el("mark", f"{key} absent", note, title=problem, data_mark="argument"))
    status = None if call.succeeded else el("span", f"error: {call.error}", class_="down")
    duration = None if call.duration_ms is None else f"{call.duration_ms:.2f} ms"
    return join(
        [
            el("code", call.name),
            el("div", join(fields, " "), class_="args"),
            status,
            el("span", duration, class_="meta") if duration else None,
        ]
    )


def _expected_cell(step: Step, case: CaseResult, diff: TrialDiff) -> Html:
    if step.expected is None:
        return el("span", "—", class_="meta")
    fields = []
    for position, invocation in enumerate(case.expected_arguments):
        paired = (
            diff.marks.paired_call[position] if position < len(diff.marks.paired_call) else None
        )
        if invocation.get("tool") != step.expected or paired != step.call_index:
            continue
        arguments = invocation.get("arguments")
        if isinstance(arguments, dict):
            fields += [el("span", f"{k}={expected_value_text(v)}") for k, v in arguments.items()]
    return join([el("code", step.expected), el("div", join(fields, " "), class_="args")])


def _unpaired_expectations(case: CaseResult, diff: TrialDiff) -> Html | None:
    lines = [
        el(
            "li",
            f"{item.get('tool')}: no call to pair with (expected {_value(item.get('arguments'))})",
        )
        for position, item in enumerate(case.expected_arguments)
        if position < len(diff.marks.paired_call) and diff.marks.paired_call[position] is None
    ]
    return el("ul", join(lines), data_mark="unpaired") if lines else None


def _row_marks(call: CallSummary | None, found: Attribution | None) -> tuple[str, dict[str, str]]:
    """The attribution's note and attributes on the row of ``call``: where the failure began
    (``data-attribution``), or where it showed (``data-symptom``)."""
    if call is None or found is None:
        return "", {}
    if call.span_id == found.span_id:
        return f"began here: {found.category}", {"data_attribution": found.category}
    if call.span_id == found.symptom_span_id:
        return "the failure showed here", {"data_symptom": "true"}
    return "", {}


def trajectory(case: CaseResult, trial: TrialResult) -> Html:
    """The expected tools (with expected arguments) beside the calls made, marked."""
    diff = diff_trial(case, trial)
    rows = []
    for step in diff.steps:
        missed = diff.marks.by_call.get(step.call_index, {}) if step.call_index is not None else {}
        mark = step.kind if step.kind != "same" else None
        found, marks = _row_marks(step.call, trial.attribution)
        note = "; ".join(part for part in (_KIND_NOTE[step.kind], found) if part)
        attributed = " attributed" if "data_attribution" in marks else ""
        rows.append(
            el(
                "tr",
                el("td", _expected_cell(step, case, diff)),
                el(
                    "td",
                    _call_cell(step.call, missed) if step.call else el("span", "—", class_="meta"),
                ),
                el("td", note, class_="meta"),
                class_=f"step {step.kind}{attributed}",
                data_mark=mark,
                **marks,
            )
        )
    note = (
        "expected tools, in order"
        if case.expected_tools is not None
        else "the case expects no particular tools"
    )
    if not diff.invocations_read:
        note += "; expected arguments could not be read, so none are marked"
    head = el("tr", el("th", "expected"), el("th", "called"), el("th", ""))
    table = (
        el("table", el("thead", head), el("tbody", join(rows)), class_="trajectory")
        if rows
        else el("p", "no tool was called and none was expected", class_="meta")
    )
    return join([el("p", note, class_="meta"), table, _unpaired_expectations(case, diff)])


def _scores(trial: TrialResult) -> Html:
    rows = [
        el(
            "tr",
            el("td", score.scorer),
            el("td", "✓" if score.passed else "✗", class_="up" if score.passed else "down"),
            el("td", f"{score.value:.3f} / {score.threshold:.3f}"),
            el("td", score.reason, class_="reason"),
        )
        for score in trial.scores
    ]
    rows += [
        el(
            "tr",
            el("td", f.scorer),
            el("td", "raised", class_="down"),
            el("td", ""),
            el("td", f"{f.error_type}: {f.message}", class_="reason"),
        )
        for f in trial.scorer_failures
    ]
    if not rows:
        return el("p", "no scores recorded", class_="meta")
    head = el("tr", join(el("th", h) for h in ("scorer", "", "value / threshold", "reason")))
    return el("table", el("thead", head), el("tbody", join(rows)), class_="scores")


def attribution_note(found: Attribution | None) -> Html | None:
    """Where a failed trial began going wrong: the step, its span's name, the category and the
    evidence, and where the failure showed when that is another span."""
    if found is None:
        return None
    shown = f" (it showed at span {found.symptom_span_id})" if found.symptom_span_id else ""
    return el(
        "p",
        el("strong", f"began at step {found.step}: {found.name}"),
        f" — {found.category}: {found.evidence}{shown}",
        class_="attribution",
        data_testid="attribution",
        data_category=found.category,
        data_span=found.span_id,
    )


def trial_details(case: CaseResult, trial: TrialResult, *, open_: bool) -> Html:
    """One trial that did not pass, folded under its status line."""
    error = None
    if trial.error is not None:
        error = el(
            "div",
            el("p", f"{trial.error.type}: {trial.error.message}", class_="down"),
            el("details", el("summary", "stack"), el("pre", trial.error.traceback)),
        )
    return el(
        "details",
        el(
            "summary",
            f"{GLYPHS[trial.status]} trial {trial.attempt}: {trial.status} — {trial.reason}",
            class_=f"status-{trial.status}",
        ),
        attribution_note(trial.attribution),
        conversation_block(trial),
        trajectory(case, trial),
        _scores(trial),
        error,
        el("p", "final output", class_="meta"),
        el(
            "pre",
            trial.final_output if trial.final_output is not None else "(none)",
            data_testid="final-output",
        ),
        open=open_,
        class_="trial",
        data_status=trial.status,
        data_testid="failed-trial",
        data_case=case.id,
        data_attempt=trial.attempt,
    )


def failures_section(report: RunReport) -> Html:
    """Every trial that did not pass, by case, after a line per failure mode."""
    groups = group_failures(report)
    modes = [
        el(
            "li",
            f"{g.mode}: {g.trials} trial(s) in ",
            ", ".join(dict.fromkeys(e.case_id for e in g.entries)),
        )
        for g in groups
    ]
    cases = []
    for case in report.cases:
        failing = [t for t in case.trials if t.status != "passed"]
        if not failing:
            continue
        trials = [trial_details(case, t, open_=i == 0) for i, t in enumerate(failing)]
        heading = el(
            "h3",
            case.id,
            " ",
            el(
                "span",
                f"{case.split} · guards "
                + (", ".join(case.failure_modes) or "no declared failure mode"),
                class_="meta",
            ),
        )
        cases.append(el("article", heading, join(trials), id=f"case-{case.id}"))
    if not cases:
        return el(
            "section", el("h2", "Failures"), el("p", "every attempted trial passed"), id="failures"
        )
    return el("section", el("h2", "Failures"), el("ul", join(modes)), join(cases), id="failures")
