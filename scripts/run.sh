#!/usr/bin/env bash
# Fresh machine to a running server: install, provision the local stack, migrate, serve.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
# Local development: GraphiQL on at http://127.0.0.1:8000/graphql (override in the env).
export KENNING_DEVELOPMENT="${KENNING_DEVELOPMENT:-true}"
scripts/install.sh
# OCR of scanned PDF pages and images in ingested files.
scripts/debian_packages.sh tesseract-ocr tesseract-ocr-eng
.venv/bin/kenning stack up
.venv/bin/kenning migrate
exec .venv/bin/kenning serve "$@"
