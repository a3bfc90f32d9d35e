#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and opens the Verity desktop app
# on its embedded demo project (twelve tasks, three raters, the demo library's git repository).
# `scripts/walk.sh` walks the same demo project with the `verity` command line instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-core.sh
bash scripts/setup-desktop.sh
exec bash scripts/app.sh "$@"
