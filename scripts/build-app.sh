#!/usr/bin/env bash
# Builds the app with its front end embedded: debug, or release with VERITY_RELEASE=1. The debug
# build is the workspace's whole one (every crate and target in one cargo invocation, as
# scripts/test.sh makes it): cargo unifies the dependencies' features per invocation, and
# `-p verity-desktop` alone would rebuild tokio and everything above it with fewer features.
# The command line and the test servers the end-to-end tests start come from the same build.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# The front end is built again only when a source is newer than the last build: a new ui/dist
# makes cargo rebuild the app, which embeds it. The generated bindings are types alone, which the
# build erases, and the Rust tests write them anew on every run.
if [ ! -e "$root/ui/dist/index.html" ] || [ -n "$(find "$root/ui/src" "$root/ui/index.html" \
  "$root/ui/package-lock.json" "$root/ui/vite.config.ts" "$root/ui/svelte.config.js" \
  -type f -newer "$root/ui/dist/index.html" -not -path "$root/ui/src/lib/api/bindings/*" -print -quit)" ]; then
  (cd "$root/ui" && npm run --silent build)
fi
if [ "${VERITY_RELEASE:-0}" = 1 ]; then
  cargo build --manifest-path "$root/Cargo.toml" --locked --release -p verity-desktop
else
  cargo build --manifest-path "$root/Cargo.toml" --locked --workspace --all-targets
fi
