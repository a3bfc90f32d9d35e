#!/usr/bin/env bash
# Speed and memory of results and scores: SYSTEMS systems' outcomes on TASKS tasks (formats in
# turn) imported with one `verity results import` and scored with `verity scores --json`
# (1,000 bootstrap resamples for each of the SYSTEMS*(SYSTEMS-1) comparisons), release build.
# VERITY=PATH measures that binary instead of building this tree's.
# Target: both under 2 s together, each under 200 MB. The project (its tasks and a reference
# label set that decides which are determinate) is made first and not timed.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

TASKS=${TASKS:-50000}
SYSTEMS=${SYSTEMS:-100}
SEED=${SEED:-5}
RUNS=${RUNS:-3}

if [ -n "${VERITY:-}" ]; then
  # Another build (a base commit's, say), measured alongside this one in one sitting.
  verity=$VERITY
else
  echo "building (release)..." >&2
  cargo_build release -p verity-cli --bin verity
  verity="$out/verity"
fi

scratch
python3 bench/scores_speed_gen.py "$work" "$TASKS" "$SYSTEMS" "$SEED"
"$verity" --project "$work/base.verity" init >/dev/null
"$verity" --project "$work/base.verity" import "$work/tasks.jsonl" "$work/ensembled.csv" >/dev/null
echo "$(du -sh "$work/results" | cut -f1) of results in $SYSTEMS files" >&2

# Each run imports into a fresh copy of the project (VERITY_BENCH_RUN tells the run).
cat > "$work/import.sh" <<SH
#!/usr/bin/env bash
cp "$work/base.verity" "$work/run-\$VERITY_BENCH_RUN.verity"
exec "$verity" --project "$work/run-\$VERITY_BENCH_RUN.verity" results import $work/results/* >/dev/null 2>&1
SH
cat > "$work/scores.sh" <<SH
#!/usr/bin/env bash
exec "$verity" --project "$work/run-0.verity" scores --json --bootstrap 1000 >/dev/null
SH
cat > "$work/copy.sh" <<SH
#!/usr/bin/env bash
cp "$work/base.verity" "$work/run-\$VERITY_BENCH_RUN.verity"
SH
chmod +x "$work/import.sh" "$work/scores.sh" "$work/copy.sh"
read -r copy_s _ < <(python3 bench/measure.py "$RUNS" "$work/copy.sh")
read -r import_s import_mb < <(python3 bench/measure.py "$RUNS" "$work/import.sh")
read -r scores_s scores_mb < <(python3 bench/measure.py "$RUNS" "$work/scores.sh")
"$verity" --project "$work/run-0.verity" scores --json >"$work/scores.json"
python3 - "$work/scores.json" <<'PY' >&2
import json, sys
r = json.load(open(sys.argv[1]))
c = r["coverage"]
print(len(r["systems"]), "systems,", len(r["pairs"]), "comparisons;", c["tasks"], "tasks,", c["determinate"], "determinate,", c["underdetermined"], "underdetermined")
PY
python3 - "$import_s" "$copy_s" "$import_mb" "$scores_s" "$scores_mb" <<'PY'
import sys
imp, copy, imp_mb, sc, sc_mb = map(float, sys.argv[1:])
imp -= copy
print(f"results import: {imp:.2f} s (median, the project's copy taken off), peak {imp_mb:.0f} MB")
print(f"scores --json:  {sc:.2f} s (median), peak {sc_mb:.0f} MB")
print(f"together: {imp + sc:.2f} s (target 2 s); memory target 200 MB each")
PY
