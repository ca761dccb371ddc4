"""Ray, imported with its ``uv run`` integration and its usage reports off unless the
environment says otherwise.

Under ``uv run``, Ray (2.43 and later) starts every worker with ``uv run`` again, in the
worker's own directory, where trailcheck's project is not found: the workers die before their
first task. Locally the workers should use the driver's interpreter, and a cluster's nodes
have trailcheck installed (docs/scale.md); ``RAY_ENABLE_UV_RUN_RUNTIME_ENV=1`` opts back in.
Ray reads the setting when it is first imported, so every module here imports Ray from this one.

Ray also reports usage statistics to its makers by default (``https://usage-stats.ray.io``,
hourly); a command of trailcheck's sends nothing anywhere the user did not point it at, so they
are off unless ``RAY_USAGE_STATS_ENABLED=1`` turns them on.
"""

import os

os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray  # after the setting, which Ray reads when imported

__all__ = ["ray"]
