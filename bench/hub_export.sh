#!/usr/bin/env bash
# A 50,000-task project published as a Hugging Face dataset (issue 41); a benchmark, not a timed
# test. Tasks of SWE-bench Pro's size (bench/scale_gen.py, from ../shared/data's 731 Pro rows),
# three raters with every task and their 150,000 answers, then `verity export --format hub
# --subset all`: its time and peak memory against the targets (under 10 s, under 300 MB), and
# the tasks' Parquet against the JSON lines they were imported from (at most half; the generated
# rows are copies, which compress far better than real ones, so the ratio is also measured on
# the 731 real Pro rows alone); then `verity publish` of the folder to a Hub on 127.0.0.1
# (crates/testkit/examples/hub_serve.rs).
#
#   TASKS=50000   tasks to generate
#   RUNS=3        runs of the export (the median is printed)
#   SCALE_WORK=   a folder for the data (about 4 GB; a temporary one by default, removed after)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
data=${VERITY_DATA:-../shared/data}
pro=$data/swebench-pro/instances.jsonl
[ -f "$pro" ] || { echo "bench/hub_export: needs $pro" >&2; exit 2; }
tasks=${TASKS:-50000}
runs=${RUNS:-3}

echo "building (release)..." >&2
source bench/lib.sh
cargo_build release -p verity-cli --bin verity -p verity-testkit --example hub_serve
verity=$out/verity
if [ -n "${SCALE_WORK:-}" ]; then
  work=$SCALE_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
fi
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  [ -n "${SCALE_WORK:-}" ] || rm -rf "$work"
  return 0
}
trap cleanup EXIT
project=$work/hub.verity

if [ ! -f "$project" ]; then
  echo "generating $tasks tasks and their answers..." >&2
  python3 bench/scale_gen.py tasks "$pro" "$tasks" "$work/tasks.jsonl"
  python3 bench/scale_gen.py answers "$work/tasks.jsonl" 3 3 7 "$work/answers.csv"
  echo "importing..." >&2
  "$verity" --project "$project" init >/dev/null
  "$verity" --project "$project" import "$work/tasks.jsonl" >/dev/null
  for r in 1 2 3; do "$verity" --project "$project" raters add "$r" >/dev/null; done
  "$verity" --project "$project" assign --per-case 3 >/dev/null
  "$verity" --project "$project" import "$work/answers.csv" >/dev/null
fi

cat >"$work/export.sh" <<EOF
#!/usr/bin/env bash
exec "$verity" --project "$project" export --format hub --license mit --subset all --out "$work/dataset" --force >/dev/null
EOF
chmod +x "$work/export.sh"
echo "exporting ($runs runs)..." >&2
read -r t m < <(python3 "$root/bench/measure.py" "$runs" "$work/export.sh")
jsonl=$(stat -c %s "$work/tasks.jsonl")
parquet=$(du -cb "$work"/dataset/data/*.parquet | tail -1 | cut -f1)
notes=$(du -cb "$work"/dataset/annotations/*.parquet | tail -1 | cut -f1)
shards=$(ls "$work"/dataset/data/*.parquet | wc -l)

# The same ratio on the real rows, which do not repeat.
rm -f "$work"/real.verity*
"$verity" --project "$work/real.verity" init >/dev/null
"$verity" --project "$work/real.verity" import "$pro" >/dev/null
"$verity" --project "$work/real.verity" export --format hub --license mit --subset all --out "$work/real" --force >/dev/null
real_jsonl=$(stat -c %s "$pro")
real_parquet=$(du -cb "$work"/real/data/*.parquet | tail -1 | cut -f1)

token=hf_bench_token
mkdir -p "$work/hub"
"$out/examples/hub_serve" 0 "$work/hub" --token "$token" >/dev/null 2>&1 &
server=$!
for _ in $(seq 300); do [ -s "$work/hub/port" ] && break; sleep 0.1; done
cat >"$work/publish.sh" <<EOF
#!/usr/bin/env bash
HF_ENDPOINT=http://127.0.0.1:$(cat "$work/hub/port") HF_TOKEN=$token HF_HOME="$work/home" \\
  exec "$verity" publish bench/panel-\$VERITY_BENCH_RUN --folder "$work/dataset" >/dev/null
EOF
chmod +x "$work/publish.sh"
echo "publishing..." >&2
read -r pt pm < <(python3 "$root/bench/measure.py" 1 "$work/publish.sh")

echo "Hub dataset of $tasks tasks of SWE-bench Pro's size, 3 raters ($(nproc) cores)"
printf '%-62s %10s %10s   %s\n' "" "value" "" ""
printf '%-62s %10s %10s   %s\n' "verity export --format hub --subset all (s / peak MB, median of $runs)" "$t" "$m" "target < 10 s, < 300 MB"
printf '%-62s %10s %10s   %s\n' "tasks' Parquet (MB / share of the JSON lines, $shards shards)" "$((parquet / 1000000))" "$(python3 -c "print(f'{$parquet/$jsonl:.3f}')")" "target <= 0.50; JSON lines $((jsonl / 1000000)) MB"
printf '%-62s %10s %10s   %s\n' "the 731 real Pro rows' Parquet (MB / share of their JSON lines)" "$((real_parquet / 1000000))" "$(python3 -c "print(f'{$real_parquet/$real_jsonl:.3f}')")" "target <= 0.50"
printf '%-62s %10s %10s   %s\n' "annotations' Parquet (MB)" "$((notes / 1000000))" "" ""
printf '%-62s %10s %10s   %s\n' "verity publish to a Hub on 127.0.0.1 (s / peak MB)" "$pt" "$pm" "LFS for every shard"
