"""trailcheck on Ray (the ``ray`` extra): trials as Ray tasks (:mod:`.trials`), trailcheck
JSONL (or Parquet) files graded in chunks as Ray tasks (:mod:`.grading`), the store's pages run
through the detection rules as Ray tasks (:mod:`.detection`), any bulk work's chunks as Ray tasks
(:func:`ray_ordered_map`), within a :func:`ray_session`; a run's rate limit shared by every
worker (:mod:`.rate_limit`).

Importing this package imports Ray; the CLI imports it only for ``--executor ray``.
"""

from trailcheck.distributed.detection import detect_pages_on_ray
from trailcheck.distributed.grading import grade_files_on_ray
from trailcheck.distributed.ordered import ray_ordered_map
from trailcheck.distributed.rate_limit import RayRateLimiter
from trailcheck.distributed.session import cluster_workers, ray_session
from trailcheck.distributed.trials import RayTrialExecutor

__all__ = [
    "RayRateLimiter",
    "RayTrialExecutor",
    "cluster_workers",
    "detect_pages_on_ray",
    "grade_files_on_ray",
    "ray_ordered_map",
    "ray_session",
]
