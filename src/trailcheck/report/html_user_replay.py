"""The HTML report's replayed users (``--replay-user``): which pairs met the baseline's user.

A run that replayed a baseline's simulated turns (common random numbers) says how many pairs
of trials it had with the baseline, how many met the very same user (``identical``), how many
``diverged``, and, per trial, how many turns were replayed and at which user turn the first
fresh one came. The counts are in ``data-testid="replay-pairs"``, ``"replay-identical"`` and
``"replay-diverged"``; each trial's row is ``data-testid="replay-row"``.
"""

from __future__ import annotations

from trailcheck.report.html_markup import Html, el, join
from trailcheck.run.results import RunReport

__all__ = ["user_replay_section"]


def user_replay_section(report: RunReport) -> Html | None:
    """The replay's counts and each pair's divergence; ``None`` when the run replayed none."""
    replay = report.user_replay
    if replay is None:
        return None
    rows = [
        el(
            "tr",
            el("td", c.case_id),
            el("td", c.attempt),
            el("td", c.replayed),
            el("td", c.generated),
            el("td", "never" if c.diverged_at is None else f"user turn {c.diverged_at}"),
            data_testid="replay-row",
            data_case=c.case_id,
            data_diverged_at=c.diverged_at,
        )
        for c in replay.conversations
    ]
    head = el(
        "tr",
        join(el("th", h) for h in ("case", "trial", "replayed", "fresh", "diverged at")),
    )
    return el(
        "section",
        el("h2", "Replayed users"),
        el(
            "p",
            el("span", replay.pairs, data_testid="replay-pairs"),
            " pairs with the baseline: ",
            el("span", replay.identical, data_testid="replay-identical"),
            " met the very same user, ",
            el("span", replay.diverged, data_testid="replay-diverged"),
            " diverged (the agents said something different, and the simulator spoke afresh"
            " from there).",
        ),
        el("table", el("thead", head), el("tbody", join(rows)), class_="numbers"),
        id="user-replay",
    )
