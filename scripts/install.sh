#!/usr/bin/env bash
# Create .venv and install Kenning with its pinned dependencies (the development extra brings
# the test tools and MkDocs with the Material theme, which `make docs` builds with) and its
# Python client (clients/python, editable), the client's generator in its own venv (.venv/codegen), then
# build the GraphiQL page (npm ci + esbuild, web/graphiql/ -> kenning/graphiql/static/) and
# the console (web/console/ -> kenning/console/static/). Each step is stamped
# with a hash of its inputs, so a second run with nothing changed takes well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."

install_python() {
  local python=${PYTHON:-python3}
  local stamp
  stamp=".venv/.installed-$(cat pyproject.toml constraints.txt clients/python/pyproject.toml |
    sha256sum | cut -c1-16)"
  if [ -f "$stamp" ] && [ -x .venv/bin/kenning ]; then
    return 0
  fi
  if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
  fi
  .venv/bin/python -m pip install --quiet --upgrade pip
  # torch is pinned to the CPU build (2.13.0); the constraints file fixes every other version.
  # The CLI's server commands use kenning-client, installed from this tree in the same step.
  .venv/bin/python -m pip install --quiet -c constraints.txt -e clients/python -e '.[dev,local]'
  rm -f .venv/.installed-*
  touch "$stamp"
}

# ariadne-codegen, which scripts/client_codegen.sh runs, in a venv of its own: it pins
# graphql-core and ruff below the versions the server runs.
install_codegen() {
  local constraints=clients/python/codegen-constraints.txt
  local stamp
  stamp=".venv/codegen/.installed-$(sha256sum "$constraints" | cut -c1-16)"
  if [ -f "$stamp" ] && [ -x .venv/codegen/bin/ariadne-codegen ]; then
    return 0
  fi
  "${PYTHON:-python3}" -m venv .venv/codegen
  .venv/codegen/bin/python -m pip install --quiet -c "$constraints" ariadne-codegen
  rm -f .venv/codegen/.installed-*
  touch "$stamp"
}

# One web app: npm ci when its lock file changed; the build when a source changed (the
# caller's hash of them) or the built files are missing. Without npm it warns and the server
# runs without the page.
build_web() {
  local title=$1 web=$2 manifest=$3 sources_hash=$4
  local modules="$web/node_modules"
  local lock_hash
  lock_hash=$(sha256sum "$web/package-lock.json" | cut -c1-16)
  if [ -f "$modules/.built-$sources_hash" ] && [ -f "$manifest" ]; then
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "warning: npm not found, $title not built (install Node.js 20+ and npm," \
      "then run scripts/install.sh again); the server runs without it" >&2
    return 0
  fi
  if [ ! -f "$modules/.installed-$lock_hash" ]; then
    echo "$title: npm ci in $web"
    (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
    touch "$modules/.installed-$lock_hash"
  fi
  (cd "$web" && npm run --silent build)
  rm -f "$modules"/.built-*
  touch "$modules/.built-$sources_hash"
}

# GraphiQL (web/graphiql/ -> kenning/graphiql/static/): its lock, build script and sources.
build_graphiql() {
  local hash
  hash=$(cd web/graphiql && { sha256sum package.json package-lock.json build.mjs;
    find src -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; } | sha256sum | cut -c1-16)
  build_web GraphiQL web/graphiql kenning/graphiql/static/manifest.json "$hash"
}

# The console (web/console/ -> kenning/console/static/): also its codegen and TypeScript
# config and schema.graphql, which its types are generated from.
build_console() {
  local hash
  hash=$( { sha256sum schema.graphql; cd web/console &&
    sha256sum package.json package-lock.json build.mjs codegen.ts tsconfig.json &&
    find src -path src/gql -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; } |
    sha256sum | cut -c1-16)
  build_web Console web/console kenning/console/static/manifest.json "$hash"
}

install_python
install_codegen
build_graphiql
build_console
