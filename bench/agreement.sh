#!/usr/bin/env bash
# Agreement benchmark: Verity against the Python reference libraries on the same ratings file.
#
# Generates (seeded) 20,000 units x 5 raters with 20% of ratings missing, then times
#   1. every coefficient, file reading included, no bootstrap: the release-built
#      `verity agreement --ratings FILE --json`;
#   2. Python: pandas read_csv + krippendorff.alpha (nominal, ordinal, interval) + statsmodels
#      fleiss_kappa on complete units;
#   3. 1,000 bootstrap resamples of Krippendorff's alpha (target: under 5 s) through the
#      `agreement_file` example, the one place that bootstraps alpha alone and times it
#      in-process; and `verity agreement --bootstrap 1000`, every coefficient resampled.
# Needs: cargo, python3 with `pip install -r scripts/reference/requirements.txt`.
set -euo pipefail
cd "$(dirname "$0")/.."

UNITS=${UNITS:-20000}
RATERS=${RATERS:-5}
MISSING=${MISSING:-0.2}
SEED=${SEED:-7}
RUNS=${RUNS:-5}

source bench/lib.sh
scratch
file="$work/ratings.csv"

echo "building (release)..." >&2
cargo_build release -p verity-cli --bin verity -p annotations --example agreement_file
verity="$out/verity"
example="$out/examples/agreement_file"

python3 bench/gen_ratings.py "$UNITS" "$RATERS" "$MISSING" "$SEED" > "$file"
rows=$(($(wc -l < "$file") - 1))

tool="verity agreement"
full=("$verity" agreement --ratings "$file" --json)

# Best-of-N wall time of a command, in seconds.
best_time() {
  local best="" t0 t1 dt
  for _ in $(seq "$RUNS"); do
    t0=$(date +%s.%N)
    "$@" > /dev/null
    t1=$(date +%s.%N)
    dt=$(echo "$t1 - $t0" | bc -l)
    if [[ -z $best ]] || (($(echo "$dt < $best" | bc -l))); then best=$dt; fi
  done
  printf '%.4f' "$best"
}

echo "sanity: the same file gives the same values" >&2
"${full[@]}" | python3 -c '
import json, sys
r = json.load(sys.stdin)
a = r["krippendorff_alpha"]
print("  verity: alpha_nominal=%.6f alpha_ordinal=%.6f fleiss=%.6f" % (a["nominal"], a["ordinal"], r["fleiss_kappa"]["value"]), file=sys.stderr)'
python3 bench/agreement_reference.py "$file" | sed -n '1s/^/  python: /p' >&2
"$verity" agreement --ratings "$file" --level interval --json | python3 -c '
import json, sys
print("  verity: alpha_interval=%.6f" % json.load(sys.stdin)["krippendorff_alpha"]["interval"], file=sys.stderr)'

rust_full=$(best_time "${full[@]}")
py_wall=$(best_time python3 bench/agreement_reference.py "$file")
py_inner=$(python3 bench/agreement_reference.py "$file" | sed -n 's/^seconds=//p')
alpha_boot=$(best_time "$example" "$file" --bootstrap-alpha 1000 --seed 1)
alpha_inner=$("$example" "$file" --bootstrap-alpha 1000 --seed 1 | sed -n 's/.* in \([0-9.]*\) s$/\1/p')
all_boot=$(best_time "$verity" agreement --ratings "$file" --json --bootstrap 1000 --seed 1)

ratio() { printf '%.1fx' "$(echo "$1 / $2" | bc -l)"; }
echo
echo "agreement benchmark: $UNITS units x $RATERS raters, ${MISSING} missing -> $rows ratings (best of $RUNS)"
printf '%-66s %10s %10s\n' "measurement" "seconds" "vs verity"
printf '%-66s %10s %10s\n' "verity ($tool): read + every coefficient, JSON" "$rust_full" "1.0x"
printf '%-66s %10s %10s\n' "python: read_csv + alpha x3 + fleiss_kappa (process wall time)" "$py_wall" "$(ratio "$py_wall" "$rust_full")"
printf '%-66s %10s %10s\n' "python: the same, after imports (in-script timer)" "$py_inner" "$(ratio "$py_inner" "$rust_full")"
printf '%-66s %10s %10s\n' "verity: 1,000 bootstrap resamples of alpha (process, incl. read)" "$alpha_boot" "target < 5"
printf '%-66s %10s %10s\n' "verity: the same, bootstrap only (in-process timer)" "$alpha_inner" ""
printf '%-66s %10s %10s\n' "verity agreement --bootstrap 1000: every coefficient, all resampled" "$all_boot" ""
