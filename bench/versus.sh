#!/usr/bin/env bash
# Before and after a change that should not change speed (a restructuring): the same workloads
# run by REV's verity and by this tree's (or AFTER's), alternating run by run, on one machine in
# one go.
#
#   bench/versus.sh REV [RUNS] [AFTER]
#
# Builds REV in a git worktree (BASE_DIR, default bench/work/versus/base; its own target folder;
# release) and this tree, or AFTER in a second worktree (bench/work/versus/after), in release.
# Naming AFTER isolates one change: REV its parent, AFTER the change alone (issue 26's
# restructuring: `git merge f370e01 4c659c2 74d0415 de58934` on 332c54b, commit 6e02139).
# Workloads, each run RUNS times (default 5) per build, the two builds taking turns so that
# drift in the machine's load falls on both:
#   import      731 SWE-bench Pro rows and the 731 audit folders into a fresh project
#               (DATA, default ../shared/data)
#   agreement   every coefficient of 20,000 units x 5 raters, 20% missing (bench/gen_ratings.py)
#   bootstrap   the same with --bootstrap 1000
#   evidence    `verity evidence --all --refresh` on a fresh copy of each build's demo project
#               (twelve tasks on the demo's git repository, as each build ships it)
#   openai      OpenAI's ensembled file and a per-annotator file of 93 raters over its tasks
#               (bench/scale_gen.py panel) imported into a fresh project, then both written
#               back out in OpenAI's formats
# WORKLOADS (default all five, space-separated) names the ones to run.
# Prints per workload the median wall time and the peak RSS of each build and the ratio
# after / REV: about 1 within the spread of the runs is no slowdown.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: bench/versus.sh REV [RUNS] [AFTER]}
runs=${2:-5}
after=${3:-}
data=${DATA:-../shared/data}
root=$PWD
work=$root/bench/work/versus
base=${BASE_DIR:-$work/base}
mkdir -p "$work"
if [[ ! -d "$base" ]]; then
  git worktree add --detach "$base" "$rev" >/dev/null
fi
git -C "$base" checkout --quiet --detach "$rev"
head=$root
label=head
if [[ -n "$after" ]]; then
  head=$work/after
  label=$after
  if [[ ! -d "$head" ]]; then
    git worktree add --detach "$head" "$after" >/dev/null
  fi
  git -C "$head" checkout --quiet --detach "$after"
fi
echo "building $rev and $label (release)..." >&2
(cd "$base" && cargo build --release --quiet --bin verity)
(cd "$head" && cargo build --release --quiet --bin verity)
declare -A bin=([base]=$base/target/release/verity [head]=$head/target/release/verity)

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
python3 bench/gen_ratings.py 20000 5 0.2 7 >"$scratch/ratings.csv"
ensembled=$data/openai-verified/ensembled_annotations_public.csv
python3 bench/scale_gen.py panel "$ensembled" 93 1 "$scratch/panel.csv"
declare -A demo
for side in base head; do
  demo[$side]=$(XDG_DATA_HOME="$scratch/data-$side" "${bin[$side]}" demo --dir "$scratch/demo-$side")
done

# One run of a workload by one build, measured: prints "seconds megabytes".
one() {
  local side=$1 workload=$2 v=${bin[$1]} p=$scratch/$1.verity
  case $workload in
    import)
      rm -f "$p"*
      "$v" init --project "$p" >/dev/null
      python3 bench/measure.py 1 "$v" import --project "$p" \
        "$data/swebench-pro/instances.jsonl" "$data/determinacy-audit/cases" ;;
    agreement)
      python3 bench/measure.py 1 "$v" agreement --ratings "$scratch/ratings.csv" --json ;;
    bootstrap)
      python3 bench/measure.py 1 "$v" agreement --ratings "$scratch/ratings.csv" --json --bootstrap 1000 ;;
    evidence)
      cp "${demo[$side]}" "$p"
      python3 bench/measure.py 1 "$v" evidence --all --refresh --project "$p" ;;
    openai)
      rm -f "$p"*
      python3 bench/measure.py 1 sh -c '"$1" init --project "$2" &&
        "$1" import --project "$2" "$3" "$4" &&
        "$1" export --project "$2" --format openai-annotations --out "$2.a.csv" &&
        "$1" export --project "$2" --format openai-ensembled --out "$2.e.csv"' \
        sh "$v" "$p" "$ensembled" "$scratch/panel.csv" ;;
  esac
}

printf '%-10s %12s %12s %8s %10s %10s\n' workload "$rev s" "$label s" ratio "$rev MB" "$label MB"
for workload in ${WORKLOADS:-import agreement bootstrap evidence openai}; do
  : >"$scratch/base.times"
  : >"$scratch/head.times"
  for _ in $(seq "$runs"); do
    for side in base head; do
      one "$side" "$workload" 2>/dev/null | tail -1 >>"$scratch/$side.times"
    done
  done
  python3 - "$workload" "$scratch/base.times" "$scratch/head.times" <<'PY'
import statistics, sys
name, base, head = sys.argv[1], sys.argv[2], sys.argv[3]
def read(path):
    rows = [tuple(map(float, line.split())) for line in open(path) if line.strip()]
    return statistics.median(r[0] for r in rows), max(r[1] for r in rows), min(r[0] for r in rows), max(r[0] for r in rows)
b, bm, blo, bhi = read(base)
h, hm, hlo, hhi = read(head)
print(f"{name:<10} {b:12.3f} {h:12.3f} {h / b:8.3f} {bm:10.1f} {hm:10.1f}   (runs: {blo:.3f}-{bhi:.3f} / {hlo:.3f}-{hhi:.3f})")
PY
done
