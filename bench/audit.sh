#!/usr/bin/env bash
# Scores the evidence engine against the determinacy audit of SWE-bench Pro, given clones.
#
#   bench/audit.sh CLONES [OWNER/NAME...]
#
# CLONES is a folder holding clones as OWNER+NAME/repo (what `fetch` brings), OWNER/NAME.git
# (Verity's repository cache) or OWNER/NAME. With no repositories named, every audited
# repository that has a clone there is used. Tasks of flipt-io/flipt, NodeBB/NodeBB and
# future-architect/vuls are the development set; every other repository is held out, and the
# score prints the two apart (bench/audit_score.py).
#
# It imports SWE-bench Pro's rows and the audit's folders into a throwaway project, registers
# the clones, and runs `verity evidence --all` once (peak RSS and wall time reported). Then it
# writes every report to $OUT/reports.jsonl, sweeps the audit's own proposals of those tasks
# (`verity sweep --proposals`), scores the reports and the risk `verity cases --sort risk` orders
# by (the evidence's, moved by each task's sweep), and times a cold `verity evidence` against
# `git grep -F -l` with the same terms on a sample of tasks per repository.
#
# Environment: VERITY (binary; default: a release build of this tree), DATA (default
# ../shared/data), OUT (default bench/work/audit), SAMPLE (tasks per repository for the
# speed ratio, default 8).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
clones=${1:?usage: bench/audit.sh CLONES [OWNER/NAME...]}
shift
data=${DATA:-$root/../shared/data}
audit=$data/determinacy-audit
out=${OUT:-$here/work/audit}
sample=${SAMPLE:-8}
if [[ -z "${VERITY:-}" ]]; then
  cargo build --quiet --release -p verity-cli --bin verity --manifest-path "$root/Cargo.toml"
  VERITY=$root/target/release/verity
fi
[[ -d "$audit/cases" ]] || { echo "no audit at $audit" >&2; exit 2; }

clone_of() {
  local repo=$1 c
  for c in "$clones/${repo/\//+}/repo" "$clones/$repo.git" "$clones/$repo"; do
    [[ -d "$c" ]] && { echo "$c"; return 0; }
  done
  return 1
}

repos=("$@")
if [[ ${#repos[@]} -eq 0 ]]; then
  mapfile -t repos < <(python3 -c '
import json, sys
seen = []
for line in open(sys.argv[1]):
    repo = json.loads(line)["repo"]
    if repo not in seen:
        seen.append(repo)
print("\n".join(seen))' "$data/swebench-pro/instances.jsonl")
fi

rm -rf "$out"
mkdir -p "$out"
project=$out/audit.verity
"$VERITY" init --project "$project" --questionnaire determinacy >/dev/null
"$VERITY" import --project "$project" "$data/swebench-pro/instances.jsonl" "$audit/cases" >/dev/null
used=()
for repo in "${repos[@]}"; do
  if path=$(clone_of "$repo"); then
    "$VERITY" repo add --project "$project" "$repo" "$path"
    used+=("$repo")
  fi
done
[[ ${#used[@]} -gt 0 ]] || { echo "no clone of any audited repository under $clones" >&2; exit 2; }

echo "== evidence --all"
/usr/bin/time -f "%e %M" -o "$out/time" "$VERITY" evidence --all --project "$project" | tail -2
read -r wall rss <"$out/time"
echo "wall ${wall} s, peak RSS $((rss / 1024)) MB"

echo "== reports"
"$VERITY" cases --project "$project" --json | python3 -c '
import json, sys
used = set(sys.argv[1:])
for row in json.load(sys.stdin):
    if row["repo"] in used and row.get("base_commit"):
        print(row["instance_id"])' "${used[@]}" >"$out/cases"
: >"$out/reports.jsonl"
while read -r id; do
  "$VERITY" evidence --project "$project" "$id" --json 2>/dev/null | tr -d '\n' >>"$out/reports.jsonl" || true
  echo >>"$out/reports.jsonl"
done <"$out/cases"

echo "== the audit's proposals swept (verity sweep --proposals), risk as verity cases orders it"
python3 - "$audit/cases" "$out/cases" "$out/proposals.json" <<'PY'
import glob, json, sys
cases, held, out = sys.argv[1], set(open(sys.argv[2]).read().split()), sys.argv[3]
docs = [json.load(open(f)) for f in sorted(glob.glob(f"{cases}/*/codebase_ambiguity.json"))]
kept = [d for d in docs if d["iid"] in held]
json.dump(kept, open(out, "w"))
print(f"{len(kept)} of the audit's {len(docs)} proposals are of tasks with a clone here")
PY
/usr/bin/time -f "%e %M" -o "$out/sweep-time" "$VERITY" sweep --project "$project" --proposals "$out/proposals.json" --json >"$out/sweep.json"
read -r wall rss <"$out/sweep-time"
echo "swept in ${wall} s, peak RSS $((rss / 1024)) MB"
"$VERITY" cases --project "$project" --json --sort risk >"$out/cases.json"
python3 "$here/audit_score.py" "$audit" "$out/reports.jsonl" --cases "$out/cases.json" | tee "$out/score.txt"

[[ "$sample" -gt 0 ]] || exit 0
echo "== cold speed against git grep -F -l, $sample tasks per repository"
python3 "$here/audit_speed.py" "$VERITY" "$project" "$out/reports.jsonl" "$sample" "${used[@]}"
