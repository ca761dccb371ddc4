"""The CI gate: a report against release thresholds, one line per threshold broken.

Every threshold is checked against the report's own figures, and a figure that cannot be
computed breaks its threshold rather than passing it: pass^4 of a run with k = 2 is undefined,
and a gate that asked for it fails saying so. An interrupted (partial) report fails any gate.

A run whose rubrics a judge answered is gated only with evidence about that judge: a
calibration report (:mod:`trailcheck.judge.calibration`) for the same judge version, whose
false-pass and false-fail rates are within ``judge_max_false_pass`` and
``judge_max_false_fail``. Without one the gate fails saying the judge is uncalibrated.
"""

from __future__ import annotations

from dataclasses import dataclass

from trailcheck.cases import GateSpec
from trailcheck.judge.calibration import CalibrationReport, calibration_gate
from trailcheck.run.results import RunReport


@dataclass(frozen=True, slots=True)
class GateResult:
    """Whether the report met the gate; each threshold checked and each one broken, as lines."""

    checked: tuple[str, ...]
    broken: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.broken


def _at_least(label: str, value: float | None, minimum: float, why_undefined: str) -> str | None:
    if value is None:
        return f"{label} >= {minimum:g}: undefined ({why_undefined})"
    if value < minimum:
        return f"{label} >= {minimum:g}: got {value:.3f}"
    return None


def check_gate(
    report: RunReport, gate: GateSpec, calibration: CalibrationReport | None = None
) -> GateResult:
    """``report`` against ``gate`` (and the judge's ``calibration``); see the module docstring."""
    summary = report.summary
    checked: list[str] = []
    broken: list[str | None] = []
    if report.partial:
        checked.append("complete run")
        broken.append("complete run: the run was interrupted; its report is partial")
    if gate.pass_hat_k is not None:
        k = gate.k or summary.k
        checked.append(f"pass^{k} >= {gate.pass_hat_k:g}")
        why = f"no case has {k} scored trials; run with -k {k} or more"
        broken.append(_at_least(f"pass^{k}", summary.pass_hat_k.get(k), gate.pass_hat_k, why))
    if gate.pass_at_1 is not None:
        checked.append(f"pass@1 >= {gate.pass_at_1:g}")
        broken.append(
            _at_least("pass@1", summary.pass_at_1, gate.pass_at_1, "no case has a scored trial")
        )
    if gate.regression_must_pass:
        checked.append("every regression trial passes")
        broken.append(_regressions(report))
    for label, limit, count in (
        ("infra errors", gate.max_infra_errors, summary.trials.infra_error),
        ("unscorable trials", gate.max_unscorable, summary.trials.unscorable),
        ("simulated-user errors", gate.max_sim_errors, summary.trials.sim_error),
    ):
        if limit is not None:
            checked.append(f"{label} <= {limit}")
            broken.append(f"{label} <= {limit}: got {count}" if count > limit else None)
    judge = report.manifest.get("judge")
    if isinstance(judge, dict) and not gate.empty:
        checked.append("judge calibrated")
        broken.extend(_judge_lines(str(judge.get("version")), gate, calibration))
    return GateResult(tuple(checked), tuple(line for line in broken if line is not None))


def _judge_lines(version: str, gate: GateSpec, calibration: CalibrationReport | None) -> list[str]:
    if calibration is None:
        return [
            f"judge calibrated: judge {version} is uncalibrated; a gate over judged rubrics"
            " needs its calibration report (trailcheck judge calibrate --out, then"
            " --judge-calibration)"
        ]
    if gate.judge_max_false_pass is None or gate.judge_max_false_fail is None:
        return [
            "judge calibrated: set judge_max_false_pass and judge_max_false_fail, the error"
            " rates the judge's calibration must stay within"
        ]
    lines = calibration_gate(
        calibration,
        gate.judge_max_false_pass,
        gate.judge_max_false_fail,
        judge_version=version,
    )
    return [f"judge calibrated: {line}" for line in lines]


def _regressions(report: RunReport) -> str | None:
    cases = [case for case in report.cases if case.split == "regression"]
    if not cases:
        return "every regression trial passes: the run has no regression case"
    failing = [
        f"{case.id} ({sum(t.status != 'passed' for t in case.trials)}/{len(case.trials)})"
        for case in cases
        if not case.trials or any(trial.status != "passed" for trial in case.trials)
    ]
    if not failing:
        return None
    return f"every regression trial passes: {len(failing)} case(s) did not: {', '.join(failing)}"
