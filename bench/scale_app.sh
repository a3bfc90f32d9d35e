#!/usr/bin/env bash
# The desktop app on a large project, against issue 15's targets (measured on a 2-core machine,
# release build):
#   a rater's queue interactive after picking the rater   < 1.5 s
#   the coordinator's progress view interactive           < 2 s
#   searching the queue, per keystroke                     < 100 ms
#   memory of the app and its WebKit processes (PSS)       < 400 MB
# VERITY_SCALE_PROJECT names the project file (bench/scale.sh makes one of 50,000 tasks and three
# raters); VERITY_SCALE_RATER the rater whose queue is measured (default `1`). The app opens a
# file of an older schema by migrating it: measure a copy of a file you want to keep as it is.
# Prints one line per measure.
set -euo pipefail
if [ -z "${VERITY_SCALE_PROJECT:-}" ] || [ ! -f "$VERITY_SCALE_PROJECT" ]; then
  echo "scale_app: set VERITY_SCALE_PROJECT to a Verity project file" >&2
  exit 2
fi
VERITY_SCALE_PROJECT="$(cd "$(dirname "$VERITY_SCALE_PROJECT")" && pwd)/$(basename "$VERITY_SCALE_PROJECT")"
export VERITY_SCALE_PROJECT
export VERITY_RELEASE="${VERITY_RELEASE:-1}"
# shellcheck source=../scripts/headless.sh
source "$(dirname "$0")/../scripts/headless.sh"

VERITY_APP="${VERITY_SCALE_APP:-$app}" VERITY_DRIVER_PORT="$port" VERITY_DRIVER_PID="$driver_pid" \
  VERITY_SCREENSHOTS="$work" node "$root/bench/scale_app.mjs"
