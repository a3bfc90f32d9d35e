#!/usr/bin/env bash
# Checks the tests' Chat Completions server (crates/testkit/src/chat_server.rs) with OpenAI's
# own Python package (bench/chat_check.py): a server that needs a key, and one in llama.cpp's
# partial dialect, both on 127.0.0.1. scripts/test.sh runs it, so the server cannot drift from
# the real format. Installs the pinned `openai` package with pip when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
OPENAI_VERSION=3.51.0
if ! python3 -c "import openai, sys; sys.exit(openai.__version__ != '$OPENAI_VERSION')" 2>/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore "openai==$OPENAI_VERSION"
fi
source bench/lib.sh
# The workspace's one debug build, which scripts/test.sh has made already (scripts/build-app.sh
# says why it is built whole).
cargo_build debug --workspace --all-targets
work=$(mktemp -d)
mkdir -p "$work/strict" "$work/partial"
"$out/examples/chat_serve" "$work/strict" --key sk-check >/dev/null 2>&1 &
strict_pid=$!
"$out/examples/chat_serve" "$work/partial" --partial >/dev/null 2>&1 &
partial_pid=$!
trap 'kill "$strict_pid" "$partial_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 300); do [ -s "$work/strict/port" ] && [ -s "$work/partial/port" ] && break; sleep 0.1; done
python3 bench/chat_check.py "http://127.0.0.1:$(cat "$work/strict/port")/v1" \
  "http://127.0.0.1:$(cat "$work/partial/port")/v1" sk-check
