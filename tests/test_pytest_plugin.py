"""The pytest plugin: a dataset's cases as tests, failing with their trials' reasons.

Each test runs pytest in process on a temporary directory (``pytester``) that holds a copy of
the shipped support dataset, so the inner run's rootdir is that directory and none of this
project's settings leak into it. The modules the inner runs use are imported here, so that
pytester's restoring of ``sys.modules`` after each run does not make the next import them again.
"""

from __future__ import annotations

import textwrap
from importlib.resources import files
from typing import get_args

import pytest

from trailcheck.cases import Split
from trailcheck.demo.support.dataset import DATASET_FILE
from trailcheck.pytest_cases import CaseItem
from trailcheck.pytest_plugin import SPLITS

pytest_plugins = ["pytester"]

V1 = "trailcheck.demo.support:v1_agent"
V2 = "trailcheck.demo.support:v2_agent"
PROMPT_ONLY = "trailcheck.demo.support:prompt_only_shop"
REGRESSION = [
    "refund-verified",
    "refund-without-proof",
    "reschedule-friday",
    "lookup-outage-no-loop",
    "refund-failed-no-claim",
    "refund-outside-window",
    "read-only-status",
    "latest-order-paginated",
    "refund-policy-reads-like-error",
]
HOLDOUT = [
    "refund-other-customers-order",
    "multi-turn-refund",
    "rate-limited-lookup",
    "search-empty-result",
    "partial-lookup-no-date",
    "gift-card-refund",
    "latest-order-near-match",
    "stale-delivery-estimate",
]

AGENTS = """
import asyncio

from trailcheck.errors import InfraError
from trailcheck.models import ScriptedModel
from trailcheck.run.tool_agent import ToolAgent


class Broken:
    async def respond(self, message, context):
        raise RuntimeError("the agent broke")


class Offline:
    async def respond(self, message, context):
        raise InfraError("the model endpoint failed after 3 retries")


async def never_replies(messages, tools):
    await asyncio.Event().wait()  # never set: the model hangs until the timeout cancels it


def hanging():
    return ToolAgent(ScriptedModel(never_replies))


def crashing():
    return Broken()


def quiet():
    return ToolAgent(ScriptedModel(["done"]))


def offline():
    return Offline()
"""

TINY = """
name: tiny
cases:
  - id: answers-without-tools
    input: hello
    split: regression
    expected_tools: []
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A directory with the support dataset, a tiny one-case dataset and a few broken agents."""
    shipped = files("trailcheck.demo.support") / DATASET_FILE
    (pytester.path / "support.yaml").write_bytes(shipped.read_bytes())
    pytester.makefile(".yaml", tiny=textwrap.dedent(TINY))
    # Not `agents`: the OpenAI Agents SDK (the openai-agents extra) is a package of that name.
    pytester.makepyfile(tiny_agents=AGENTS)
    pytester.syspathinsert()
    return pytester


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # Without hypothesis's plugin, which would import (and rewrite) hypothesis afresh each run,
    # and without pytest-randomly's (as this project runs): it imports numpy, which pytester then
    # drops from sys.modules, so that the next test to import numpy in this process fails.
    quiet = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:randomly"]
    return pytester.runpytest_inprocess(*quiet, *args)


def test_v1_fails_the_cases_guarding_its_bugs_with_the_scores_reasons(
    project: pytest.Pytester,
) -> None:
    result = _run(
        project,
        *("--trailcheck", "support.yaml", "--trailcheck-agent", V1),
        *("--trailcheck-env", PROMPT_ONLY, "--trailcheck-k", "2"),
    )
    result.assert_outcomes(failed=11, passed=6)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*_ support::reschedule-friday _*",
            "reschedule-friday: 0/2 trials passed (regression; guards wrong_date)",
            "reschedule-friday trial 1 failed: arguments 1/2=0.500;"
            " reschedule_delivery[[]0[]].new_date: expected 2026-06-19, got 2026-06-17*",
            "reschedule-friday trial 1 failed: state 3/4=0.750;*",
            "reschedule-friday trial 2 failed: arguments 1/2=0.500;*",
        ]
    )
    result.stdout.fnmatch_lines(
        ["refund-verified trial 1 failed: trajectory: in_order recall 3/4=0.750;*"]
    )
    result.stdout.fnmatch_lines(["FAILED support::lookup-outage-no-loop - *"])
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*runner.py*")


def test_v2_passes_every_case(project: pytest.Pytester) -> None:
    result = _run(
        project,
        *("--trailcheck", "support.yaml", "--trailcheck-agent", V2),
        *("--trailcheck-env", PROMPT_ONLY, "--trailcheck-k", "2", "-v"),
    )
    result.assert_outcomes(passed=17)
    result.stdout.fnmatch_lines(
        [f"support::{case_id} PASSED*" for case_id in [*REGRESSION, *HOLDOUT]],
        consecutive=True,
    )


