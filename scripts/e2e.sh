#!/usr/bin/env bash
# End-to-end tests against the real app: builds the front end and the debug app with the front
# end embedded, starts Xvfb and tauri-driver, runs the WebdriverIO tests in ui/e2e/, stops what
# it started. Screenshots land in docs/screenshots/. The app's data folder is a fresh temporary
# XDG_DATA_HOME, so every run starts from a new demo project. The command line (debug) makes the
# projects some tests open. A Hub, a git daemon and a Chat Completions endpoint on 127.0.0.1
# serve what the fetch, clone and model tests take; nothing reaches the internet. Arguments, when given, are the test files to run.
set -euo pipefail
# A Hugging Face Hub on 127.0.0.1 serving a 24-row split (crates/testkit/examples/hub_serve.rs)
# and taking uploads, started before the app's driver so the app inherits HF_ENDPOINT, its token
# and an empty cache.
here="$(cd "$(dirname "$0")/.." && pwd)"
# The app, the command line and the servers: the workspace's one debug build.
bash "$here/scripts/build-app.sh"
hub_dir="$(mktemp -d)"
# It takes uploads with the one token the app is given (never a user's own: HF_TOKEN is set).
"$here/target/debug/examples/hub_serve" 24 "$hub_dir" --token hf_e2e_publish &
hub_pid=$!
for _ in $(seq 300); do [ -s "$hub_dir/port" ] && break; sleep 0.1; done
export HF_ENDPOINT="http://127.0.0.1:$(cat "$hub_dir/port")" HF_HOME="$hub_dir/hf" HF_TOKEN=hf_e2e_publish
unset HUGGING_FACE_HUB_TOKEN HF_TOKEN_PATH HF_HUB_OFFLINE HF_HUB_CACHE
# A git daemon on 127.0.0.1 serving VERITY_E2E_GIT_BASE (the tests put repositories there),
# and a git config that sends https://github.com/ to it (git's url.insteadOf, which libgit2
# honours), so the app's Clone button clones from it. git-daemon is started itself: `git daemon`
# would run it as a child that the kill at exit does not reach.
git_port=$(( 9400 + RANDOM % 400 ))
while (exec 3<>"/dev/tcp/127.0.0.1/$git_port") 2>/dev/null; do git_port=$(( git_port + 1 )); done
export VERITY_E2E_GIT_BASE="$hub_dir/git" XDG_CONFIG_HOME="$hub_dir/config"
mkdir -p "$VERITY_E2E_GIT_BASE" "$XDG_CONFIG_HOME/git"
printf '[url "git://127.0.0.1:%s/"]\n\tinsteadOf = https://github.com/\n' "$git_port" >"$XDG_CONFIG_HOME/git/config"
"$(git --exec-path)/git-daemon" --reuseaddr --base-path="$VERITY_E2E_GIT_BASE" --export-all --port="$git_port" \
  --listen=127.0.0.1 "$VERITY_E2E_GIT_BASE" >/dev/null 2>&1 &
git_pid=$!
# A Chat Completions endpoint on 127.0.0.1 for the model raters (crates/testkit/examples/
# chat_serve.rs), answering each request after 500 ms, as a model's generation takes a while, and
# only with the key the app reads from VERITY_E2E_CHAT_KEY (the test names that variable).
chat_dir="$hub_dir/chat"
mkdir -p "$chat_dir"
VERITY_E2E_CHAT_KEY="e2e-$RANDOM$RANDOM"
"$here/target/debug/examples/chat_serve" "$chat_dir" --latency-ms 500 --key "$VERITY_E2E_CHAT_KEY" 2>/dev/null &
chat_pid=$!
for _ in $(seq 300); do [ -s "$chat_dir/port" ] && break; sleep 0.1; done
export VERITY_E2E_CHAT_KEY VERITY_E2E_CHAT_URL="http://127.0.0.1:$(cat "$chat_dir/port")/v1"
trap 'kill "$hub_pid" "$git_pid" "$chat_pid" 2>/dev/null || true; rm -rf "$hub_dir"' EXIT
# Xvfb has no GPU: WebKit composites the window with Mesa's llvmpipe, which by default renders on
# a thread per core. On one thread it renders the same frames for less CPU (the suite took 211
# and 214 s of CPU against 225 and 233 s), and CI runs these tests beside its other checks.
# Only the tests set it: bench/desktop.sh measures the app as users run it.
export LP_NUM_THREADS=0
# shellcheck source=headless.sh
source "$(dirname "$0")/headless.sh"
trap 'kill "$hub_pid" "$git_pid" "$chat_pid" 2>/dev/null || true; rm -rf "$hub_dir"; stop_headless' EXIT
mkdir -p "$root/docs/screenshots"

# The tests named as arguments (paths), or every one.
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then tests=("$root"/ui/e2e/*.test.mjs); fi
status=0
VERITY_APP="$app" VERITY_CLI="$root/target/debug/verity" VERITY_DRIVER_PORT="$port" VERITY_DRIVER_PID="$driver_pid" \
  VERITY_SCREENSHOTS="$root/docs/screenshots" \
  node --test --test-concurrency=1 --test-timeout=300000 "${tests[@]}" || status=$?
if [ "$status" -ne 0 ]; then
  echo "e2e: failed; the end of tauri-driver's log:" >&2
  tail -n 40 "$work/driver.log" >&2 || true
fi
exit "$status"
