#!/usr/bin/env bash
# Prediction-powered estimates against the reference implementation: generated panels built
# through the real command line (tasks, two model raters served by the tests' Chat Completions
# server, a random sample drawn by `verity assign --sample` uniformly, extended, or weighted by
# the models' uncertainty, three humans answering it with some tasks left incomplete, three
# systems' results), then every figure of `verity estimate --json` (4 labels × 2 predictors ×
# λ estimated, 0, 1, 0.37, with and without weights) and of `verity scores --predictor --json`
# (each system's determinate-only rate and each pair's difference, prediction-powered and
# labelled alone) against PyPI's ppi-python: `ppi_mean_pointestimate`, `ppi_mean_ci`,
# `classical_mean_ci`, λ by `_calc_lam_glm`; `--finite` against its formulas in numpy; each
# uncertainty draw's probabilities recomputed. Exits 1 when any figure differs by more than
# 1e-9 (bench/ppi_reference.py says how each is compared).
#
#   PANELS=8      panels to build (at most 8)
#   VERITY_BENCH_VENV=bench/work/ppi-venv   the virtual environment ppi-python is installed in
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

venv=${VERITY_BENCH_VENV:-$root/bench/work/ppi-venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check ppi-python==0.2.3

source bench/lib.sh
cargo_build release -p verity-cli --bin verity -p verity-testkit --example chat_serve
scratch
"$venv/bin/python" bench/ppi_reference.py "$out/verity" "$out/examples/chat_serve" \
  annotations/tests/fixtures/swebench.jsonl "$work" "${PANELS:-8}"
