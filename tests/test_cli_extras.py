"""A command whose extra is not installed says which in one line, exit 2, without a traceback.

Each case runs in a fresh interpreter where the extra's packages cannot be imported, as after
``pip install trailcheck`` without it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.live

DATASET = Path(__file__).resolve().parent / "fixtures" / "datasets" / "support_shop.yaml"

# Makes the packages named on the command line unimportable, then runs the CLI on the rest.
WITHOUT = """
import importlib.abc, sys

blocked = set(sys.argv[1].split(","))

class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Missing())
from trailcheck.cli import run_cli

sys.exit(run_cli(sys.argv[2:]))
"""


def _hint(extra: str) -> str:
    return f"pip install 'trailcheck[{extra}]', or uv sync --extra {extra}"


CASES = {
    "serve": (
        ["fastapi", "starlette", "uvicorn", "grpc"],
        ["serve"],
        f"error: trailcheck serve needs the 'serve' extra (no module 'fastapi'): {_hint('serve')}",
    ),
    "serve-grpc": (
        ["grpc"],
        ["serve", "--port", "0"],
        f"error: trailcheck serve needs the 'serve' extra (no module 'grpc'): {_hint('serve')}",
    ),
    "pending-show": (
        ["fastapi", "starlette", "uvicorn", "grpc"],
        ["pending", "show", "0af7651916cd43dd8448eb211c80319c"],
        "error: trailcheck pending show needs the 'serve' extra (no module 'fastapi'):"
        f" {_hint('serve')}",
    ),
    "run-model": (
        ["openai"],
        ["run", str(DATASET), "--agent", "shop:make", "--model", "gpt-4o-mini"],
        "error: trailcheck run --model needs the 'openai' extra (no module 'openai'):"
        f" {_hint('openai')}",
    ),
    "judge-model": (
        ["openai"],
        ["run", str(DATASET), "--agent", "shop:make", "--judge", "rubric", "--judge-model", "m"],
        f"error: judge 'rubric' needs the 'openai' extra (no module 'openai'): {_hint('openai')}",
    ),
    "postgres": (
        ["psycopg"],
        ["traces", "list", "--db", "postgresql://trailcheck@127.0.0.1:1/none"],
        "error: a PostgreSQL store needs the 'postgres' extra (no module 'psycopg'):"
        f" {_hint('postgres')}",
    ),
    "clusters": (
        ["sklearn", "scipy", "numpy"],
        ["clusters"],
        f"error: trailcheck clusters needs the 'loop' extra (no module 'sklearn'): {_hint('loop')}",
    ),
    "demo": (
        ["sklearn", "scipy", "numpy"],
        ["demo", "--out", ".trailcheck/demo"],
        f"error: trailcheck demo needs the 'loop' extra (no module 'sklearn'): {_hint('loop')}",
    ),
    "route-eval": (
        ["sklearn", "scipy", "numpy"],
        [
            "route",
            "eval",
            *(f"--{name}=x.json" for name in ("catalog", "taxonomy", "train", "queries")),
        ],
        "error: trailcheck route eval needs the 'route' extra (no module 'numpy'):"
        f" {_hint('route')}",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_missing_extra_is_one_line_naming_it(case: str, tmp_path: Path) -> None:
    blocked, argv, expected = CASES[case]
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT, ",".join(blocked), *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert (done.returncode, done.stderr, done.stdout) == (2, expected + "\n", "")
    assert not (tmp_path / ".trailcheck").exists()  # refused before a store was opened
