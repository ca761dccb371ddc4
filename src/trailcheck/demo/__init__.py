"""Reference domains: small, complete worlds that show every part of trailcheck's loop.

Each domain ships an environment with a fixture, scripted agents with known bugs and their
fixes, and an approved dataset that tells the two apart (see :mod:`trailcheck.demo.support`).
"""
