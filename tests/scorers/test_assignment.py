"""The Hungarian assignment equals a brute-force optimum."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from trailcheck.scorers import min_cost_assignment


def _brute_force(cost: list[list[int]]) -> int:
    rows, columns = len(cost), len(cost[0])
    if rows <= columns:
        return min(
            sum(cost[r][c] for r, c in enumerate(chosen))
            for chosen in itertools.permutations(range(columns), rows)
        )
    return min(
        sum(cost[r][c] for c, r in enumerate(chosen))
        for chosen in itertools.permutations(range(rows), columns)
    )


matrices = st.integers(1, 5).flatmap(
    lambda rows: st.integers(1, 5).flatmap(
        lambda columns: st.lists(
            st.lists(st.integers(-20, 20), min_size=columns, max_size=columns),
            min_size=rows,
            max_size=rows,
        )
    )
)


@given(matrices)
def test_assignment_is_optimal(cost: list[list[int]]) -> None:
    pairs = min_cost_assignment(cost)
    assert len(pairs) == min(len(cost), len(cost[0]))
    assert len({r for r, _ in pairs}) == len(pairs) == len({c for _, c in pairs})
    assert sum(cost[r][c] for r, c in pairs) == _brute_force(cost)


def test_empty_and_known_cases() -> None:
    assert min_cost_assignment([]) == []
    assert min_cost_assignment([[4, 1, 3], [2, 0, 5], [3, 2, 2]]) == [(0, 1), (1, 0), (2, 2)]
    assert min_cost_assignment([[5], [1], [3]]) == [(1, 0)]
