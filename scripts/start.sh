#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and opens Verity on its
# embedded demo project.
set -euo pipefail
cd "$(dirname "$0")/.."
exec bash scripts/walk.sh "$@"
