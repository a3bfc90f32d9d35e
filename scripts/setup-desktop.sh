#!/usr/bin/env bash
# Installs what the desktop app needs to build, run and be tested headless on Debian/Ubuntu:
# the WebKitGTK and tray libraries, Xvfb, WebKitWebDriver, the front end's npm packages and
# tauri-driver. Idempotent: apt skips what is installed, npm ci is skipped when node_modules
# matches the lockfile, tauri-driver is installed only when missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

packages=(
  libwebkit2gtk-4.1-dev build-essential curl wget file libxdo-dev libssl-dev
  libayatana-appindicator3-dev librsvg2-dev xvfb xauth webkit2gtk-driver imagemagick
)
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup-desktop: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup-desktop: system packages present"
fi

# npm ci only when the lockfile is newer than the last install (npm writes
# node_modules/.package-lock.json on every install).
if ! [ "$root/ui/node_modules/.package-lock.json" -nt "$root/ui/package-lock.json" ]; then
  echo "setup-desktop: npm ci in ui/"
  # --ignore-scripts: webdriverio's optional edgedriver/geckodriver installers download
  # browser drivers we do not use; nothing else here needs an install script.
  (cd "$root/ui" && npm ci --ignore-scripts --no-audit --no-fund)
else
  echo "setup-desktop: ui/node_modules up to date"
fi

if ! command -v tauri-driver >/dev/null 2>&1; then
  echo "setup-desktop: cargo install tauri-driver"
  cargo install tauri-driver --locked
else
  echo "setup-desktop: tauri-driver present"
fi
