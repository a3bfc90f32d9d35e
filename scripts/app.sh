#!/usr/bin/env bash
# Builds the front end and the app (release) with the front end embedded, then starts it on the
# project it had open last, or the embedded demo project on its first start. Under a shell
# without a display it runs in Xvfb.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
(cd "$root/ui" && npm run --silent build)
cargo build --manifest-path "$root/Cargo.toml" --locked --release -p verity-desktop
app="$root/target/release/verity-desktop"
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "app: no display; running in Xvfb (1280x800). Screenshot: DISPLAY=... import -window root shot.png"
  exec xvfb-run -a -s "-screen 0 1280x800x24" "$app" "$@"
fi
exec "$app" "$@"
