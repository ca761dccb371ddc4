"""Route speed: one routing decision (route + retrieve + decide) over the 285-tool catalog.

Builds the gate from ``../shared/external/case-agents`` (the real banking catalog, its router
training messages and its 30 queries) with the taxonomy in ``benchmarks/data``; when that
material is absent, from the shipped synthetic shop sample, and says so. Then, for several
rounds, times every query through :meth:`RouteGate.route` one at a time, and in the same run
the baseline ``sklearn``: the router step alone run the plain way, through scikit-learn's
pipeline (``TfidfVectorizer.transform`` then ``predict_proba``) for the same query. The gate
computes the same numbers itself (tested equal), and then also retrieves and decides.

Prints median and p95 per decision in milliseconds, the ratio to that baseline, and whether p95
meets the 5 ms target. The machine's other load shows in p95: run it on a quiet machine::

    uv run python benchmarks/route_speed.py --rounds 30
    uv run python benchmarks/route_speed.py --scorer bm25
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from trailcheck.route import (
    build_gate,
    load_catalog,
    load_queries,
    load_taxonomy,
    load_training,
    sample_path,
)

ROOT = Path(__file__).resolve().parent.parent
EXTERNAL = ROOT.parent / "shared" / "external" / "case-agents"
TAXONOMY = ROOT / "benchmarks" / "data" / "case-agents-taxonomy.json"
TARGET_P95_MS = 5.0


def _paths() -> tuple[Path, Path, Path, Path, str]:
    if EXTERNAL.is_dir():
        return (
            EXTERNAL / "tools_registry.json",
            TAXONOMY,
            EXTERNAL / "router_training_data.json",
            EXTERNAL / "eval_dataset.json",
            "case-agents (real, 285 tools)",
        )
    return (
        sample_path("catalog"),
        sample_path("taxonomy"),
        sample_path("train"),
        sample_path("queries"),
        "synthetic shop sample (case-agents absent)",
    )


def _times(call: Callable[[str], object], texts: Sequence[str], rounds: int) -> list[float]:
    for text in texts:  # warm up caches and lazy imports
        call(text)
    samples: list[float] = []
    gc.collect()
    gc.disable()  # as timeit does: a collection is not part of one decision
    try:
        _rounds(call, texts, rounds, samples)
    finally:
        gc.enable()
    return samples


def _rounds(
    call: Callable[[str], object], texts: Sequence[str], rounds: int, samples: list[float]
) -> None:
    for _ in range(rounds):
        for text in texts:
            start = time.perf_counter_ns()
            call(text)
            samples.append((time.perf_counter_ns() - start) / 1e6)


def _p95(samples: Sequence[float]) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[94]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--scorer", choices=["tfidf", "bm25"], default="tfidf")
    options = parser.parse_args()
    catalog_path, taxonomy_path, train_path, queries_path, source = _paths()
    tools = load_catalog(catalog_path)
    gate = build_gate(
        tools, load_taxonomy(taxonomy_path), load_training(train_path), scorer=options.scorer
    )
    texts = [q.query for q in load_queries(queries_path)]

    decision = _times(lambda text: gate.route(text, k=options.k), texts, options.rounds)
    sklearn = _times(lambda text: gate.router.raw_probabilities([text]), texts, options.rounds)

    median, p95 = statistics.median(decision), _p95(decision)
    sklearn_median, sklearn_p95 = statistics.median(sklearn), _p95(sklearn)
    capabilities = len(gate.index.capabilities.capabilities)
    print(f"catalog: {source}; {len(tools)} tools, {capabilities} capabilities")
    print(f"scorer {options.scorer}, k={options.k}")
    print(f"{len(decision)} decisions ({len(texts)} queries x {options.rounds} rounds)")
    print(f"decision  median {median:.3f} ms  p95 {p95:.3f} ms")
    print(f"sklearn   median {sklearn_median:.3f} ms  p95 {sklearn_p95:.3f} ms  (router only)")
    print(
        f"ratio decision/sklearn: median {median / sklearn_median:.2f}x,"
        f" p95 {p95 / sklearn_p95:.2f}x"
    )
    verdict = "met" if p95 < TARGET_P95_MS else "MISSED"
    print(f"target p95 < {TARGET_P95_MS} ms: {verdict}")


if __name__ == "__main__":
    main()
