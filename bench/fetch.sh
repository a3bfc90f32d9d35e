#!/usr/bin/env bash
# Fetching a dataset from the Hub (a benchmark, not a timed test): a 2,300-row split of
# SWE-bench Verified's size (full SWE-bench's test split is 2,294 rows), one Parquet file served
# by a Hub on 127.0.0.1 (crates/testkit/examples/hub_serve.rs), fetched and imported by
# `verity fetch` into a new project with an empty cache each run (target: under 3 s in all,
# import included); then again from the cache; beside `verity import` of the same rows as JSON
# lines, which downloads nothing. Then bench/clone.sh, when present, for `verity repo clone`.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${ROWS:-2300}
runs=${RUNS:-5}

echo "building (release)..." >&2
source bench/lib.sh
cargo_build release -p verity-cli --bin verity -p verity-testkit --example hub_serve
verity=$out/verity
work=$(mktemp -d)
"$out/examples/hub_serve" "$rows" "$work" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done
endpoint=http://127.0.0.1:$(cat "$work/port")

cat >"$work/fetch.sh" <<SH
#!/usr/bin/env bash
set -e
p="$work/\$1\$VERITY_BENCH_RUN.verity"
cache="$work/cache\$VERITY_BENCH_RUN"
[ "\$1" = cached ] && cache="$work/cache-warm"
"$verity" --project "\$p" init >/dev/null
HF_ENDPOINT=$endpoint HF_HUB_CACHE="\$cache" HF_HOME="$work/home" \
  exec "$verity" --project "\$p" fetch bench/swe-bench >/dev/null
SH
cat >"$work/import.sh" <<SH
#!/usr/bin/env bash
set -e
p="$work/jsonl\$VERITY_BENCH_RUN.verity"
"$verity" --project "\$p" init >/dev/null
exec "$verity" --project "\$p" import "$work/rows.jsonl" >/dev/null
SH
chmod +x "$work/fetch.sh" "$work/import.sh"
# The warm cache: one fetch before the timed ones.
bash "$work/fetch.sh" warmup >/dev/null

read -r f_time f_mem < <(python3 bench/measure.py "$runs" "$work/fetch.sh" cold)
read -r c_time c_mem < <(python3 bench/measure.py "$runs" "$work/fetch.sh" cached)
read -r i_time i_mem < <(python3 bench/measure.py "$runs" "$work/import.sh")
mb=$(du -m "$work/rows.jsonl" | cut -f1)
echo "Fetch of a $rows-row split ($mb MB as JSON lines; median of $runs runs, $(nproc) cores)"
printf '%-60s %9s %10s\n' "" "seconds" "peak MB"
printf '%-60s %9s %10s\n' "verity init + fetch (download, check, import), empty cache" "$f_time" "$f_mem"
printf '%-60s %9s %10s\n' "verity init + fetch, from the cache" "$c_time" "$c_mem"
printf '%-60s %9s %10s\n' "verity init + import of the same rows as JSON lines" "$i_time" "$i_mem"
echo "ratio fetch (empty cache) / JSON-lines import: $(python3 -c "print(f'{$f_time/$i_time:.2f}')")   (target: fetch < 3 s)"

if [ -x bench/clone.sh ]; then
  echo
  bash bench/clone.sh
fi
