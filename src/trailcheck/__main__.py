"""``python -m trailcheck``: the same as the ``trailcheck`` command."""

from trailcheck.cli import main

main()
