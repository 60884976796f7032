#!/usr/bin/env bash
# Create .venv and install Kenning with its pinned dependencies; fast when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
stamp_src=$(cat pyproject.toml constraints.txt | sha256sum | cut -c1-16)
stamp=".venv/.installed-$stamp_src"

if [ -f "$stamp" ] && [ -x .venv/bin/kenning ]; then
  exit 0
fi
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# torch is pinned to the CPU build (2.13.0); the constraints file fixes every other version.
.venv/bin/python -m pip install --quiet -c constraints.txt -e '.[dev,local]'
rm -f .venv/.installed-*
touch "$stamp"
