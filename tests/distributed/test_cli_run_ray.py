"""``trailcheck run --executor ray``: the files the local executor writes, minus timings; the
options only Ray reads are refused without it, and a missing extra is named in one line."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from tests.distributed.reports import without_timings
from tests.model_run import model_run
from trailcheck.cli import run_cli
from trailcheck.run.results import load_report

pytestmark = pytest.mark.live

SUPPORT = str(Path("src") / "trailcheck" / "demo" / "support" / "support.yaml")
RUN = [
    *("run", SUPPORT, "--agent", "trailcheck.demo.support:v1_agent"),
    *("--env", "trailcheck.demo.support:prompt_only_shop", "-k", "2", "--seed", "3"),
]


def _written(folder: Path) -> tuple[object, object]:
    report = orjson.loads((folder / "report.json").read_bytes())
    executor = report["manifest"].pop("executor", None)
    traces = [
        orjson.loads(line) for line in (folder / "report.traces.jsonl").read_bytes().splitlines()
    ]
    return executor, without_timings([report, traces])


@pytest.mark.usefixtures("local_ray")
def test_run_on_ray_writes_the_report_the_local_executor_writes(tmp_path: Path) -> None:
    assert run_cli([*RUN, "--out", str(tmp_path / "local")]) == 0  # no gate set
    ray_options = ["--executor", "ray", "--num-cpus", "0.5"]
    assert run_cli([*RUN, *ray_options, "--out", str(tmp_path / "ray")]) == 0
    local_executor, local = _written(tmp_path / "local")
    ray_executor, remote = _written(tmp_path / "ray")
    assert remote == local
    assert local_executor is None
    assert isinstance(ray_executor, dict)
    assert (ray_executor["name"], ray_executor["num_cpus"]) == ("ray", 0.5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--address", "auto"], "--address needs --executor ray"),
        (["--num-cpus", "2"], "--num-cpus needs --executor ray"),
        (["--executor", "dask"], "'--executor': Value error, 'dask' is not one of 'local', 'ray'"),
    ],
)
def test_options_only_ray_reads_are_refused_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    assert run_cli([*RUN, *options, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "report.json").exists()


def test_without_the_ray_extra_the_command_says_which_extra_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [name for name in sys.modules if name.startswith("trailcheck.distributed")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ray", None)
    assert run_cli([*RUN, "--executor", "ray", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "trailcheck run --executor ray needs the 'ray' extra (no module 'ray'):"
        " pip install 'trailcheck[ray]', or uv sync --extra ray"
    )
    assert "Traceback" not in err


@pytest.mark.usefixtures("local_ray")
def test_a_model_given_on_the_command_line_answers_the_trials_in_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a loopback server needs none
    code, bodies, _ = model_run(tmp_path, "--executor", "ray", "--rate-limit", "50")
    assert code == 0
    (trial,) = load_report(tmp_path / "out" / "report.json").trials()
    assert (trial.status, [call.name for call in trial.calls]) == ("passed", ["lookup_order"])
    assert [body["model"] for body in bodies] == ["test-model", "test-model"]
