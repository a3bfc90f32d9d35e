#!/usr/bin/env bash
# Benchmark of the evidence engine against git grep, in one run.
#
# Builds its own corpus: the Django 4.2.7 source distribution from PyPI committed into a fresh
# repository, 4.2.8 on top (a nearby commit), then 18 small edits (20 commits in all), `git gc`.
# Terms come from bench/django_test.patch (a Django-style test patch).
#
# Measures, release build, warm page cache:
#   1. one task cold (fresh engine) vs `git grep -F -l -I` and `git grep -F -n -I` with the same
#      terms at the same commit (target: at most half of `git grep -l`);
#   2. the same task again, and a task at the nearby commit (target: under 50 ms);
#   3. TASKS tasks over the 20 commits: throughput and peak memory at two cache bounds.
#
# git grep and the engine run alternately, round after round, and every figure is the median
# of its rounds, so that load from other processes on a shared machine skews both alike. The
# cold verdict uses the median of the rounds' own ratios (engine / git grep, run back to back):
# on a shared virtual machine whose host load swings by 2x within a minute, a paired ratio
# cancels what a ratio of two separate medians does not.
#
# Environment: BENCH_WORK (default bench/work), RUNS (rounds, 5), RUNS_N (rounds that also
# time git grep -n, 1), THREADS (2), TASKS (200), SWEEP_RUNS (runs per cache bound, 1),
# CACHE_MB (256), SMALL_CACHE_MB (32).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${BENCH_WORK:-$ROOT/bench/work}"
RUNS="${RUNS:-5}"
THREADS="${THREADS:-2}"
TASKS="${TASKS:-200}"
CACHE_MB="${CACHE_MB:-256}"
SMALL_CACHE_MB="${SMALL_CACHE_MB:-32}"
SWEEP_RUNS="${SWEEP_RUNS:-1}"
PATCH="$ROOT/bench/django_test.patch"
REPO="$WORK/django-repo"

source "$ROOT/bench/lib.sh"
bench_git

mkdir -p "$WORK"
cd "$WORK"

for version in 4.2.7 4.2.8; do
    if [ ! -f "Django-$version.tar.gz" ]; then
        pip download --quiet --no-deps --no-binary :all: "django==$version" -d "$WORK"
    fi
    if [ ! -d "Django-$version" ]; then
        tar xzf "Django-$version.tar.gz" --no-same-owner
    fi
done

if [ ! -f "$REPO/.bench-complete" ]; then
    echo "building the corpus in $REPO ..." >&2
    rm -rf "$REPO"
    mkdir -p "$REPO"
    git -C "$REPO" init -q -b main .
    # No background auto-gc between commits: it would hold gc's lock when the final gc runs.
    git -C "$REPO" config gc.auto 0
    cp -R "Django-4.2.7/." "$REPO/"
    git -C "$REPO" add -A
    git -C "$REPO" commit -q -m "Django 4.2.7"
    git -C "$REPO" rm -rq --cached .
    find "$REPO" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
    cp -R "Django-4.2.8/." "$REPO/"
    git -C "$REPO" add -A
    git -C "$REPO" commit -q -m "Django 4.2.8"
    edits=(django/db/models/query.py django/forms/fields.py django/utils/timezone.py
        django/db/models/expressions.py django/core/exceptions.py django/urls/base.py)
    for i in $(seq 3 20); do
        for j in 0 1; do
            file="${edits[$(((i + j) % ${#edits[@]}))]}"
            printf '\n# bench edit %d.%d: get_connection_%d\n' "$i" "$j" "$i" >>"$REPO/$file"
        done
        git -C "$REPO" commit -q -am "bench edit $i"
    done
    git -C "$REPO" gc -q
    touch "$REPO/.bench-complete"
fi

git -C "$REPO" rev-list --reverse HEAD >"$WORK/commits.txt"
BASE="$(sed -n 1p "$WORK/commits.txt")"
NEARBY="$(sed -n 2p "$WORK/commits.txt")"

echo "building the release bench binary ..." >&2
(cd "$ROOT" && cargo build -q --release -p verity-evidence --example bench_evidence)
BIN="$ROOT/target/release/examples/bench_evidence"

"$BIN" terms "$PATCH" >"$WORK/terms.txt"
TERM_COUNT="$(wc -l <"$WORK/terms.txt")"
GREP_ARGS=()
while IFS= read -r term; do GREP_ARGS+=(-e "$term"); done <"$WORK/terms.txt"

