#!/usr/bin/env bash
# Scale benchmark of the statistics and exports (issue 15): one line per measure, the median wall
# time and peak RSS of the release-built `verity` (bench/measure.py) against its target.
#
#   report, 93 raters        an OpenAI-sized panel: the 1,699 tasks of OpenAI's ensembled file,
#                            3 of 93 raters per task (bench/scale_gen.py panel), default
#                            bootstrap (1,000 resamples); target under 5 s
#   report, 1,000 raters     the same tasks, 3 of 1,000 raters per task; target under 30 s
#   agreement --json size    on the 93-rater panel; target under 2 MB (it was 16 MB)
# and, given a 50,000-task project in VERITY_SCALE_PROJECT (read only, never changed):
#   agreement --project      target under 2 s; with the ratio against the Python reference
#                            libraries on the same ratings (bench/agreement_reference.py per
#                            question: alpha at three levels and Fleiss' kappa, reading included)
#   export --format jsonl    streamed, target peak RSS under 200 MB (csv too)
#
# The panels are built from ../shared/data (VERITY_SHARED_DATA to point elsewhere); without it
# those lines say so and are skipped. RUNS (default 1) runs per measure.
# Needs: cargo, python3 (the reference ratio: `pip install -r scripts/reference/requirements.txt`).
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=${VERITY_SHARED_DATA:-../shared/data}
RUNS=${RUNS:-1}
ENSEMBLED="$DATA/openai-verified/ensembled_annotations_public.csv"

echo "building (release)..." >&2
source bench/lib.sh
cargo_build release -p verity-cli --bin verity
verity="$out/verity"

scratch

# measure CMD...: "seconds peak_mb" of the command, its own output discarded.
measure() {
  python3 bench/measure.py "$RUNS" sh -c 'exec "$@" > /dev/null' sh "$@" | tail -n 1
}

# line NAME SECONDS MB TARGET [EXTRA]
line() {
  printf '%-34s %9.2f s %8.0f MB   %s%s\n' "$1" "$2" "$3" "$4" "${5:+   $5}"
}

panel() {
  local raters=$1 project="$work/p$1.verity"
  python3 bench/scale_gen.py panel "$ENSEMBLED" "$raters" 1 "$work/panel$raters.csv"
  "$verity" --project "$project" init > /dev/null
  "$verity" --project "$project" import "$ENSEMBLED" "$work/panel$raters.csv" > /dev/null
  echo "$project"
}

if [[ -f $ENSEMBLED ]]; then
  for raters in 93 1000; do
    project=$(panel "$raters")
    read -r secs mb < <(measure "$verity" --project "$project" report --force --out "$work/report$raters")
    case $raters in
      93) line "report, 93 raters" "$secs" "$mb" "target: under 5 s" ;;
      *) line "report, 1,000 raters" "$secs" "$mb" "target: under 30 s" ;;
    esac
    if [[ $raters == 93 ]]; then
      read -r secs mb < <(measure "$verity" --project "$project" agreement --json)
      "$verity" --project "$project" agreement --json > "$work/agreement93.json"
      size=$(wc -c < "$work/agreement93.json")
      line "agreement --json, 93 raters" "$secs" "$mb" "target: under 2 MB" \
        "$(python3 -c "print(f'{$size / 1e6:.2f} MB of JSON')")"
    fi
  done
else
  echo "report, agreement --json: skipped, no $ENSEMBLED (set VERITY_SHARED_DATA)"
fi

if [[ -n ${VERITY_SCALE_PROJECT:-} ]]; then
  big=$VERITY_SCALE_PROJECT
  read -r secs mb < <(measure "$verity" --project "$big" agreement)
  ratio=""
  if python3 -c 'import krippendorff, pandas, statsmodels' 2> /dev/null; then
    # The same ratings for the reference libraries: raters' first submissions, one long-format
    # file per rated question, categories as their positions in the declared scale.
    "$verity" --project "$big" agreement --json > "$work/big.json"
    "$verity" --project "$big" export --format answers-jsonl --out "$work/answers.jsonl" > /dev/null
    python3 - "$work/big.json" "$work/answers.jsonl" "$work" << 'EOF'
import csv, json, sys
report = json.load(open(sys.argv[1]))
scales = {q["question"]: q["categories"] for q in report["questions"]}
files = {q: csv.writer(open(f"{sys.argv[3]}/ratings-{q}.csv", "w", newline="")) for q in scales}
for w in files.values():
    w.writerow(["unit", "rater", "value"])
for line in open(sys.argv[2], encoding="utf-8"):
    row = json.loads(line)
    for q, cats in scales.items():
        v = row["answers"].get(q)
        text = v if isinstance(v, str) else json.dumps(v)
        if text in cats:
            files[q].writerow([row["instance_id"], row["rater"], cats.index(text)])
EOF
    python_secs=0
    for file in "$work"/ratings-*.csv; do
      s=$(python3 bench/agreement_reference.py "$file" | sed -n 's/^seconds=//p')
      python_secs=$(python3 -c "print($python_secs + $s)")
    done
    ratio=$(python3 -c "print(f'{$secs / $python_secs:.2f}x the Python reference ({$python_secs:.2f} s, alpha x3 and Fleiss per question)')")
  fi
  line "agreement --project, 50k tasks" "$secs" "$mb" "target: under 2 s" "$ratio"
  for format in jsonl csv; do
    read -r secs mb < <(measure "$verity" --project "$big" export --format "$format" --force --out "$work/export.$format")
    line "export --format $format, 50k tasks" "$secs" "$mb" "target: streamed, under 200 MB"
  done
else
  echo "agreement --project, export: skipped, VERITY_SCALE_PROJECT names no 50,000-task project"
fi
