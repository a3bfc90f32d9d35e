#!/usr/bin/env bash
# Benchmark of `verity repo clone` against `git clone --bare`, over git daemon on loopback.
#
# Builds its own repository once (kept in BENCH_WORK): COMMITS commits of deterministic content
# written with git fast-import, 400 text files edited a few at a time (so the pack holds
# deltas) and, every 10th commit, an incompressible 640 KiB binary file; repacked, about 100 MB.
# Serves it with `git daemon` on 127.0.0.1, then, round after round and alternately, times
# `git clone --bare` and `verity repo clone --url git://… --into …` (release build) into fresh
# folders, with a project that has one task at the repository's HEAD. Prints each round, the
# medians and the ratio of speeds (git's time / Verity's time; target: at least 0.80).
#
# Environment: BENCH_WORK (default bench/work), RUNS (rounds, 3), COMMITS (1500).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${BENCH_WORK:-$ROOT/bench/work}"
RUNS="${RUNS:-3}"
COMMITS="${COMMITS:-1500}"
SERVED="$WORK/clone-served"
REPO="$SERVED/bench/big.git"

source "$ROOT/bench/lib.sh"
bench_git

mkdir -p "$WORK"
if [ ! -f "$REPO/verity-bench-done" ]; then
  echo "== building a repository of $COMMITS commits (once)"
  rm -rf "$REPO"
  git init -q --bare "$REPO"
  python3 - "$COMMITS" <<'EOF' | git -C "$REPO" fast-import --quiet
import random, sys
commits = int(sys.argv[1])
rng = random.Random(7)
out = sys.stdout.buffer
words = [f"name{i}" for i in range(2000)]
files = {}
def blob(data):
    out.write(b"data %d\n" % len(data))
    out.write(data)
    out.write(b"\n")
for n in range(commits):
    changes = []
    for _ in range(5):
        f = rng.randrange(400)
        lines = files.get(f) or [f"def f{f}_{i}(x):\n    return x + {i}\n" for i in range(150)]
        for _ in range(3):
            lines[rng.randrange(len(lines))] = f"def {rng.choice(words)}(x):\n    return {rng.choice(words)}(x, {n})\n"
        files[f] = lines
        changes.append((f"src/mod{f % 20}/file{f}.py", "".join(lines).encode()))
    if n % 10 == 0:
        changes.append((f"assets/blob{n}.bin", rng.randbytes(640 << 10)))
    out.write(b"commit refs/heads/main\n")
    out.write(b"committer bench <bench@example.org> %d +0000\n" % (1700000000 + n * 60))
    message = b"commit %d" % n
    out.write(b"data %d\n%s\n" % (len(message), message))
    for path, data in changes:
        out.write(b"M 644 inline %s\n" % path.encode())
        blob(data)
    out.write(b"\n")
    if n % 300 == 299:
        out.write(b"tag v%d\nfrom refs/heads/main\ntagger bench <bench@example.org> %d +0000\ndata 0\n\n" % (n, 1700000000 + n * 60))
EOF
  git -C "$REPO" symbolic-ref HEAD refs/heads/main
  git -C "$REPO" repack -a -d -f -q --window=10 --depth=50
  touch "$REPO/verity-bench-done"
fi
SIZE=$(du -sm "$REPO/objects" | cut -f1)
HEAD=$(git -C "$REPO" rev-parse HEAD)
echo "repository: $(git -C "$REPO" rev-list --count HEAD) commits, ${SIZE} MiB of objects"

echo "== release build of verity"
(cd "$ROOT" && cargo build --release -q -p verity-cli --bin verity)
VERITY="$ROOT/target/release/verity"

# git-daemon itself, not `git daemon`: the kill at exit must reach the daemon, not a parent.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$(git --exec-path)/git-daemon" --reuseaddr --base-path="$SERVED" --export-all --enable=upload-pack \
  --port="$PORT" --listen=127.0.0.1 "$SERVED" 2>"$WORK/clone-daemon.log" &
DAEMON=$!
TMP=$(mktemp -d)
trap 'kill "$DAEMON" 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do
  (echo >"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.1
done
URL="git://127.0.0.1:$PORT/bench/big.git"

export VERITY_PROJECT="$TMP/p.verity"
"$VERITY" init >/dev/null
printf '{"instance_id":"bench__big-1","repo":"bench/big","base_commit":"%s","problem_statement":"x","patch":"","test_patch":""}\n' \
  "$HEAD" >"$TMP/task.jsonl"
"$VERITY" import "$TMP/task.jsonl" >/dev/null

seconds() { # runs "$@", prints its wall time in seconds
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.2f}')"
}

git_times=()
verity_times=()
for round in $(seq "$RUNS"); do
  sync
  g=$(seconds git clone -q --bare "$URL" "$TMP/git$round.git")
  v=$(seconds "$VERITY" repo clone bench/big --url "$URL" --into "$TMP/verity$round.git")
  held=$("$VERITY" repo list --json | python3 -c 'import json,sys; r=json.load(sys.stdin)[0]; print(r["held"], "of", r["base_commits"])')
  objects() { git -C "$1" count-objects -v | sed -n 's/^in-pack: //p'; }
  echo "round $round: git clone --bare ${g} s, verity repo clone ${v} s (objects: git $(objects "$TMP/git$round.git"), verity $(objects "$TMP/verity$round.git"); base commits held: $held)"
  git_times+=("$g")
  verity_times+=("$v")
  rm -rf "$TMP/git$round.git" "$TMP/verity$round.git"
done

python3 - "${git_times[*]}" "${verity_times[*]}" "$SIZE" <<'EOF'
import statistics, sys
g = statistics.median(map(float, sys.argv[1].split()))
v = statistics.median(map(float, sys.argv[2].split()))
size = float(sys.argv[3])
print(f"median: git clone --bare {g:.2f} s ({size / g:.0f} MiB/s), verity repo clone {v:.2f} s ({size / v:.0f} MiB/s)")
print(f"speed ratio (git time / verity time): {g / v:.2f} (target >= 0.80)")
EOF
