#!/usr/bin/env bash
# Fresh machine to a full test run: install (the GraphiQL build included), Debian's chromium
# if missing, provision the local stack, lint, type-check, check the import contracts, check
# the schema and migrations for drift, then every test against the real stack.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
scripts/install.sh

# The GraphiQL browser test drives Debian's chromium; Playwright never downloads a browser.
if [ ! -x /usr/bin/chromium ]; then
  echo "== apt-get install chromium (for the browser test)"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  apt_log=$(mktemp)
  if ! { $sudo apt-get update -qq &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
  } >"$apt_log" 2>&1; then
    cat "$apt_log" >&2; exit 1
  fi
  rm -f "$apt_log"
fi

# The drift check uses its own database on the local stack, never the development one.
export KENNING_DATABASE_URL="postgresql://postgres@127.0.0.1:${KENNING_STACK_PG_PORT:-5433}/kenning_check"
.venv/bin/kenning stack up

echo "== ruff"; .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== mypy --strict"; .venv/bin/mypy
echo "== import contracts"; .venv/bin/lint-imports
# Codegen from schema.graphql, then tsc: a schema change that breaks the console fails here.
echo "== console types"; (cd web/console && npm run --silent check)
echo "== schema drift"; .venv/bin/kenning schema --check schema.graphql
echo "== alembic check"; .venv/bin/kenning migrate && .venv/bin/alembic check
echo "== pytest"; .venv/bin/pytest "$@"
