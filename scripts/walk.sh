#!/usr/bin/env bash
# A walk through the embedded demo project with the `verity` command line: the same project
# file the desktop app opens on first start (`verity demo` defaults to the app's data folder),
# a finished round of three raters. `verity demo --empty` opens the empty one, to answer in.
# Usage: scripts/walk.sh [DATA_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-core.sh
cargo build --quiet --release --bin verity
verity=$PWD/target/release/verity

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

if [ $# -gt 0 ]; then
  project=$("$verity" demo --dir "$1")
else
  project=$("$verity" demo)
fi
export VERITY_PROJECT=$project
echo "The demo project is $project"
step "$verity" raters list
step "$verity" cases
step "$verity" case show demo__tinylib-3
step "$verity" evidence demo__tinylib-3
step "$verity" grep demo__tinylib-3 "are supported when using" -C 0
# The demo holds a finished round: the coordinator's figures on it.
step "$verity" agreement --question 2.1
step "$verity" disagreements
step "$verity" raters quality --question false_negative
echo
echo "Try it yourself: export VERITY_PROJECT=$project; $verity --help"
