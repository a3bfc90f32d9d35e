#!/usr/bin/env bash
# A rater's autosaves on a project file: SAVES drafts of one answer (1,000 unless given), each
# the save the app makes half a second after the last keystroke, timed by
# examples/autosave_speed.rs, with the statements each runs as SQLite itself counts them.
set -euo pipefail
cd "$(dirname "$0")/.."
SAVES=${SAVES:-1000}
# PROFILE=debug measures the debug build (no release build needed; slower).
PROFILE=${PROFILE:-release}
source bench/lib.sh
cargo_build "$PROFILE" -p annotations --example autosave_speed
read -r total each statements < <("$out/examples/autosave_speed" "$SAVES")
echo "$SAVES autosaves ($PROFILE): ${total} ms, ${each} ms each, ${statements} statements each"