# Wall time in ms of one run of a command.
once_ms() {
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null || true
    end=$(date +%s%N)
    echo $(((end - start) / 1000000))
}
# Median of numbers given as arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# git grep and the engine take turns, so a burst of load from other processes on a shared
# machine hits both sides alike; each figure is the median over RUNS rounds.
echo "timing git grep and the evidence engine alternately ($TERM_COUNT terms, $RUNS rounds) ..." >&2
GIT_L_RUNS=() GIT_N_RUNS=() COLD_RUNS=() PAIRED=() AGAIN_RUNS=() NEAR_RUNS=() NEAR_OTHER_RUNS=()
for round in $(seq "$RUNS"); do
    GIT_L_RUNS+=("$(once_ms git -C "$REPO" grep -F -l -I "${GREP_ARGS[@]}" "$BASE")")
    TASK_LINE="$("$BIN" task "$REPO" "$PATCH" "$BASE" "$NEARBY" 1 "$THREADS")"
    COLD_RUNS+=("$(field "$TASK_LINE" cold_ms)")
    PAIRED+=("$(awk -v c="${COLD_RUNS[-1]}" -v g="${GIT_L_RUNS[-1]}" 'BEGIN { printf "%.3f", c / g }')")
    AGAIN_RUNS+=("$(field "$TASK_LINE" again_ms)")
    NEAR_RUNS+=("$(field "$TASK_LINE" nearby_ms)")
    NEAR_OTHER_RUNS+=("$(field "$TASK_LINE" nearby_other_task_ms)")
    if [ "$round" -le "${RUNS_N:-1}" ]; then
        GIT_N_RUNS+=("$(once_ms git -C "$REPO" grep -F -n -I "${GREP_ARGS[@]}" "$BASE")")
    fi
done
GIT_L="$(median "${GIT_L_RUNS[@]}")"
GIT_N="$(median "${GIT_N_RUNS[@]}")"
COLD="$(median "${COLD_RUNS[@]}")"
AGAIN="$(median "${AGAIN_RUNS[@]}")"
NEAR="$(median "${NEAR_RUNS[@]}")"
NEAR_OTHER="$(median "${NEAR_OTHER_RUNS[@]}")"
COLD_RATIO="$(median "${PAIRED[@]}")"
echo "  git grep -l runs: ${GIT_L_RUNS[*]}; cold runs: ${COLD_RUNS[*]}; paired ratios: ${PAIRED[*]}" >&2

echo "running $TASKS tasks over 20 commits ..." >&2
# The run with the median throughput of SWEEP_RUNS runs at one cache bound.
median_sweep() {
    local lines=()
    for _ in $(seq "$SWEEP_RUNS"); do
        lines+=("$("$BIN" sweep "$REPO" "$PATCH" "$WORK/commits.txt" "$TASKS" "$1" "$THREADS")")
    done
    printf '%s\n' "${lines[@]}" | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^tasks_per_s=/) {split($i, kv, "="); print kv[2] "\t" $0}}' |
        sort -g | cut -f2- | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'
}
SWEEP_BIG="$(median_sweep "$CACHE_MB")"
SWEEP_SMALL="$(median_sweep "$SMALL_CACHE_MB")"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
verdict() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? "met" : "MISSED" }'; }

FILES="$(git -C "$REPO" ls-tree -r --name-only "$BASE" | wc -l)"
echo
echo "Corpus: Django 4.2.7 sdist, $FILES files; nearby commit = 4.2.8; $TERM_COUNT terms; threads=$THREADS; median of $RUNS alternating rounds"
echo
printf '%-52s %10s %12s %8s\n' "measurement" "ms" "ratio" "target"
printf '%-52s %10s %12s %8s\n' "git grep -F -l -I (all terms, base commit)" "$GIT_L" "1.00" ""
printf '%-52s %10s %12s %8s\n' "git grep -F -n -I (all terms, base commit)" "$GIT_N" "$(ratio "$GIT_N" "$GIT_L")" ""
printf '%-52s %10s %12s %8s\n' "evidence, one task, cold engine" "$COLD" "$(ratio "$COLD" "$GIT_L") vs -l" ""
printf '%-52s %10s %12s %8s\n' "  median of the rounds' paired ratios (target 0.5)" "" "$COLD_RATIO vs -l" "$(verdict "$COLD_RATIO" 0.5)"
printf '%-52s %10s %12s %8s\n' "  (vs git grep -n)" "" "$(ratio "$COLD" "$GIT_N") vs -n" ""
printf '%-52s %10s %12s %8s\n' "evidence, same task again (warm engine)" "$AGAIN" "$(ratio "$AGAIN" "$GIT_L") vs -l" "$(verdict "$AGAIN" 50)"
printf '%-52s %10s %12s %8s\n' "evidence, same task at nearby commit" "$NEAR" "$(ratio "$NEAR" "$GIT_L") vs -l" "$(verdict "$NEAR" 50)"
printf '%-52s %10s %12s %8s\n' "evidence, other task at nearby commit" "$NEAR_OTHER" "$(ratio "$NEAR_OTHER" "$GIT_L") vs -l" "$(verdict "$NEAR_OTHER" 50)"
echo
echo "$TASKS tasks over 20 commits:"
for line in "$SWEEP_BIG" "$SWEEP_SMALL"; do
    printf '  cache bound %4s MiB: %6s tasks/s, mean %6s ms, slowest %6s ms, peak RSS %5s MiB, cache %4s MiB, %s evictions\n' \
        "$(field "$line" cache_bound_mib)" "$(field "$line" tasks_per_s)" "$(field "$line" mean_ms)" \
        "$(field "$line" slowest_ms)" "$(field "$line" peak_rss_mib)" "$(field "$line" cache_mib)" \
        "$(field "$line" evictions)"
done
echo "  (git grep -l equivalent: $(awk -v g="$GIT_L" -v t="$TASKS" 'BEGIN{printf "%.1f", g*t/1000}') s for $TASKS tasks)"
