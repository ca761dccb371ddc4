# Sourced by the other scripts: make uv available and the project's locked environment current.
# Needs only python3 (3.11+) with pip and access to PyPI; installs nothing outside this checkout.
set -euo pipefail

UV_VERSION="0.13.9"
TOOLS_DIR=".trailcheck/tools"
# Never fetch an interpreter: use the Python 3.11+ already on the machine.
export UV_PYTHON_DOWNLOADS=never

if command -v uv >/dev/null 2>&1; then
  UV="uv"
else
  UV="$TOOLS_DIR/uv/bin/uv"
  if [ ! -x "$UV" ]; then
    echo "setup: installing uv $UV_VERSION into $TOOLS_DIR/uv" >&2
    python3 -m pip install --quiet --disable-pip-version-check --target "$TOOLS_DIR/uv" \
      "uv==$UV_VERSION"
  fi
fi

# --frozen: install exactly what uv.lock pins; a stale lock is an error, not a silent re-resolve.
"$UV" sync --frozen --all-extras --quiet
