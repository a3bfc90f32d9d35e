#!/usr/bin/env bash
# Whether Verity's 95% prediction-powered intervals cover the truth, by simulation: projects of
# 731 or 5,000 tasks with a true share of underdetermined tasks of 0.15, 0.30 or 0.50, a human
# sample of 100, 200 or 400, and seven predictors (useless, weak, fair, good, near perfect, one
# right in order but not in level, one wrong on purpose). For each: humans alone, plain PPI,
# PPI++, PPI++ with the finite-population correction (against the project's own share), PPI++
# from a draw weighted by the predictor's uncertainty and its finite form, and a system's
# determinate-only rate as `scores --predictor` gives it. Prints the table the README carries:
# coverage per predictor and interval, the lowest PPI++ coverage in any one setting, and the
# PPI++ interval's width over the humans-alone one. No timing: figures only.
#
#   RUNS=4000   projects per predictor and setting (18 settings, 7 predictors; the
#               figures in the README, about 3.5 minutes on 2 cores)
#   SEED=1
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
cargo_build release -p verity-stats --example ppi_coverage
"$out/examples/ppi_coverage" --runs "${RUNS:-4000}" --seed "${SEED:-1}"
