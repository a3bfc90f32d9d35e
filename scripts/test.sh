#!/usr/bin/env bash
# The README's second command: sets up what is needed and runs every test and check: the front
# end's type check, unit tests and build; Rust format, lints and tests (against a project file
# and a real PostgreSQL server it starts); the committed TypeScript bindings; the end-to-end
# tests against the real app under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup-core.sh
bash scripts/setup-desktop.sh

echo "== front end: types, unit tests, build"
(cd ui && npm run --silent check && npm test --silent && npm run --silent build)

echo "== format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== a throwaway PostgreSQL server for the server backend's tests (stopped at exit)"
pg_dir=$(mktemp -d)
trap 'bash scripts/postgres.sh stop "$pg_dir"' EXIT
bash scripts/postgres.sh start "$pg_dir"
# shellcheck source=/dev/null
source "$pg_dir/env"

echo "== Rust tests"
cargo test --workspace --locked

echo "== the tests' model endpoint checked with OpenAI's own Python package"
bash bench/chat_check.sh

echo "== generated TypeScript bindings are committed"
if ! git diff --exit-code --stat -- ui/src/lib/api/bindings ||
  [ -n "$(git ls-files --others --exclude-standard -- ui/src/lib/api/bindings)" ]; then
  echo "test: the TypeScript bindings changed when regenerated; commit ui/src/lib/api/bindings" >&2
  exit 1
fi

echo "== end-to-end tests against the real app"
bash scripts/e2e.sh
