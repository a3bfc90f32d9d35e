#!/usr/bin/env bash
# A panel's load on a server project (a benchmark, not a timed test).
#
# Starts a throwaway PostgreSQL on 127.0.0.1 (scripts/postgres.sh), then
#   1. RATERS simulated raters (threads, each connected with its own login from
#      `verity panel grant`) each save DRAFTS drafts and submit SUBMITS tasks through Verity's
#      own use cases, each starting a save at most every PACE ms (people type; the app saves a
#      draft 500 ms after the last keystroke): save latency p50/p95 (target: p95 under 25 ms),
#      events lost (target 0) and stored twice;
#   2. the same with the server restarted once mid-run: saves are tried again with backoff,
#      and nothing may be lost or stored twice;
#   3. the same without any pause between saves: the most the server takes, on this machine,
#      where server and raters share its cores;
#   4. the reference: pgbench, with as many clients and no pause, each inserting the same
#      number of answer-sized rows, one per transaction: what the server itself takes.
# Needs: cargo, Debian's postgresql package (installed by scripts/postgres.sh when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

RATERS=${RATERS:-50}
DRAFTS=${DRAFTS:-200}
SUBMITS=${SUBMITS:-20}
PACE=${PACE:-100}

pg=$(mktemp -d)
trap 'bash scripts/postgres.sh stop "$pg"' EXIT
bash scripts/postgres.sh start "$pg"
# shellcheck source=/dev/null
source "$pg/env"
port=$(cat "$pg/port")
server=(-h 127.0.0.1 -p "$port" -U verity)

echo "building (release)..." >&2
source bench/lib.sh
cargo_build release -p annotations --example panel_load
load="$out/examples/panel_load"

run() {
  local db=$1
  shift
  "$PG_BIN/psql" "${server[@]}" -d postgres -qc "CREATE DATABASE $db"
  "$load" "postgres://verity@127.0.0.1:$port/$db" --raters "$RATERS" --drafts "$DRAFTS" --submits "$SUBMITS" "$@"
}

echo "== $RATERS raters, each $DRAFTS drafts and $SUBMITS submissions"
run panel_steady --pace "$PACE"
echo
echo "== the same, with the server restarted once mid-run"
run panel_restart --pace "$PACE" --fault-command "bash scripts/postgres.sh restart $pg"
echo
echo "== the same without pauses: the most this machine takes"
run panel_flat_out | tee "$pg/flat.txt"
echo
echo "== reference: pgbench, $RATERS clients without pauses, one INSERT of an answer-sized row per transaction"
"$PG_BIN/psql" "${server[@]}" -d postgres -qc "CREATE TABLE bench_events (id BIGSERIAL PRIMARY KEY, uid TEXT UNIQUE, answer TEXT)"
cat >"$pg/insert.sql" <<'EOF'
INSERT INTO bench_events(uid, answer) VALUES (gen_random_uuid()::text, repeat('x', 600));
EOF
(cd "$pg" && "$PG_BIN/pgbench" "${server[@]}" -n -c "$RATERS" -j 2 -t $((DRAFTS + SUBMITS)) \
  -f insert.sql --log --log-prefix=ref postgres >"$pg/pgbench.txt" 2>&1) ||
  { cat "$pg/pgbench.txt" >&2; exit 1; }
python3 - "$pg" <<'EOF'
import glob, re, sys
pg = sys.argv[1]
lat = sorted(int(line.split()[2]) / 1000 for f in glob.glob(f"{pg}/ref*") for line in open(f))
p = lambda q: lat[round((len(lat) - 1) * q)]
flat = open(f"{pg}/flat.txt").read()
p95 = float(re.search(r"p95 ([0-9.]+) ms", flat).group(1))
print(f"pgbench insert latency: p50 {p(0.5):.1f} ms, p95 {p(0.95):.1f} ms over {len(lat)} inserts")
print(f"without pauses, a Verity save (rater and task checks, history read, insert) against one "
      f"bare insert: p95 {p95 / p(0.95):.1f}x")
EOF
