"""One small local Ray for every test here (starting one takes seconds): two CPUs, no
dashboard, on loopback only. The test agents and work (and the waiting they use) travel to the
workers by value, since the workers cannot import the tests package."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# Before Ray is imported (it reads both then), and inherited by the commands the tests start:
# Ray takes 127.0.0.1 as its node's address, as it does where it runs no cluster (macOS), so
# every Ray process listens on loopback only; and no usage report is sent.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
# Ray runs its workers at niceness 15, below everything else on the machine: on a busy one (a CI
# box running other jobs, scripts/test-under-load) they got a few percent of a core, and a
# chunk of grading took minutes. The tests' workers run at the priority of everything else.
os.environ["RAY_worker_niceness"] = "0"  # noqa: SIM112 - the name Ray reads, in its case

ray = pytest.importorskip("trailcheck.distributed.ray_import").ray


@pytest.fixture(scope="session")
def local_ray() -> Iterator[None]:
    from tests import waiting
    from tests.distributed import agents, work

    by_value = (agents, work, waiting)
    for module in by_value:
        ray.cloudpickle.register_pickle_by_value(module)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        configure_logging=False,
        log_to_driver=False,
        object_store_memory=100 << 20,
    )
    try:
        yield
    finally:
        ray.shutdown()
        for module in by_value:
            ray.cloudpickle.unregister_pickle_by_value(module)
