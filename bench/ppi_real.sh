#!/usr/bin/env bash
# Few humans on real data: SWE-bench Pro's development repositories (flipt, NodeBB, vuls: the
# repositories bench/audit.sh tunes on; nothing here looks at the others), the determinacy
# audit's verdicts as the panel's labels on uniform samples, and Verity's evidence risk with the
# sweep as the predictor on every task. Prints, per sample size, the prediction-powered share of
# underdetermined tasks and the labels-alone share with their intervals and widths, beside the
# full audit's share (bench/ppi_real.py).
#
#   bench/ppi_real.sh CLONES
#
# CLONES holds clones as OWNER+NAME/repo (what `fetch` brings), OWNER/NAME.git or OWNER/NAME,
# with the tasks' base commits. Environment: DATA (default ../shared/data), SIZES (default
# 50,100,150,200), DRAWS (samples of each size, default 20), OUT (default bench/work/ppi-real).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
clones=${1:?usage: bench/ppi_real.sh CLONES}
data=${DATA:-$root/../shared/data}
out_dir=${OUT:-$root/bench/work/ppi-real}
dev=(flipt-io/flipt NodeBB/NodeBB future-architect/vuls)
source bench/lib.sh
cargo_build release -p verity-cli --bin verity
verity=$out/verity

rm -rf "$out_dir"
mkdir -p "$out_dir/audit/cases"
# The development repositories' tasks, and their audit folders beside the audit's COVERAGE.md.
python3 - "$data" "$out_dir" "${dev[@]}" <<'PY'
import json, os, shutil, sys
data, out, repos = sys.argv[1], sys.argv[2], set(sys.argv[3:])
kept = set()
with open(f"{out}/tasks.jsonl", "w") as fh:
    for line in open(f"{data}/swebench-pro/instances.jsonl"):
        row = json.loads(line)
        if row["repo"] in repos:
            fh.write(line)
            kept.add(row["instance_id"])
cases = f"{data}/determinacy-audit/cases"
for slug in sorted(os.listdir(cases)):
    iid = open(f"{cases}/{slug}/instance_id.txt").read().strip()
    if iid in kept or iid.removeprefix("instance_") in kept:
        shutil.copytree(f"{cases}/{slug}", f"{out}/audit/cases/{slug}")
shutil.copy(f"{data}/determinacy-audit/COVERAGE.md", f"{out}/audit/COVERAGE.md")
PY
project=$out_dir/base.verity
"$verity" --project "$project" init --questionnaire determinacy >/dev/null
"$verity" --project "$project" import "$out_dir/tasks.jsonl" "$out_dir/audit/cases" >/dev/null
for repo in "${dev[@]}"; do
  for c in "$clones/${repo/\//+}/repo" "$clones/$repo.git" "$clones/$repo"; do
    if [[ -d "$c" ]]; then "$verity" --project "$project" repo add "$repo" "$c" >/dev/null; break; fi
  done
done
echo "== evidence --all and the audit's proposals swept (the risk the predictor is)" >&2
"$verity" --project "$project" evidence --all >/dev/null
python3 - "$out_dir/audit/cases" "$out_dir/proposals.json" <<'PY'
import glob, json, sys
docs = [json.load(open(f)) for f in sorted(glob.glob(f"{sys.argv[1]}/*/codebase_ambiguity.json"))]
json.dump(docs, open(sys.argv[2], "w"))
PY
"$verity" --project "$project" sweep --proposals "$out_dir/proposals.json" >/dev/null
python3 bench/ppi_real.py "$verity" "$project" "$out_dir" "${SIZES:-50,100,150,200}" "${DRAWS:-20}"
