"""Synthetic sample files shipped with the package (an online shop, written for trailcheck's
tests and examples; no real customer or company data): a catalog of 40 tools with deliberate
near-duplicates, its taxonomy, router training messages and labelled queries."""

from __future__ import annotations

from pathlib import Path

__all__ = ["SAMPLES", "sample_path"]

SAMPLES: dict[str, str] = {
    "catalog": "shop_catalog.json",
    "taxonomy": "shop_taxonomy.json",
    "train": "shop_training.json",
    "queries": "shop_queries.json",
}


def sample_path(kind: str) -> Path:
    """The path of the sample ``kind``: ``catalog``, ``taxonomy``, ``train`` or ``queries``."""
    if kind not in SAMPLES:
        raise KeyError(f"no sample {kind!r}; there are {', '.join(SAMPLES)}")
    return Path(__file__).parent / SAMPLES[kind]
