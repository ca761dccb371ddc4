"""Release thresholds a dataset file may state, so every run of it is held to the same bar::

    gate:
      pass_hat_k: 0.9          # overall pass^k at least 0.9 ...
      k: 4                     # ... at k = 4 (default: the run's k)
      regression_must_pass: true   # every trial of every regression case passes
      max_infra_errors: 0
      judge_max_false_pass: 0.1    # a run whose judge answers rubrics needs its calibration
      judge_max_false_fail: 0.2

The command line may set or override each threshold; :mod:`trailcheck.run.gate` checks them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
Count = Annotated[int, Field(ge=0)]


class GateSpec(BaseModel):
    """Thresholds a run must meet; an absent threshold is not checked."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    pass_hat_k: Fraction | None = None
    pass_at_1: Fraction | None = None
    k: Annotated[int, Field(ge=1)] | None = None
    regression_must_pass: bool = False
    max_infra_errors: Count | None = None
    max_unscorable: Count | None = None
    max_sim_errors: Count | None = None
    """Trials whose simulated user erred: not the agent's failures, but too many leave the
    comparison resting on too few conversations."""
    judge_max_false_pass: Fraction | None = None
    """With a judge in the run: the calibrated false-pass rate (human fails it passes) at most."""
    judge_max_false_fail: Fraction | None = None

    def merged(self, override: GateSpec) -> GateSpec:
        """This spec with every threshold ``override`` sets replacing its own."""
        return self.model_copy(update=override.model_dump(exclude_unset=True))

    @property
    def empty(self) -> bool:
        return self == GateSpec()
