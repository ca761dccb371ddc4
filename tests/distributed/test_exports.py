"""The public surface of trailcheck.distributed is exactly this list."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.live

distributed = pytest.importorskip("trailcheck.distributed")


def test_exported_names_are_pinned() -> None:
    assert distributed.__all__ == [
        "RayRateLimiter",
        "RayTrialExecutor",
        "cluster_workers",
        "detect_pages_on_ray",
        "grade_files_on_ray",
        "ray_ordered_map",
        "ray_session",
    ]
    for name in distributed.__all__:
        assert getattr(distributed, name).__module__.startswith("trailcheck.distributed.")