def test_the_split_markers_select_cases(project: pytest.Pytester) -> None:
    arguments = ["--trailcheck", "support.yaml", "--trailcheck-agent", V1]
    arguments += ["--trailcheck-env", PROMPT_ONLY, "--collect-only", "-q"]
    holdout = _run(project, *arguments, "-m", "trailcheck_holdout")
    holdout.stdout.fnmatch_lines([f"support::{case_id}" for case_id in HOLDOUT], consecutive=True)
    holdout.stdout.fnmatch_lines(["8/17 tests collected (9 deselected)*"])
    every = _run(project, *arguments, "-m", "trailcheck and not trailcheck_holdout")
    every.stdout.fnmatch_lines([f"support::{case_id}" for case_id in REGRESSION])
    run = _run(
        project,
        *("--trailcheck", "support.yaml", "--trailcheck-agent", V1),
        *("--trailcheck-env", PROMPT_ONLY, "-m", "trailcheck_holdout"),
    )
    run.assert_outcomes(failed=4, passed=4, deselected=9)


def test_without_the_agent_it_is_a_usage_error(project: pytest.Pytester) -> None:
    result = _run(project, "--trailcheck", "support.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --trailcheck needs --trailcheck-agent MODULE:FACTORY, the agent the cases run"]
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--trailcheck", "nope.yaml"], "ERROR: nope.yaml: 1 problem"),
        (
            ["--trailcheck-agent", "tiny_agents:missing"],
            "ERROR: --trailcheck-agent 'tiny_agents:missing'*",
        ),
        (["--trailcheck-k", "0"], "ERROR: k must be at least 1, not 0"),
    ],
)
def test_a_bad_dataset_agent_or_setting_is_one_clear_usage_error(
    project: pytest.Pytester, arguments: list[str], message: str
) -> None:
    defaults = {"--trailcheck": "support.yaml", "--trailcheck-agent": V2}
    given = dict(zip(arguments[::2], arguments[1::2], strict=True))
    options = [part for pair in {**defaults, **given}.items() for part in pair]
    result = _run(project, *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    result.stderr.no_fnmatch_line("*Traceback*")


def test_a_timeout_is_a_failure_with_its_reason(project: pytest.Pytester) -> None:
    result = _run(
        project,
        *("--trailcheck", "tiny.yaml", "--trailcheck-agent", "tiny_agents:hanging"),
        *("--trailcheck-timeout", "0.05", "--trailcheck-k", "2"),
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "answers-without-tools: 0/2 trials passed (regression)",
            "answers-without-tools trial 1 timeout: timed out after 0.05 s",
            "answers-without-tools trial 2 timeout: timed out after 0.05 s",
        ]
    )


def test_a_crash_and_an_infra_error_are_failures_with_their_reasons(
    project: pytest.Pytester,
) -> None:
    arguments = ["--trailcheck", "tiny.yaml", "--trailcheck-agent"]
    crashed = _run(project, *arguments, "tiny_agents:crashing")
    crashed.assert_outcomes(failed=1)
    crashed.stdout.fnmatch_lines(
        ["answers-without-tools trial 1 crashed: RuntimeError: the agent broke"]
    )
    crashed.stdout.no_fnmatch_line("*Traceback*")
    verbose = _run(project, *arguments, "tiny_agents:crashing", "-v")
    verbose.stdout.fnmatch_lines(
        ["--- answers-without-tools trial 1 crashed:", "Traceback *", "*the agent broke"]
    )
    offline = _run(project, *arguments, "tiny_agents:offline")
    offline.assert_outcomes(failed=1)
    offline.stdout.fnmatch_lines(
        ["answers-without-tools trial 1 infra_error: InfraError: the model endpoint failed*"]
    )


def test_a_passing_agent_passes_and_without_the_option_nothing_is_added(
    project: pytest.Pytester,
) -> None:
    passed = _run(project, "--trailcheck", "tiny.yaml", "--trailcheck-agent", "tiny_agents:quiet")
    passed.assert_outcomes(passed=1)
    project.makepyfile(test_own="def test_own():\n    pass\n")
    own = _run(project, "-v")
    own.assert_outcomes(passed=1)
    own.stdout.fnmatch_lines(["test_own.py::test_own PASSED*"])
    own.stdout.no_fnmatch_line("*support::*")


def test_the_plugin_spells_the_splits_of_the_case_model() -> None:
    assert get_args(Split) == SPLITS
    assert issubclass(CaseItem, pytest.Item)
