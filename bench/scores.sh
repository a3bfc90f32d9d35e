#!/usr/bin/env bash
# Scores against the reference libraries: `verity scores --json` on generated results of
# SYSTEMS systems over TASKS tasks, in every results format, compared with statsmodels
# (Wilson intervals, McNemar's exact test) and scipy (Kendall's tau-b, ranks) to 1e-9.
# Installs its Python packages with pip into a virtual environment of its own.
set -euo pipefail
cd "$(dirname "$0")/.."

TASKS=${TASKS:-400}
SYSTEMS=${SYSTEMS:-6}
SEED=${SEED:-11}

venv=${VERITY_BENCH_VENV:-$HOME/.cache/verity/bench-scores-venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  numpy==1.26.4 scipy==1.15.3 statsmodels==0.14.5

echo "building..." >&2
source bench/lib.sh
cargo_build debug -p verity-cli --bin verity
"$venv/bin/python" bench/scores_reference.py "$out/verity" "$TASKS" "$SYSTEMS" "$SEED"
