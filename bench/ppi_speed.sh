#!/usr/bin/env bash
# Speed and memory of prediction-powered estimates at scale: TASKS tasks, a model rater that
# rated every one (served by the tests' Chat Completions server, right on most), a recorded
# random sample of LABELLED tasks answered by three humans, and SYSTEMS systems' results; then
# `verity estimate --label underspecified>=2 --predictor model:gpt` and `verity scores
# --predictor model:gpt --bootstrap 0` (each system's rate and every pair's difference from the
# sample), release build, medians of RUNS runs with the peak RSS. The project is made first and
# not timed. Target: each under 1 s and 200 MB.
#
#   TASKS=50000 LABELLED=1000 SYSTEMS=20 RUNS=5
#   PPI_SPEED_WORK=   a folder for the project, kept after (a temporary one by default)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

TASKS=${TASKS:-50000}
LABELLED=${LABELLED:-1000}
SYSTEMS=${SYSTEMS:-20}
RUNS=${RUNS:-5}

echo "building (release)..." >&2
cargo_build release -p verity-cli --bin verity -p verity-testkit --example chat_serve
verity=$out/verity
if [ -n "${PPI_SPEED_WORK:-}" ]; then
  work=$PPI_SPEED_WORK
  rm -rf "$work"
  mkdir -p "$work"
  keep=1
else
  scratch
  keep=0
fi
project=$work/p.verity
v() { "$verity" --project "$project" "$@"; }

echo "making $TASKS tasks, the model's answers and $SYSTEMS systems' results..." >&2
python3 - "$work" "$TASKS" "$SYSTEMS" annotations/tests/fixtures/swebench.jsonl <<'PY'
import json, random, sys
work, tasks, systems, fixture = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
random.seed(42)
base = json.loads(open(fixture).readline())
note = "The issue says what to change and the tests check that and nothing else; a careful reader would write the same fix."
truth = {}
with open(f"{work}/tasks.jsonl", "w") as fh:
    for i in range(tasks):
        row = dict(base, instance_id=f"acme__calc-{100000 + i}")
        fh.write(json.dumps(row) + "\n")
        truth[row["instance_id"]] = random.random() < 0.2
def answer(u):
    return {"underspecified": u, "underspecified_notes": note, "false_negative": 0, "false_negative_notes": note,
            "difficulty": "<15 min fix", "difficulty_notes": "One guard.", "other_major_issues": 0, "annotator_confidence": 4}
replies = {t: answer(2 if (u != (random.random() < 0.1)) else 0) for t, u in truth.items()}
json.dump(replies, open(f"{work}/replies.json", "w"))
json.dump({t: answer(2 if u else 0) for t, u in truth.items()}, open(f"{work}/truth.json", "w"))
for s in range(systems):
    rate = 0.1 + 0.6 * s / max(1, systems - 1)
    with open(f"{work}/system{s:03}.csv", "w") as fh:
        fh.write("instance_id,resolved\n")
        for t, u in truth.items():
            fh.write(f"{t},{int(random.random() < (rate / 3 if u else rate))}\n")
PY
v init >/dev/null
v import "$work/tasks.jsonl" >/dev/null
mkdir -p "$work/chat"
"$out/examples/chat_serve" "$work/chat" --answers "$work/replies.json" 2>/dev/null &
chat_pid=$!
trap 'kill "$chat_pid" 2>/dev/null || true; [ "$keep" = 1 ] || rm -rf "$work"' EXIT
for _ in $(seq 300); do [ -s "$work/chat/port" ] && break; sleep 0.1; done
v models add gpt --endpoint "http://127.0.0.1:$(cat "$work/chat/port")/v1" --model m --api-key-env VERITY_BENCH_KEY >/dev/null
start=$(date +%s)
VERITY_BENCH_KEY=none v models rate gpt --all --concurrency 16 | tail -1 >&2
echo "the model rated $TASKS tasks in $(( $(date +%s) - start )) s (not timed below)" >&2
kill "$chat_pid"
for r in ana ben chloe; do v raters add "$r" >/dev/null; done
v assign --sample "$LABELLED" --seed 1 --per-case 3 >/dev/null
echo "three humans answer the $LABELLED sampled tasks..." >&2
python3 - "$verity" "$project" "$work" <<'PY'
import json, subprocess, sys
verity, project, work = sys.argv[1:4]
truth = json.load(open(f"{work}/truth.json"))
for rater in ["ana", "ben", "chloe"]:
    queue = json.loads(subprocess.check_output([verity, "--project", project, "queue", "--as", rater, "--json"]))
    for item in queue:
        path = f"{work}/answer.json"
        open(path, "w").write(json.dumps(truth[item["instance_id"]]))
        subprocess.check_call([verity, "--project", project, "answer", "--rater", rater, "--case", item["instance_id"], "--file", path, "--submit"], stdout=subprocess.DEVNULL)
PY
v results import "$work"/system*.csv >/dev/null

# Each measured command in a script of its own that discards what it prints.
quiet() {
  local name=$1
  shift
  printf '#!/usr/bin/env bash\nexec %q --project %q' "$verity" "$project" >"$work/$name.sh"
  printf ' %q' "$@" >>"$work/$name.sh"
  printf ' >/dev/null\n' >>"$work/$name.sh"
  chmod +x "$work/$name.sh"
}
quiet estimate estimate --label 'underspecified>=2' --predictor model:gpt --json
quiet scores_ppi scores --predictor model:gpt --bootstrap 0 --json
quiet scores scores --bootstrap 0 --json
measure() { python3 bench/measure.py "$RUNS" "$work/$1.sh"; }
read -r et em < <(measure estimate)
read -r st sm < <(measure scores_ppi)
read -r bt bm < <(measure scores)
v estimate --label 'underspecified>=2' --predictor model:gpt | head -3
printf '%-70s %8s %8s\n' "" "s" "peak MB"
printf '%-70s %8s %8s\n' "estimate, $TASKS tasks, $LABELLED labelled, model:gpt" "$et" "$em"
printf '%-70s %8s %8s\n' "scores --predictor model:gpt, $SYSTEMS systems ($(( SYSTEMS * (SYSTEMS - 1) / 2 )) pairs)" "$st" "$sm"
printf '%-70s %8s %8s\n' "scores without a predictor (the same project, for comparison)" "$bt" "$bm"
echo "target: each under 1 s and 200 MB"
