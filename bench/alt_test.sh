#!/usr/bin/env bash
# The alternative annotator test against the Python implementation of the paper's algorithm:
# generates PANELS seeded panels (nominal and ordinal questions, several humans with missing
# labels, models of varied quality, panels too small for the test) with
# bench/alt_test_reference.py (numpy, scipy, statsmodels), then runs the Rust test that checks
# `annotations::agreement::alt_test` on them: per human the tasks, win shares, p-value and
# rejection, per panel the tasks used, the winning rate and the verdict, equal to 1e-9.
# Installs its Python packages with pip into a virtual environment of its own.
set -euo pipefail
cd "$(dirname "$0")/.."

PANELS=${PANELS:-400}
SEED=${SEED:-2025}

venv=${VERITY_BENCH_VENV:-$HOME/.cache/verity/bench-alt-test-venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  numpy==1.26.4 scipy==1.15.3 statsmodels==0.14.5

source bench/lib.sh
scratch
"$venv/bin/python" bench/alt_test_reference.py panels "$work/panels.json" "$PANELS" "$SEED"

echo "checking verity against the reference..." >&2
if ! out=$(VERITY_ALT_TEST_PANELS="$work/panels.json" cargo test --quiet -p verity-stats --test alt_test \
  -- --nocapture 2>&1); then
  echo "$out" >&2
  exit 1
fi
echo "$out" | grep '^alt-test:'
echo "alt-test: $PANELS panels (seed $SEED) equal to the reference to 1e-9"
