#!/usr/bin/env bash
# End-to-end tests against the real app: builds the front end and the debug app with the front
# end embedded, starts Xvfb and tauri-driver, runs the WebdriverIO tests in ui/e2e/, stops what
# it started. Screenshots land in docs/screenshots/. The app's data folder is a fresh temporary
# XDG_DATA_HOME, so every run starts from a new demo project. The command line (debug) makes the
# projects some tests open.
set -euo pipefail
# shellcheck source=headless.sh
source "$(dirname "$0")/headless.sh"
mkdir -p "$root/docs/screenshots"
cargo build --manifest-path "$root/Cargo.toml" --locked -p annotations --bin verity

status=0
VERITY_APP="$app" VERITY_CLI="$root/target/debug/verity" VERITY_DRIVER_PORT="$port" VERITY_DRIVER_PID="$driver_pid" \
  VERITY_SCREENSHOTS="$root/docs/screenshots" \
  node --test --test-concurrency=1 --test-timeout=300000 "$root"/ui/e2e/*.test.mjs || status=$?
if [ "$status" -ne 0 ]; then
  echo "e2e: failed; the end of tauri-driver's log:" >&2
  tail -n 40 "$work/driver.log" >&2 || true
fi
exit "$status"
