#!/usr/bin/env bash
# A real model rating the demo tasks end to end, on this machine: SmolLM2-135M-Instruct served by
# llama-cpp-python's OpenAI-compatible server on 127.0.0.1 (bench/local_lib.sh), then
# `verity models add` and `verity models rate --all` on a copy of the demo project. Not part of
# CI: the first run builds llama-cpp-python from source into a cached virtual environment (about
# 10 minutes on 2 cores); later runs reuse it.
#
# That server is the real world's partial compatibility in small: it refuses `response_format`
# of type json_schema with HTTP 500 and takes json_object with the schema beside it, and a model
# this small often runs out of tokens inside its JSON. The script reports the structured-output
# form Verity found (recorded in `models list`), what was rated and what failed and why.
#
# Environment: VERITY_BENCH_CACHE (default ~/.cache/verity-bench), MAX_TOKENS (the model's
# --max-output-tokens, default 512), PROFILE (debug or release, default debug: the model's time
# dominates).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
source bench/local_lib.sh
build_verity
start_llama "$work"

demo=$(XDG_DATA_HOME="$work/data" "$verity" demo)
cp "$demo" "$work/demo.verity"
export VERITY_PROJECT="$work/demo.verity"
"$verity" models add smol --endpoint "http://127.0.0.1:$port/v1" --model smollm2 \
  --temperature 0 --seed 1 --max-output-tokens "${MAX_TOKENS:-512}" >/dev/null
start=$(date +%s.%N)
"$verity" models rate smol --all --concurrency 1 --json >"$work/rate.json" || true
end=$(date +%s.%N)
"$verity" models list --json >"$work/models.json"
"$verity" --include-models agreement --json >"$work/agreement.json" 2>/dev/null || echo '[]' >"$work/agreement.json"
python3 - "$work" "$start" "$end" "$gguf" <<'PY'
import json, sys
work, start, end, gguf = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
rate = json.load(open(f"{work}/rate.json"))
model = [m for m in json.load(open(f"{work}/models.json")) if m["name"] == "smol"][0]
tasks = rate["rated"] + rate["failed"] + rate["skipped"]
print(f"model: {gguf.rsplit('/', 1)[-1]} via llama-cpp-python's server")
print(f"structured output the endpoint took: {model['dialect']}")
print(f"{tasks} demo tasks in {end - start:.1f} s: {rate['rated']} rated, {rate['failed']} failed, "
      f"{rate['skipped']} skipped; {rate['input_tokens']} input and {rate['output_tokens']} output tokens; "
      f"cost {'unknown' if rate['cost_usd'] is None else rate['cost_usd']}")
reasons = {}
for failure in rate.get("failures", []):
    reasons[failure["reason"]] = reasons.get(failure["reason"], 0) + 1
for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
    print(f"  failed x{n}: {reason}")
PY
