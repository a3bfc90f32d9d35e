#!/usr/bin/env bash
# Replays the determinacy audit's proposals through `verity sweep`, given clones.
#
#   bench/sweep.sh CLONES
#
# CLONES holds clones as OWNER+NAME/repo (what `fetch` brings), OWNER/NAME.git or OWNER/NAME.
# It imports SWE-bench Pro's rows and the audit's folders into a throwaway project, registers
# every audited repository that has a clone there, and then:
#   1. sweeps every proposal of those repositories (`codebase_ambiguity.json`) in one cold
#      process, timed, and one task's proposal alone;
#   2. counts the snippets that verify against the audit's (every one was verified by the
#      audit's first-line grep), and the audit's verified_paths that do not hold the whole
#      snippet;
#   3. reruns every receipt with sh -c in its clone and compares what it prints with the
#      receipt's `prints`;
#   4. sweeps negatives made from them (one identifier changed on one line; a test file's
#      lines claimed as live code), none of which may verify, and positives re-indented or
#      with other line-end whitespace, all of which must;
#   5. serves the same proposals from the tests' Chat Completions server (examples/chat_serve.rs
#      --answers), as a model proposing what the audit's model proposed, and runs
#      `verity sweep --all --model` over a project of those tasks: its verified lists, receipts
#      and tiers must be --proposals' (timed: Verity's part, the server answering at once).
# Environment: VERITY (binary; default: a release build of this tree), DATA (default
# ../shared/data), OUT (default bench/work/sweep).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
clones=${1:?usage: bench/sweep.sh CLONES}
data=${DATA:-$root/../shared/data}
audit=$data/determinacy-audit
out=${OUT:-$here/work/sweep}
cargo build --quiet --release -p verity-testkit --example chat_serve --manifest-path "$root/Cargo.toml"
chat_serve=$root/target/release/examples/chat_serve
if [[ -z "${VERITY:-}" ]]; then
  cargo build --quiet --release -p verity-cli --bin verity --manifest-path "$root/Cargo.toml"
  VERITY=$root/target/release/verity
fi
[[ -d "$audit/cases" ]] || { echo "no audit at $audit" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out"
project=$out/sweep.verity
"$VERITY" init --project "$project" --questionnaire determinacy >/dev/null
"$VERITY" import --project "$project" "$data/swebench-pro/instances.jsonl" "$audit/cases" >/dev/null
: >"$out/clones"
for repo in $(python3 -c '
import glob, json, sys
repos = set()
for f in glob.glob(sys.argv[1] + "/*/codebase_ambiguity.json"):
    iid = json.load(open(f))["iid"]
    repos.add(iid)
rows = {}
for line in open(sys.argv[2]):
    row = json.loads(line)
    rows[row["instance_id"]] = row["repo"]
print("\n".join(sorted({rows[i] for i in repos if i in rows})))' "$audit/cases" "$data/swebench-pro/instances.jsonl"); do
  for c in "$clones/${repo/\//+}/repo" "$clones/$repo.git" "$clones/$repo"; do
    if [[ -d "$c" ]]; then
      "$VERITY" repo add --project "$project" "$repo" "$c" >/dev/null
      echo "$repo $c" >>"$out/clones"
      break
    fi
  done
done
[[ -s "$out/clones" ]] || { echo "no clone of any audited repository under $clones" >&2; exit 2; }

python3 "$here/sweep_cases.py" make "$audit/cases" "$data/swebench-pro/instances.jsonl" "$out"

echo "== sweep: every proposal of $(wc -l <"$out/clones") repositories, one cold process"
/usr/bin/time -f "%e %M" -o "$out/time" "$VERITY" -v sweep --project "$project" --json \
  --proposals "$out/proposals.json" >"$out/results.json" 2>"$out/log"
read -r wall rss <"$out/time"
echo "wall ${wall} s, peak RSS $((rss / 1024)) MB"
python3 - "$out/log" <<'PY'
import re, statistics, sys
ms = [int(m) for m in re.findall(r"swept a proposal.*?elapsed_ms=(\d+)", open(sys.argv[1]).read())]
if ms:
    print(f"per proposal (Verity's part, in the process): median {statistics.median(ms)} ms, max {max(ms)} ms, over {len(ms)}")
PY
one=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["iid"])' "$out/proposals.json")
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump(d[0], open(sys.argv[2], "w"))' \
  "$out/proposals.json" "$out/one.json"
for run in 1 2 3; do
  /usr/bin/time -f "%e" -o "$out/time-one" "$VERITY" sweep --project "$project" --json \
    --proposals "$out/one.json" >/dev/null
  echo "one task's sweep ($one), run $run: $(cat "$out/time-one") s (the whole process)"
done

echo "== negatives and whitespace variants"
"$VERITY" sweep --project "$project" --json --proposals "$out/negatives.json" >"$out/negative-results.json"
"$VERITY" sweep --project "$project" --json --proposals "$out/variants.json" >"$out/variant-results.json"

echo "== a served proposer: sweep --all --model"
model_project=$out/model.verity
"$VERITY" init --project "$model_project" --questionnaire determinacy >/dev/null
"$VERITY" import --project "$model_project" "$out/rows.jsonl" >/dev/null
while read -r repo path; do
  "$VERITY" repo add --project "$model_project" "$repo" "$path" >/dev/null
done <"$out/clones"
mkdir -p "$out/server"
"$chat_serve" "$out/server" --answers "$out/answers.json" 2>/dev/null &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 300); do [[ -s "$out/server/port" ]] && break; sleep 0.1; done
"$VERITY" models add --project "$model_project" audit-proposer \
  --endpoint "http://127.0.0.1:$(cat "$out/server/port")/v1" --model audit-replay >/dev/null
/usr/bin/time -f "%e %M" -o "$out/time-model" "$VERITY" sweep --project "$model_project" --all \
  --model audit-proposer --json >"$out/model-results.json" 2>"$out/model-log"
read -r wall rss <"$out/time-model"
tail -1 "$out/model-log"
echo "wall ${wall} s, peak RSS $((rss / 1024)) MB (requests, replies stored, verifying, storing)"
kill "$server" 2>/dev/null || true

echo "== score"
python3 "$here/sweep_cases.py" score "$audit/cases" "$data/swebench-pro/instances.jsonl" "$out"
