#!/usr/bin/env bash
# The Python client's code (clients/python/kenning_client/generated/) from schema.graphql and
# the client's operations (clients/python/queries/*.graphql), by ariadne-codegen from its own
# venv (.venv/codegen, made by scripts/install.sh: it pins graphql-core and ruff below the
# server's). Two runs: the async client (with the subscriptions) and the sync one, whose client
# modules join the first run's models; then the repository's ruff fixes and formats the lot.
#
#   scripts/client_codegen.sh          write the generated package
#   scripts/client_codegen.sh --check  generate into a temp dir; exit 1 when it differs from
#                                      the committed package (the schema or an operation
#                                      changed without regenerating)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
codegen=${KENNING_CODEGEN:-$root/.venv/codegen/bin/ariadne-codegen}
ruff=${KENNING_RUFF:-$root/.venv/bin/ruff}
client=$root/clients/python
committed=$client/kenning_client/generated

if [ ! -x "$codegen" ]; then
  echo "error: $codegen is missing; run scripts/install.sh" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One ariadne-codegen run into $work/<run>/kenning_client/generated; $2.. are sed edits of the
# client's [tool.ariadne-codegen] section (the sync run's names). The sync client has no
# subscriptions, so its run leaves out subscriptions.graphql.
run_codegen() {
  local run=$work/$1
  shift
  mkdir -p "$run/kenning_client" "$run/queries"
  cp "$client"/queries/*.graphql "$run/queries/"
  if [ "$(basename "$run")" = sync ]; then rm "$run/queries/subscriptions.graphql"; fi
  sed -e "s#^schema_path = .*#schema_path = \"$root/schema.graphql\"#" \
    -e "s#^queries_path = .*#queries_path = \"$run/queries\"#" \
    "$@" "$client/pyproject.toml" >"$run/pyproject.toml"
  (cd "$run" && "$codegen" --config pyproject.toml client >/dev/null)
}

run_codegen async
run_codegen sync -e 's/^async_client = true/async_client = false/' \
  -e 's/^client_name = .*/client_name = "KenningClient"/' \
  -e 's/^client_file_name = .*/client_file_name = "client"/'

out=$work/async/kenning_client/generated
cp "$work/sync/kenning_client/generated/client.py" "$work/sync/kenning_client/generated/base_client.py" "$out/"
"$ruff" check --quiet --config "$root/pyproject.toml" --fix --unsafe-fixes --exit-zero "$out" >/dev/null
"$ruff" format --quiet --config "$root/pyproject.toml" "$out"

if [ "${1:-}" = "--check" ]; then
  if ! diff -ru -x __pycache__ "$committed" "$out" >"$work/diff"; then
    echo "error: clients/python/kenning_client/generated/ is out of date with schema.graphql" \
      "or clients/python/queries/; run scripts/client_codegen.sh and commit the result" >&2
    head -40 "$work/diff" >&2
    exit 1
  fi
  exit 0
fi
rm -rf "$committed"
mkdir -p "$(dirname "$committed")"
cp -r "$out" "$committed"
echo "wrote $committed"
