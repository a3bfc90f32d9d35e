#!/usr/bin/env bash
# Import speed and memory: the 731 SWE-bench Pro instances plus the 731 audit folders into a new
# project (targets: under 2 s, peak memory under 200 MB), beside a Python script that only parses
# the same inputs (json.loads per line, reading every folder's files) and stores nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${VERITY_DATA:-../shared/data}
pro=$data/swebench-pro/instances.jsonl
cases=$data/determinacy-audit/cases
[ -f "$pro" ] && [ -d "$cases" ] || { echo "bench/import: needs $pro and $cases" >&2; exit 2; }
runs=${RUNS:-5}

source bench/lib.sh
cargo_build release -p verity-cli --bin verity
verity=$out/verity
scratch

cat >"$work/import.sh" <<SH
#!/usr/bin/env bash
set -e
p="$work/p\$VERITY_BENCH_RUN.verity"
"$verity" --project "\$p" init >/dev/null
exec "$verity" --project "\$p" import "$pro" "$cases" >/dev/null
SH
cat >"$work/parse.py" <<'PY'
import json, os, sys
pro, cases = sys.argv[1], sys.argv[2]
rows = [json.loads(line) for line in open(pro, encoding="utf-8")]
folders = 0
for slug in sorted(os.listdir(cases)):
    d = os.path.join(cases, slug)
    for name in os.listdir(d):
        with open(os.path.join(d, name), encoding="utf-8") as f:
            f.read()
    folders += 1
assert len(rows) == 731 and folders == 731
PY
chmod +x "$work/import.sh"

read -r v_time v_mem < <(python3 bench/measure.py "$runs" "$work/import.sh")
read -r p_time p_mem < <(python3 bench/measure.py "$runs" python3 "$work/parse.py" "$pro" "$cases")
ratio=$(python3 -c "print(f'{$v_time/$p_time:.2f}')")
echo "Import of 731 Pro instances + 731 audit folders (median of $runs runs, $(nproc) cores)"
printf '%-52s %9s %10s\n' "" "seconds" "peak MB"
printf '%-52s %9s %10s\n' "verity init + import (into SQLite, all or nothing)" "$v_time" "$v_mem"
printf '%-52s %9s %10s\n' "python3: parse the same inputs, store nothing" "$p_time" "$p_mem"
echo "ratio verity / python parse-only: $ratio   (targets: verity < 2 s, < 200 MB)"
