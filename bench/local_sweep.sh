#!/usr/bin/env bash
# A real model proposing sweeps, end to end on this machine: SmolLM2-135M-Instruct served by
# llama-cpp-python's server (bench/local_lib.sh) as the proposer of `verity sweep --model` on
# a few of the determinacy audit's tasks, given clones. Not part of CI.
#
#   bench/local_sweep.sh CLONES [N]
#
# CLONES holds clones as OWNER+NAME/repo (what `fetch` brings), OWNER/NAME.git or OWNER/NAME. The
# N (default 5) audited tasks with a clone whose issue and patches are shortest (the server's
# context is 8,192 tokens) are imported from SWE-bench Pro's rows alone (the audit's folders are
# not: nothing of its verdicts reaches the prompt). It reports how many of the audit's choices
# the model finds (one of its snippets verifies in a file where the audit verified one), what it
# proposed and what verified, and reruns every receipt: nothing unverified may show as verified.
#
# Environment: DATA (default ../shared/data), MAX_TOKENS (default 1024), PROFILE (default
# debug: the model's time dominates), VERITY_BENCH_CACHE (see bench/local_lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
source bench/local_lib.sh
clones=${1:?usage: bench/local_sweep.sh CLONES [N]}
n=${2:-5}
data=${DATA:-../shared/data}
build_verity
python3 - "$data" "$clones" "$n" "$work" <<'PY'
import glob, json, os, sys
data, clones, n, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = {}
for line in open(f"{data}/swebench-pro/instances.jsonl"):
    row = json.loads(line)
    rows[row["instance_id"]] = row
def clone_of(repo):
    for c in (f"{clones}/{repo.replace('/', '+')}/repo", f"{clones}/{repo}.git", f"{clones}/{repo}"):
        if os.path.isdir(c):
            return c
picked = []
for f in glob.glob(f"{data}/determinacy-audit/cases/*/codebase_ambiguity.json"):
    doc = json.load(open(f))
    row = rows.get(doc["iid"])
    if row and clone_of(row["repo"]):
        size = len(row["problem_statement"]) + len(row["patch"]) + len(row["test_patch"]) + len(row.get("requirements") or "")
        picked.append((size, doc["iid"], doc))
picked.sort()
picked = picked[:n]
with open(f"{work}/rows.jsonl", "w") as out:
    for _, iid, _ in picked:
        out.write(json.dumps(rows[iid]) + "\n")
json.dump({iid: doc for _, iid, doc in picked}, open(f"{work}/audit.json", "w"))
with open(f"{work}/clones", "w") as out:
    for repo in sorted({rows[iid]["repo"] for _, iid, _ in picked}):
        out.write(f"{repo} {clone_of(repo)}\n")
print(f"{len(picked)} tasks: " + ", ".join(f"{iid} ({size:,} bytes)" for size, iid, _ in picked))
PY
start_llama "$work"

export VERITY_PROJECT="$work/sweep.verity"
"$verity" init >/dev/null
"$verity" import "$work/rows.jsonl" >/dev/null
while read -r repo path; do "$verity" repo add "$repo" "$path" >/dev/null; done <"$work/clones"
"$verity" models add smol --endpoint "http://127.0.0.1:$port/v1" --model smollm2 \
  --temperature 0 --seed 1 --max-output-tokens "${MAX_TOKENS:-1024}" >/dev/null
start=$(date +%s.%N)
"$verity" sweep --all --model smol --concurrency 1 --json >"$work/results.json" 2>"$work/log" || true
end=$(date +%s.%N)
python3 - "$work" "$start" "$end" "$gguf" <<'PY'
import json, subprocess, sys
work, start, end, gguf = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
audit = json.load(open(f"{work}/audit.json"))
results = {r["iid"]: r for r in json.load(open(f"{work}/results.json"))}
clones = dict(line.split(None, 1) for line in open(f"{work}/clones").read().splitlines())
rows = {json.loads(l)["instance_id"]: json.loads(l)["repo"] for l in open(f"{work}/rows.jsonl")}
print(f"model: {gguf.rsplit('/', 1)[-1]} via llama-cpp-python's server; {end - start:.1f} s for {len(audit)} tasks")
found = proposed = verified = shown_wrongly = 0
for iid, doc in audit.items():
    r = results.get(iid)
    if r is None:
        print(f"  {iid}: no valid proposal")
        continue
    audit_paths = {s["verified_path"] for s in doc["verified"]}
    ok = [s for s in r["snippets"] if s["verified"]]
    proposed += len(r["snippets"])
    verified += len(ok)
    hit = any(s["verified_path"] in audit_paths or set(s["live_paths"]) & audit_paths for s in ok)
    found += hit
    for s in r["snippets"]:
        printed = subprocess.run(["sh", "-c", s["receipt"]["command"]], cwd=clones[rows[iid]], capture_output=True).stdout.decode("utf-8", "replace")
        if printed != s["receipt"]["prints"] or (s["verified"] and not s["live_paths"]) or (not s["verified"] and s["verified_path"]):
            shown_wrongly += 1
    print(f"  {iid}: tier {r['tier']}, {len(ok)} of {len(r['snippets'])} snippets verified; "
          f"choice {r['choice'][:90]!r}; the audit's: {doc['choice'][:90]!r}; found: {'yes' if hit else 'no'}")
print(f"the audit's choices found: {found} of {len(audit)}; snippets proposed {proposed}, verified {verified}; "
      f"receipts that do not reproduce or a verdict the receipt does not back: {shown_wrongly}")
PY
tail -n +1 "$work/log" | grep -v '^\s*$' | tail -8
