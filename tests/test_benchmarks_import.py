"""Every benchmark script, and the helpers they share, still imports: a rename in the package
breaks the test run, not the next person who measures. Only the imports run (each script's work
is under ``__main__``, in its ``main``)."""

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"


@pytest.fixture
def benchmarks_importable() -> Iterator[None]:
    sys.path.insert(0, str(BENCHMARKS))  # the scripts import one another by name
    try:
        yield
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.mark.parametrize("script", sorted(p.stem for p in BENCHMARKS.glob("*.py")))
def test_the_benchmark_imports(script: str, benchmarks_importable: None) -> None:
    try:
        module = importlib.import_module(script)
    except ModuleNotFoundError as missing:
        local = {p.stem for p in BENCHMARKS.glob("*.py")}
        if missing.name is None or missing.name.split(".")[0] in {"trailcheck", *local}:
            raise
        pytest.skip(f"{script} needs {missing.name}, which this environment does not install")
    if '__name__ == "__main__"' in (BENCHMARKS / f"{script}.py").read_text(encoding="utf-8"):
        assert callable(getattr(module, "main", None)), f"{script} has no main()"
