"""Resource hints on Ray: each trial asks for its case's ``num_cpus``, else the executor's (the
command line's), else the dataset's, else one CPU; a trial that no node could hold is refused
before the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.distributed.agents import Counter, MessageAgent
from trailcheck.cases import Case, Dataset, TrialResources, dump_dataset
from trailcheck.cli import run_cli
from trailcheck.distributed import RayTrialExecutor
from trailcheck.errors import UsageError
from trailcheck.run.plan import RunOptions
from trailcheck.run.runner import run
from trailcheck.trace import Trace

pytestmark = [pytest.mark.usefixtures("local_ray"), pytest.mark.live]

AGENT = ["--agent", "tests.distributed.agents:MessageAgent"]
ENV = ["--env", "tests.distributed.agents:Counter"]


def _cases(**own: float | None) -> list[Case]:
    """A case per name; those given a number ask for that many CPUs themselves."""
    return [
        Case(
            id=name,
            input=f"cpus of {name}",
            expected_tools=["lookup"],
            resources=None if cpus is None else TrialResources(num_cpus=cpus),
        )
        for name, cpus in own.items()
    ]


def _said(trace_lines: list[bytes]) -> dict[str, str]:
    """What each case's agent said Ray gave its task."""
    traces = [Trace.model_validate_json(line) for line in trace_lines]
    return {str(trace.metadata["case_id"]): trace.final_text for trace in traces}


def test_a_cases_hint_wins_then_the_executors_then_the_datasets() -> None:
    dataset = Dataset(
        name="cpus",
        resources=TrialResources(num_cpus=0.5),
        cases=_cases(own=2.0, default=None),
    )
    with_dataset_default = run(dataset, MessageAgent, Counter, executor=RayTrialExecutor())
    assert _said(with_dataset_default.trace_lines) == {"own": "cpus 2.0", "default": "cpus 0.5"}
    executor = RayTrialExecutor(num_cpus=0.25)
    given = run(dataset, MessageAgent, Counter, options=RunOptions(k=2), executor=executor)
    assert _said(given.trace_lines) == {"own": "cpus 2.0", "default": "cpus 0.25"}
    assert [trial.attempt for trial in given.report.trials()] == [1, 2, 1, 2]
    assert given.report.manifest["executor"]["num_cpus"] == {"default": 0.25, "own": 2.0}  # type: ignore[index,call-overload]


def test_without_any_hint_a_trial_asks_for_one_cpu() -> None:
    result = run(
        Dataset(name="cpus", cases=_cases(plain=None)),
        MessageAgent,
        Counter,
        executor=RayTrialExecutor(),
    )
    assert _said(result.trace_lines) == {"plain": "cpus 1.0"}
    assert result.report.manifest["executor"]["num_cpus"] == 1.0  # type: ignore[index,call-overload]


def test_a_case_asking_more_cpus_than_any_node_has_is_refused() -> None:
    executor = RayTrialExecutor()
    executor.refuse_unplaceable(_cases(fits=2.0), None)
    with pytest.raises(UsageError, match="case 'huge': each trial asks for 4 CPUs and the largest"):
        executor.refuse_unplaceable(_cases(fits=2.0, huge=4.0), None)
    with pytest.raises(UsageError, match="case 'fits': each trial asks for 3 CPUs"):
        RayTrialExecutor(num_cpus=3).refuse_unplaceable(_cases(fits=None), None)


def test_the_dataset_files_hints_reach_the_trials_and_the_command_line_overrides_them(
    tmp_path: Path,
) -> None:
    dataset = Dataset(
        name="cpus",
        resources=TrialResources(num_cpus=0.5),
        cases=_cases(own=2.0, default=None),
    )
    path = tmp_path / "cpus.yaml"
    dump_dataset(dataset, path)
    assert "num_cpus: 0.5" in path.read_text()
    for options, default in (([], "cpus 0.5"), (["--num-cpus", "0.25"], "cpus 0.25")):
        out = tmp_path / default
        argv = ["run", str(path), *AGENT, *ENV, "--executor", "ray", *options, "--out", str(out)]
        assert run_cli(argv) == 0
        lines = (out / "report.traces.jsonl").read_bytes().splitlines()
        assert _said(lines) == {"own": "cpus 2.0", "default": default}


def test_the_command_refuses_a_case_its_local_ray_cannot_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "huge.yaml"
    dump_dataset(Dataset(name="huge", cases=_cases(huge=64.0)), path)
    argv = ["run", str(path), *AGENT, *ENV, "--executor", "ray", "--out", str(tmp_path / "out")]
    assert run_cli(argv) == 2
    assert "case 'huge': each trial asks for 64 CPUs" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
