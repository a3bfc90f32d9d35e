#!/usr/bin/env bash
# Builds the front end and the debug app with the front end embedded, then starts it. The app
# offers the demo project on first start. Under a display-less shell it runs in Xvfb.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
(cd "$root/ui" && npm run --silent build)
cargo build --manifest-path "$root/Cargo.toml" -p verity-desktop --features tauri/custom-protocol
app="$root/target/debug/verity-desktop"
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1280x800x24" "$app" "$@"
fi
exec "$app" "$@"
