"""What each trial asks of the machine that runs it, stated in the dataset file::

    resources:
      num_cpus: 0.25            # every trial of this dataset: an agent that mostly waits
    cases:
      - id: builds-from-source
        resources:
          num_cpus: 2           # this case's trials compile in their sandbox

Only an executor that places trials on a cluster reads them (``trailcheck run --executor ray``);
the local executor runs every trial in one process and has nothing to reserve. A case's own
hint wins over the command line's ``--num-cpus``, which wins over the dataset's; with none of
them a trial asks for one CPU (:func:`trial_num_cpus`).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DEFAULT_NUM_CPUS", "MIN_NUM_CPUS", "TrialResources", "trial_num_cpus"]

DEFAULT_NUM_CPUS = 1.0
# Ray counts resources in ten-thousandths; a smaller share, or an infinite one, it refuses.
MIN_NUM_CPUS = 0.0001


class TrialResources(BaseModel):
    """Resource hints for a trial; an absent hint is the next level's (see the module doc)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    num_cpus: Annotated[float, Field(ge=MIN_NUM_CPUS, allow_inf_nan=False)] | None = None
    """CPUs reserved for each trial; a fraction packs several trials on one core."""


def trial_num_cpus(
    case: TrialResources | None, given: float | None, dataset: TrialResources | None
) -> float:
    """The CPUs a trial asks for: its case's hint, else ``given`` (the command line's), else
    the dataset's, else :data:`DEFAULT_NUM_CPUS`."""
    if case is not None and case.num_cpus is not None:
        return case.num_cpus
    if given is not None:
        return given
    if dataset is not None and dataset.num_cpus is not None:
        return dataset.num_cpus
    return DEFAULT_NUM_CPUS
