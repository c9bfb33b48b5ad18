#!/usr/bin/env bash
# Build what a Spark cluster needs, offline (it uses the setuptools that `make setup` installed):
#   DIST/kraft_audit-<version>-py3-none-any.whl  pip-install it where the driver and executors run, or
#   DIST/kraft_audit.zip                         the same files, for `spark-submit --py-files` (code + conf)
# Both hold the packages jobs, transforms, schemas and synthetic, with conf/ inside as jobs/conf. Third-party libraries
# (pyyaml, pydantic, deltalake, pyarrow, crc32c, cramjam, ...) are not bundled: the Python that PYSPARK_PYTHON
# names on every node must have them (pip install the wheel, or the project's venv).
# Usage: scripts/package.sh [DIST]   (default dist/; PY=python-to-build-with, default .venv/bin/python)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PY:-$ROOT/.venv/bin/python}"
mkdir -p "${1:-$ROOT/dist}"
DIST="$(cd "${1:-$ROOT/dist}" && pwd)"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT

# Build from a copy: the checkout gets no build/ or *.egg-info, and nothing but the sources goes in.
cp -R "$ROOT"/{pyproject.toml,setup.py,MANIFEST.in,README.md,jobs,transforms,schemas,synthetic,conf} "$STAGE"/
find "$STAGE" -name __pycache__ -prune -exec rm -rf {} +
rm -f "$DIST"/kraft_audit-*.whl "$DIST"/kraft_audit.zip
"$PY" -m pip wheel --quiet --no-deps --no-build-isolation --no-index --wheel-dir "$DIST" "$STAGE"
# A pure-Python wheel is a zip with the packages at its root: exactly what --py-files puts on sys.path.
cp "$DIST"/kraft_audit-*-py3-none-any.whl "$DIST/kraft_audit.zip"
echo "$DIST/kraft_audit.zip"
