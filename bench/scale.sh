#!/usr/bin/env bash
# Scale (issue 15): a project of 50,000 tasks of SWE-bench Pro's size (a 1.67 GB JSON lines
# file, made from ../shared/data's 731 Pro rows by bench/scale_gen.py), three raters with every
# task each, and their 150,000 answers. A benchmark, not a timed test: it prints one table of
# figures against the issue's targets, then the dictionary measurement, the statistics and
# exports at scale (bench/scale_stats.sh: agreement and export on this project, report on
# OpenAI-sized panels) and the app at scale (bench/scale_app.sh, on a copy of the project).
#
#   TASKS=50000   tasks to generate
#   SCALE_WORK=   a folder for the data (about 5 GB; a temporary one by default, removed after)
#   SCALE_APP=1   also measure the desktop app (0 skips it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
data=${VERITY_DATA:-../shared/data}
pro=$data/swebench-pro/instances.jsonl
[ -f "$pro" ] || { echo "bench/scale: needs $pro" >&2; exit 2; }
tasks=${TASKS:-50000}

echo "building (release)..." >&2
source bench/lib.sh
cargo_build release -p verity-cli --bin verity -p verity-store --example zstd_dictionary
verity=$out/verity
if [ -n "${SCALE_WORK:-}" ]; then
  work=$SCALE_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
project=$work/scale.verity
measure() { python3 "$root/bench/measure.py" 1 "$@"; }
rows=()
row() { rows+=("$(printf '%-58s %10s %10s   %s' "$1" "$2" "$3" "$4")"); }

echo "generating $tasks tasks..." >&2
python3 bench/scale_gen.py tasks "$pro" "$tasks" "$work/tasks.jsonl"
jsonl_bytes=$(stat -c %s "$work/tasks.jsonl")

cat >"$work/import.sh" <<SH
#!/usr/bin/env bash
set -e
rm -f "$project" "$project-wal" "$project-shm"
"$verity" --project "$project" init >/dev/null
exec "$verity" --project "$project" import "$work/tasks.jsonl" >/dev/null
SH
cat >"$work/parse.py" <<'PY'
import json, sys
n = sum(1 for line in open(sys.argv[1], encoding="utf-8") if json.loads(line))
PY
chmod +x "$work/import.sh"
echo "importing..." >&2
read -r t m < <(measure "$work/import.sh")
read -r pt pm < <(measure python3 "$work/parse.py" "$work/tasks.jsonl")
row "import $(numfmt --to=si "$jsonl_bytes")B of JSON lines (s / peak MB)" "$t" "$m" "target < 20 s, < 200 MB; python json.loads of each line: $pt s ($(python3 -c "print(f'{$t/$pt:.2f}')")x)"
project_bytes=$(stat -c %s "$project")
row "project file (MB / share of the JSON lines)" "$((project_bytes / 1000000))" "$(python3 -c "print(f'{$project_bytes/$jsonl_bytes:.2f}')")" "target <= 0.60"

read -r t m < <(measure sh -c "'$verity' --project '$project' cases --json >/dev/null")
row "verity cases --json (s / peak MB)" "$t" "$m" "target < 1 s"

for r in 1 2 3; do "$verity" --project "$project" raters add "$r" >/dev/null; done
read -r t m < <(measure sh -c "'$verity' --project '$project' assign --per-case 3 >/dev/null")
row "verity assign --per-case 3 (s / peak MB)" "$t" "$m" "target < 2 s"

echo "answering..." >&2
python3 bench/scale_gen.py answers "$work/tasks.jsonl" 3 3 7 "$work/answers.csv"
read -r t m < <(measure sh -c "'$verity' --project '$project' import '$work/answers.csv' >/dev/null")
row "import 150,000 answers, OpenAI's per-annotator CSV (s / MB)" "$t" "$m" ""

echo
echo "Scale: $tasks tasks, 3 raters, 3 assignments per task ($(nproc) cores, one run each)"
printf '%-58s %10s %10s   %s\n' "" "value" "" ""
printf '%s\n' "${rows[@]}"
echo
"$out/examples/zstd_dictionary" "$pro"
echo
VERITY_SCALE_PROJECT=$project bash bench/scale_stats.sh
if [ "${SCALE_APP:-1}" != 0 ]; then
  echo
  VERITY_SCALE_PROJECT=$project bash bench/scale_app.sh
fi
