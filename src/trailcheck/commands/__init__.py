"""The commands of the ``trailcheck`` CLI that run agents; :mod:`trailcheck.cli` registers them."""
