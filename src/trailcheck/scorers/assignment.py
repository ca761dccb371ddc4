"""A minimum-cost assignment (the Hungarian method), exact on integer costs.

Shared by the scorers that pair expectations with what happened (argument expectations with
calls, containment of list items), so that pairing is optimal rather than first fit. It runs in
O(r²·c) for r rows and c columns, with r ≤ c after a transpose.
"""

from __future__ import annotations

from collections.abc import Sequence

_INF = float("inf")


def min_cost_assignment(cost: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Pairs ``(row, column)``, each row and column used at most once, ``min(rows, columns)``
    pairs in all, with the least total cost. Sorted by row."""
    rows = len(cost)
    columns = len(cost[0]) if rows else 0
    if rows == 0 or columns == 0:
        return []
    if rows > columns:
        transposed = [[cost[r][c] for r in range(rows)] for c in range(columns)]
        return sorted((r, c) for c, r in _assign_rows(transposed))
    return _assign_rows(cost)


def _assign_rows(cost: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Every row to a distinct column (rows ≤ columns), by shortest augmenting paths with
    potentials. Index 0 is the virtual start column; rows and columns count from 1 inside."""
    columns = len(cost[0])
    row_potential = [0.0] * (len(cost) + 1)
    column_potential = [0.0] * (columns + 1)
    row_of = [0] * (columns + 1)  # row_of[j]: the row assigned to column j (0: none)
    for row in range(1, len(cost) + 1):
        _augment(cost, row, row_potential, column_potential, row_of)
    return sorted((row_of[j] - 1, j - 1) for j in range(1, columns + 1) if row_of[j])


def _augment(
    cost: Sequence[Sequence[int]],
    row: int,
    row_potential: list[float],
    column_potential: list[float],
    row_of: list[int],
) -> None:
    """Add ``row`` to the assignment along a shortest augmenting path (Dijkstra on reduced
    costs, which the potentials keep non-negative)."""
    columns = len(row_of) - 1
    row_of[0] = row
    slack = [_INF] * (columns + 1)
    previous = [0] * (columns + 1)
    used = [False] * (columns + 1)
    current = 0
    while row_of[current] != 0:
        used[current] = True
        i = row_of[current]
        delta, nearest = _INF, 0
        for j in range(1, columns + 1):
            if used[j]:
                continue
            reduced = cost[i - 1][j - 1] - row_potential[i] - column_potential[j]
            if reduced < slack[j]:
                slack[j], previous[j] = reduced, current
            if slack[j] < delta:
                delta, nearest = slack[j], j
        for j in range(columns + 1):
            if used[j]:
                row_potential[row_of[j]] += delta
                column_potential[j] -= delta
            else:
                slack[j] -= delta
        current = nearest
    # Walk the path back, shifting each column's row one step along it.
    while current != 0:
        before = previous[current]
        row_of[current] = row_of[before]
        current = before


def pair_most_matched(matched: Sequence[Sequence[int]]) -> dict[int, int]:
    """Row → column, maximising the total of ``matched``; order breaks ties (least squared
    distance between row and column index)."""
    if not matched or not matched[0]:
        return {}
    rows, columns = len(matched), len(matched[0])
    # Order only breaks ties: its whole possible total weighs less than one matched leaf.
    scale = min(rows, columns) * max(rows, columns) ** 2 + 1
    cost = [[(i - j) ** 2 - scale * matched[i][j] for j in range(columns)] for i in range(rows)]
    return dict(min_cost_assignment(cost))
