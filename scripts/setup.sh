#!/usr/bin/env bash
# Set up a development/runtime environment: Java >= 17 and .venv with the project and its test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

java_major() {
  command -v java >/dev/null 2>&1 || { echo 0; return; }
  java -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}'
}

if [ "$(java_major)" -lt 17 ] 2>/dev/null; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Java 17 (openjdk-17-jre-headless) with apt-get" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  else
    echo "setup: Java 17 or newer is required; install openjdk-17-jre-headless (or any JDK >= 17) and re-run" >&2
    exit 1
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
STAMP=.venv/.kraft-audit-installed
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  # pip byte-compiles what it installs on one core (about half of its time here); compileall does the same files on
  # every core. Files that do not compile are skipped silently, as pip skips them.
  .venv/bin/python -m pip install -q --no-compile -e '.[test]'
  .venv/bin/python -m compileall -q -j 0 .venv/lib/python*/site-packages >/dev/null 2>&1 || true
  touch "$STAMP"
fi
