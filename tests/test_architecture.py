"""docs/architecture.md stays the map of the house: every top-level package and module of
``trailcheck`` is named in it, and so are the layers the import contracts check."""

from __future__ import annotations

import tomllib
from pathlib import Path

import trailcheck

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "docs" / "architecture.md"


def _parts() -> set[str]:
    package = Path(trailcheck.__file__).parent
    names = {path.name for path in package.iterdir() if (path / "__init__.py").exists()}
    names |= {path.stem for path in package.glob("*.py") if not path.stem.startswith("__")}
    return names


def test_every_package_and_module_of_trailcheck_is_named_on_the_map() -> None:
    text = MAP.read_text()
    missing = sorted(name for name in _parts() if f"`{name}`" not in text)
    assert missing == []


def test_the_maps_layers_are_the_contracts_layers() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    [layers] = [c["layers"] for c in contracts if c["type"] == "layers" and "containers" not in c]
    text = MAP.read_text()
    for layer in layers:
        drawn = " | ".join(name.removeprefix("trailcheck.") for name in layer.split(" | "))
        assert drawn in text, f"layer {layer!r} is not drawn on docs/architecture.md"
