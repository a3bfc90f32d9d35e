#!/usr/bin/env bash
# The README's second command: sets up what is needed and runs every test and check: the front
# end's type check, unit tests and build; Rust format, lints and tests (against a project file
# and a real PostgreSQL server it starts); the committed TypeScript bindings; the end-to-end
# tests against the real app under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase's wall time, printed as a table at the end (the README's test section carries a
# fresh clone's figures).
timings=()
phase_start=$SECONDS
phase_name=""
phase() {
  if [[ -n "$phase_name" ]]; then
    timings+=("$(printf '%5d s  %s' $((SECONDS - phase_start)) "$phase_name")")
  fi
  phase_name=$1
  phase_start=$SECONDS
  if [[ -n "$phase_name" ]]; then
    echo "== $phase_name"
  fi
}
report_timings() {
  phase ""
  echo "== time per phase (${SECONDS} s in all)"
  printf '%s\n' "${timings[@]}"
}

phase "setup: system packages, npm packages, tauri-driver"
bash scripts/setup-core.sh
bash scripts/setup-desktop.sh

phase "front end: types, unit tests, build"
(cd ui && npm run --silent check && npm test --silent && npm run --silent build)

phase "format"
cargo fmt --all -- --check

# Clippy's lints and the tests' build in one compile: clippy-driver compiles the workspace's own
# crates (as `cargo clippy` has it do, but to the end, code and all), so every crate and target is
# linted exactly as by `cargo clippy --workspace --all-targets -- -D warnings`, and the
# dependencies are compiled once instead of twice (checked for clippy, then built for the tests).
# Every later cargo command runs with the same wrapper, so none of them builds again: the test
# run, the endpoint check and the end-to-end tests use this one build (scripts/build-app.sh).
export RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver)"
CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
phase "Rust: lints and build (clippy, every crate and target)"
bash scripts/build-app.sh

phase "a throwaway PostgreSQL server for the server backend's tests (stopped at exit)"
pg_dir=$(mktemp -d)
trap 'bash scripts/postgres.sh stop "$pg_dir"' EXIT
bash scripts/postgres.sh start "$pg_dir"
# shellcheck source=/dev/null
source "$pg_dir/env"

phase "Rust tests: run"
cargo test --workspace --locked

phase "the tests' model endpoint checked with OpenAI's own Python package"
bash bench/chat_check.sh

phase "generated TypeScript bindings are committed"
if ! git diff --exit-code --stat -- ui/src/lib/api/bindings ||
  [ -n "$(git ls-files --others --exclude-standard -- ui/src/lib/api/bindings)" ]; then
  echo "test: the TypeScript bindings changed when regenerated; commit ui/src/lib/api/bindings" >&2
  exit 1
fi

phase "end-to-end tests against the real app"
bash scripts/e2e.sh

report_timings
