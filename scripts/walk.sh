#!/usr/bin/env bash
# A walk through the embedded demo project with the `verity` command line: the same project
# file the desktop app opens on first start (`verity demo` defaults to the app's data folder).
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
answers=$(mktemp)
trap 'rm -f "$answers"' EXIT
cat >"$answers" <<'JSON'
{
  "underspecified": 1,
  "underspecified_notes": "The issue asks write_csv to refuse multi-character delimiters but never says with which exception or message; the reader's wording is the only precedent.",
  "false_negative": 3,
  "false_negative_notes": "tests/test_csv.py pins the exact text 'Only one-character delimiters are supported by the csv writer, got ...', which appears in neither the issue nor the codebase.",
  "difficulty": "<15 min fix",
  "difficulty_notes": "A guard clause in tinylib/writers/csv.py.",
  "other_major_issues": 0,
  "annotator_confidence": 4
}
JSON
# A rater answers only the cases assigned to them: take the first rater of this one.
rater=$("$verity" case show demo__tinylib-3 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["assignments"][0]["rater"])')
step "$verity" answer --rater "$rater" --case demo__tinylib-3 --file "$answers" --submit
step "$verity" case show demo__tinylib-3
echo
echo "Try it yourself: export VERITY_PROJECT=$project; $verity --help"
