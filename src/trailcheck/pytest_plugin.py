"""Run a dataset's cases as pytest tests: one test per case, failing with the trials' reasons.

::

    pytest --trailcheck support.yaml --trailcheck-agent shop.agents:make_agent \\
        --trailcheck-env shop.env:make_shop --trailcheck-k 4 -m trailcheck_regression

Registered under the ``pytest11`` entry-point group, so installing trailcheck installs it.
Without ``--trailcheck`` it adds its options and markers and nothing else: this module imports
only pytest, and the runner is imported (from :mod:`trailcheck.pytest_cases`) only when a
dataset is given, so every other pytest run of a project with trailcheck installed is neither
changed nor slowed by the runner's imports.

With it, each case of the dataset becomes a test ``<dataset name>::<case id>`` beside the
project's own tests, marked ``trailcheck`` and ``trailcheck_<split>`` so that ``-m`` picks a
split; see :mod:`trailcheck.pytest_cases` for what a test runs and how it fails.
"""

from __future__ import annotations

import pytest

__all__ = ["MARKER", "SPLITS"]

MARKER = "trailcheck"
SPLITS = ("regression", "holdout", "calibration", "monitoring")
"""The case splits (:data:`trailcheck.cases.Split`), spelled out to keep the import light."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("trailcheck", "run a trailcheck dataset's cases as tests")
    group.addoption(
        "--trailcheck", metavar="DATASET", help="run the cases of this dataset file as tests"
    )
    group.addoption(
        "--trailcheck-agent",
        metavar="MODULE:FACTORY",
        help="the agent factory the cases run (required with --trailcheck)",
    )
    group.addoption(
        "--trailcheck-env", metavar="MODULE:FACTORY", help="the environment factory (optional)"
    )
    group.addoption(
        "--trailcheck-k", type=int, default=1, metavar="N", help="trials per case (default 1)"
    )
    group.addoption(
        "--trailcheck-timeout",
        type=float,
        metavar="S",
        help="seconds a trial may run before it is a timeout (default: the runner's)",
    )
    group.addoption(
        "--trailcheck-concurrency",
        type=int,
        metavar="N",
        help="trials of a case run at once (default: the runner's)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: a case of the --trailcheck dataset")
    for split in SPLITS:
        config.addinivalue_line("markers", f"{MARKER}_{split}: a {split} case of the dataset")
    if config.getoption("trailcheck") is None:
        return
    from trailcheck.pytest_cases import configure_cases

    configure_cases(config, MARKER)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, items: list[pytest.Item]) -> None:
    """Adds the case tests first, before ``-m`` and ``-k`` deselect, so they select cases too."""
    if session.config.getoption("trailcheck") is None:
        return
    from trailcheck.pytest_cases import collect_cases

    items.extend(collect_cases(session))
