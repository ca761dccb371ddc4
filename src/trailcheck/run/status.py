"""How a trial ended, and which endings count when pass rates are estimated.

A leaf module (it imports nothing of trailcheck) so the runner, the statistics and the readers of
recorded runs share one vocabulary.

=============  ==========================================================  =========
status         meaning                                                     scored
=============  ==========================================================  =========
passed         every scorer passed                                         yes: a success
failed         a scorer failed                                             yes: a failure
timeout        the agent ran past its time limit                           yes: a failure
crashed        the agent raised                                            yes: a failure
unscorable     a scorer raised or lacked its input: no verdict exists      no
infra_error    a model or network service failed after its retries         no
sim_error      the simulated user erred (trailcheck.simulation.audit)      no
=============  ==========================================================  =========

A timeout or a crash is the agent's doing, so it counts against the agent exactly like a failed
score: leaving it out would make an agent that hangs on hard tasks look better. An unscorable,
infra-error or sim-error trial says nothing about the agent, so it is left out of ``n`` (the
scored trials of its task) for pass@k and pass^k; it is still counted and shown, with its own
rate over the attempted trials, so it is never silently dropped from the report.
"""

from __future__ import annotations

from typing import Final, Literal, TypeGuard

__all__ = ["SCORED_STATUSES", "TRIAL_STATUSES", "TrialStatus", "is_scored", "is_trial_status"]

TrialStatus = Literal[
    "passed", "failed", "timeout", "crashed", "unscorable", "infra_error", "sim_error"
]

# In the order reports list them.
TRIAL_STATUSES: Final[tuple[TrialStatus, ...]] = (
    "passed",
    "failed",
    "timeout",
    "crashed",
    "unscorable",
    "infra_error",
    "sim_error",
)

SCORED_STATUSES: Final[frozenset[TrialStatus]] = frozenset(
    {"passed", "failed", "timeout", "crashed"}
)


def is_scored(status: TrialStatus) -> bool:
    """Whether a trial with ``status`` is one of the ``n`` trials its task's pass rates count."""
    return status in SCORED_STATUSES


def is_trial_status(value: object) -> TypeGuard[TrialStatus]:
    """Whether ``value`` is the name of a trial status."""
    return isinstance(value, str) and value in TRIAL_STATUSES
