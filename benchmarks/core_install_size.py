"""What ``pip install trailcheck`` puts on disk: the core, and with ``[all]`` for comparison.

Builds trailcheck's wheel from this checkout (``uv build --wheel``, or ``pip wheel . --no-deps``
when uv is not found), then for each variant creates a fresh venv in a temporary folder,
``pip install``s the wheel there (its dependencies from PyPI), and prints the bytes in the venv's
site-packages and the 10 largest distributions, each the sum of the files its RECORD lists.
pip itself, which ``python -m venv`` puts in every venv, is named apart and not counted. Sizes
are apparent sizes (the files' lengths), with the bytecode pip compiles at install; MB is 10**6
bytes. Target: the core <= 100 MB.

    uv run python benchmarks/core_install_size.py [--variants core all] [--top 10]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TypedDict

ROOT = Path(__file__).resolve().parent.parent
TARGET_MB = 100.0
BOOTSTRAP = frozenset({"pip", "setuptools"})
# Run by the fresh venv's interpreter: its site-packages and each distribution's bytes.
MEASURE = """
import json, os, sysconfig
from importlib.metadata import distributions

site = sysconfig.get_paths()["purelib"]
total = sum(
    os.path.getsize(os.path.join(folder, name))
    for folder, _, names in os.walk(site)
    for name in names
    if not os.path.islink(os.path.join(folder, name))
)
sizes = {}
for dist in distributions():
    paths = {dist.locate_file(file) for file in dist.files or ()}
    sizes[dist.metadata["Name"]] = sum(p.stat().st_size for p in paths if p.is_file())
print(json.dumps({"site": site, "total": total, "distributions": sizes}))
"""


class Measured(TypedDict):
    """What :data:`MEASURE` prints: the venv's site-packages, its bytes, each distribution's."""

    site: str
    total: int
    distributions: dict[str, int]


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def _uv() -> str | None:
    bundled = ROOT / ".trailcheck" / "tools" / "uv" / "bin" / "uv"
    return shutil.which("uv") or (str(bundled) if bundled.exists() else None)


def build_wheel(out: Path) -> Path:
    """trailcheck's wheel, built from this checkout into ``out``."""
    uv = _uv()
    if uv is not None:
        command = [uv, "build", "--wheel", "--out-dir", str(out), str(ROOT)]
    else:
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(ROOT)]
    subprocess.run(command, check=True, capture_output=True, env={**os.environ, "NO_COLOR": "1"})
    [wheel] = out.glob("trailcheck-*.whl")
    return wheel


def measure(wheel: Path, extras: str, where: Path) -> Measured:
    """A fresh venv in ``where`` with ``wheel[extras]`` pip-installed, measured."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = str(where / "bin" / "python")
    requirement = f"trailcheck[{extras}] @ {wheel.as_uri()}" if extras else str(wheel)
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", requirement]
    installing = subprocess.run(pip, capture_output=True, text=True, check=False)
    if installing.returncode != 0:  # its warnings otherwise hide the figures
        sys.exit(f"pip install {requirement} failed:\n{installing.stderr}")
    done = subprocess.run([python, "-c", MEASURE], check=True, capture_output=True, text=True)
    found: Measured = json.loads(done.stdout)
    return found


def report(label: str, found: Measured, top: int) -> int:
    """Print one variant's sizes; the bytes counted (pip and setuptools left out)."""
    sizes, total = found["distributions"], found["total"]
    bootstrap = sum(size for name, size in sizes.items() if name.lower() in BOOTSTRAP)
    counted = {name: size for name, size in sizes.items() if name.lower() not in BOOTSTRAP}
    installed = total - bootstrap
    print(f"{label}: {_mb(installed)} ({installed} bytes) in {len(counted)} distributions")
    print(f"  (site-packages {_mb(total)}, of which pip/setuptools from venv {_mb(bootstrap)})")
    for name, size in sorted(counted.items(), key=lambda item: -item[1])[:top]:
        print(f"  {name:<36} {_mb(size):>10}  {size / installed:6.1%}")
    return installed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", default=["core", "all"], help="core or extras")
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="trailcheck-size-") as temp:
        folder = Path(temp)
        wheel = build_wheel(folder / "dist")
        print(f"wheel {wheel.name}: {_mb(wheel.stat().st_size)}")
        installed: dict[str, int] = {}
        for variant in args.variants:
            extras = "" if variant == "core" else variant
            found = measure(wheel, extras, folder / f"venv-{variant}")
            label = "pip install trailcheck" + (f"[{extras}]" if extras else "")
            installed[variant] = report(label, found, args.top)
    if "core" in installed:
        core = installed["core"] / 1e6
        verdict = "met" if core <= TARGET_MB else f"missed by {core - TARGET_MB:.1f} MB"
        print(f"core {core:.1f} MB, target <= {TARGET_MB:.0f} MB: {verdict}")
        for variant, size in installed.items():
            if variant != "core":
                print(f"[{variant}] adds {_mb(size - installed['core'])} to the core")


if __name__ == "__main__":
    main()
