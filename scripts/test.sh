#!/usr/bin/env bash
# The README's second command: sets up what is needed and runs every test and check.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup-core.sh

echo "== format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== Rust tests"
cargo test --workspace --locked

echo "== generated TypeScript bindings are committed"
if ! git diff --exit-code --stat -- ui/src/lib/api/bindings; then
  echo "test: the TypeScript bindings changed when regenerated; commit ui/src/lib/api/bindings" >&2
  exit 1
fi
