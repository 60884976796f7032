#!/usr/bin/env bash
# Fresh machine to a full test run: install (the GraphiQL build included), Debian's chromium
# and tesseract if missing, provision the local stack, lint, type-check, check the import
# contracts, check the schema, the Python client and migrations for drift, build the
# documentation strictly, then every test against the real stack (the README's and the docs'
# examples included).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
# The server sets glibc's arena count at startup, before any worker thread exists
# (kenning/heap.py keep_freed_memory); pytest runs many apps in one long process, so it
# gets the same from its start.
export MALLOC_ARENA_MAX=1
scripts/install.sh

# The browser tests drive Debian's chromium (Playwright never downloads a browser); file
# ingestion runs Debian's tesseract for OCR.
scripts/debian_packages.sh chromium tesseract-ocr tesseract-ocr-eng

# The drift check uses its own database on the local stack, never the development one.
export KENNING_DATABASE_URL="postgresql://postgres@127.0.0.1:${KENNING_STACK_PG_PORT:-5433}/kenning_check"
.venv/bin/kenning stack up

echo "== ruff"; .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== mypy --strict"; .venv/bin/mypy
echo "== import contracts"; .venv/bin/lint-imports
# Codegen from schema.graphql, then tsc: a schema change that breaks the console fails here.
echo "== console types"; (cd web/console && npm run --silent check)
echo "== schema drift"; .venv/bin/kenning schema --check schema.graphql
# The Python client generated again from schema.graphql and its operations: a schema change
# committed without regenerating clients/python/kenning_client/generated/ fails here.
echo "== client drift"; scripts/client_codegen.sh --check
echo "== alembic check"; .venv/bin/kenning migrate && .venv/bin/alembic check
# The documentation site (what `make docs` builds, into site/, served at /docs): strict, so a
# broken link or anchor, a page left out of the navigation, or a setting without its meaning
# in docs/ fails here; its generated pages come from schema.graphql and Settings.
echo "== docs (strict)"; NO_MKDOCS_2_WARNING=1 .venv/bin/python -m mkdocs build --strict --quiet
echo "== pytest"; .venv/bin/pytest "$@"
