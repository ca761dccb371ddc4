"""``needs_extra``: a missing package of the extra becomes one line naming the extra; anything
else missing is a bug and stays as it was."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import metadata, requires

import pytest

import trailcheck.extras
from trailcheck.errors import UsageError
from trailcheck.extras import EXTRAS, needs_extra, require_extra

pytestmark = pytest.mark.live


def test_a_missing_module_of_the_extra_names_the_extra() -> None:
    with pytest.raises(UsageError) as raised, needs_extra("serve", "trailcheck serve"):
        raise ModuleNotFoundError("No module named 'fastapi.routing'", name="fastapi.routing")
    assert str(raised.value) == (
        "trailcheck serve needs the 'serve' extra (no module 'fastapi.routing'):"
        " pip install 'trailcheck[serve]', or uv sync --extra serve"
    )
    assert raised.value.exit_code == 2
    assert raised.value.__cause__ is None
    assert raised.value.__suppress_context__


@pytest.mark.parametrize("name", ["yaml", "fastapix", None])
def test_another_missing_module_is_not_blamed_on_the_extra(name: str | None) -> None:
    missing = ModuleNotFoundError(f"No module named {name!r}", name=name)
    with pytest.raises(ModuleNotFoundError) as raised, needs_extra("serve", "trailcheck serve"):
        raise missing
    assert raised.value is missing


def test_a_module_of_another_extra_is_not_blamed_on_this_one() -> None:
    with pytest.raises(ModuleNotFoundError), needs_extra("serve", "trailcheck serve"):
        raise ModuleNotFoundError("No module named 'openai'", name="openai")


def _requirements() -> dict[str | None, set[str]]:
    """The distributions trailcheck requires, by extra (``None``: the core)."""
    found: dict[str | None, set[str]] = {}
    for line in requires("trailcheck") or []:
        name = re.match(r"[A-Za-z0-9_.-]+", line)
        extra = re.search(r"""extra == ['"]([^'"]+)""", line)
        assert name is not None, line
        found.setdefault(extra and extra[1], set()).add(name[0].lower())
    return found


def test_the_extras_bring_their_packages_and_the_core_none_of_them() -> None:
    assert set(EXTRAS) <= set(metadata("trailcheck").get_all("Provides-Extra") or [])
    required = _requirements()
    assert required["serve"] == {"fastapi", "uvicorn", "grpcio"}
    assert required["openai"] == {"openai"}
    assert required["postgres"] == {"psycopg"}
    assert required["ray"] == {"ray"}
    assert required["parquet"] == {"pyarrow"}
    assert required["loop"] == {"scikit-learn", "scipy", "numpy"}
    assert required["route"] == {"scikit-learn", "numpy"}
    in_all = ("serve", "openai", "postgres", "loop", "route")
    assert required["all"] == set().union(*(required[extra] for extra in in_all))
    assert required[None].isdisjoint(required["all"])


def test_require_extra_names_the_first_module_not_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require_extra("loop", "trailcheck clusters")  # installed here: nothing to say
    found = trailcheck.extras.find_spec
    monkeypatch.setattr(
        trailcheck.extras, "find_spec", lambda name: None if name == "scipy" else found(name)
    )
    with pytest.raises(UsageError) as raised:
        require_extra("loop", "trailcheck clusters")
    assert str(raised.value) == (
        "trailcheck clusters needs the 'loop' extra (no module 'scipy'):"
        " pip install 'trailcheck[loop]', or uv sync --extra loop"
    )


# The modules of the loop and route extras are never imported by the core a library user
# imports to grade traces (in pytest too): each is imported alone, in a fresh interpreter.
CORE = (
    "trailcheck",
    "trailcheck.trace",
    "trailcheck.scorers",
    "trailcheck.importing",
    "trailcheck.cases",
    "trailcheck.loop",
    "trailcheck.run",
    "trailcheck.pytest_plugin",
)
HEAVY = {"numpy", "scipy", "sklearn"}


@pytest.mark.parametrize("module", CORE)
def test_the_core_imports_none_of_the_loop_and_route_extras(module: str) -> None:
    probe = (
        f"import sys, {module}; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(HEAVY)!r}))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"
