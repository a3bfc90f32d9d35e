#!/usr/bin/env bash
# Model raters at scale against the tests' Chat Completions server (examples/chat_serve.rs)
# answering each request in 50 ms: 2,000 tasks rated by `verity models rate --concurrency 8`,
# release build. Targets: wall time within 1.2x the floor the server sets (2,000 x 50 ms / 8 =
# 12.5 s) and peak memory under 150 MB (bench/measure.py); and the prompt of a task with a
# 5,000-line patch built in under 20 ms (examples/model_prompt_speed.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
TASKS=${TASKS:-2000}
CONCURRENCY=${CONCURRENCY:-8}
LATENCY_MS=${LATENCY_MS:-50}
# PROFILE=debug measures the debug build (no release build needed; slower, not the target's).
PROFILE=${PROFILE:-release}
source bench/lib.sh
cargo_build "$PROFILE" -p verity-cli --bin verity -p verity-testkit --example chat_serve -p annotations --example model_prompt_speed
work=$(mktemp -d)
"$out/examples/chat_serve" "$work" --latency-ms "$LATENCY_MS" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 300); do [ -s "$work/port" ] && break; sleep 0.1; done
python3 - "$TASKS" "$work/tasks.jsonl" <<'PY'
import json, sys
n, out = int(sys.argv[1]), sys.argv[2]
first = json.loads(open("annotations/tests/fixtures/swebench.jsonl").readline())
with open(out, "w") as f:
    for i in range(n):
        first["instance_id"] = f"acme__calc-{10000 + i}"
        f.write(json.dumps(first) + "\n")
PY
export VERITY_PROJECT="$work/bench.verity"
verity="$out/verity"
"$verity" init >/dev/null
"$verity" import "$work/tasks.jsonl" >/dev/null
"$verity" models add bench --endpoint "http://127.0.0.1:$(cat "$work/port")/v1" --model bench-model >/dev/null
read -r wall peak < <(python3 bench/measure.py 1 bash -c 'exec "$0" "$@" >/dev/null' "$verity" models rate bench --all --concurrency "$CONCURRENCY" --json)
floor=$(python3 -c "print($TASKS * $LATENCY_MS / 1000 / $CONCURRENCY)")
rated=$("$verity" raters list --json | python3 -c 'import json,sys; print([r for r in json.load(sys.stdin) if r["name"]=="bench"][0]["submitted"])')
read -r prompt_ms prompt_bytes < <("$out/examples/model_prompt_speed")
echo "tasks $TASKS rated $rated concurrency $CONCURRENCY latency ${LATENCY_MS} ms: wall ${wall} s (floor ${floor} s, ratio $(python3 -c "print(round($wall / $floor, 3))")), peak ${peak} MB"
echo "prompt for a 5,000-line patch: ${prompt_ms} ms (${prompt_bytes} bytes)"
python3 - "$wall" "$floor" "$peak" "$prompt_ms" "$rated" "$TASKS" <<'PY'
import sys
wall, floor, peak, prompt, rated, tasks = map(float, sys.argv[1:])
ok = rated == tasks and wall <= 1.2 * floor and peak < 150 and prompt < 20
print("targets met" if ok else "targets NOT met")
sys.exit(0 if ok else 1)
PY
