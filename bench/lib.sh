# Sourced by the bench scripts.
#
# cargo_build PROFILE CARGO_ARGS...  ->  builds what CARGO_ARGS name (PROFILE release or debug)
# and sets out to the folder the binaries land in (examples in out/examples).
cargo_build() {
  local profile=$1
  shift
  cargo build --quiet --locked $([ "$profile" = release ] && echo --release) "$@"
  local target
  target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
  out="$target/$profile"
}

# bench_git  ->  git commits as "bench" at a fixed date, reading no user or system
# configuration, so the repositories a bench builds are the same on every machine.
bench_git() {
  export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.org
  export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.org
  export GIT_AUTHOR_DATE=2024-01-01T00:00:00Z GIT_COMMITTER_DATE=2024-01-01T00:00:00Z
  export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
}

# scratch  ->  sets work to a fresh folder, removed on exit.
scratch() {
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
