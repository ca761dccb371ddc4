"""Importers that turn suites written for other tools into trailcheck datasets."""
