#!/usr/bin/env bash
# Checks the tests' Hugging Face Hub (crates/testkit/src/hub_server) with huggingface_hub's own
# client (bench/hub_check.py): repositories, uploads through pre-upload, LFS and the commit,
# downloads, a refused token, a 429 with Retry-After and a parent that moved; then publishes the
# demo project's dataset to it with `verity publish` and reads every config its card declares
# with pyarrow. scripts/test.sh runs it, so the server cannot drift from the real API. Installs
# the pinned huggingface_hub and pyarrow from PyPI into a virtual environment kept between runs
# and between clones, as chat_check.sh's `openai` is (VERITY_HUB_CHECK_VENV; by default
# hub-check-venv in the user's cache folder, ~/.cache/verity): a fresh clone does not install
# them again.
set -euo pipefail
cd "$(dirname "$0")/.."
HUB_VERSION=2.4.0
PYARROW_VERSION=26.0.1
source bench/lib.sh
# The workspace's one debug build, which scripts/test.sh has made already (scripts/build-app.sh
# says why it is built whole).
cargo_build debug --workspace --all-targets
venv=${VERITY_HUB_CHECK_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/verity/hub-check-venv}
if ! "$venv/bin/python" -c "import huggingface_hub, pyarrow, sys; sys.exit(huggingface_hub.__version__ != '$HUB_VERSION' or pyarrow.__version__ != '$PYARROW_VERSION')" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "huggingface_hub==$HUB_VERSION" "pyarrow==$PYARROW_VERSION"
fi
work=$(mktemp -d)
token=hf_check_token
"$out/examples/hub_serve" 0 "$work" --token "$token" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 300); do [ -s "$work/port" ] && break; sleep 0.1; done
endpoint=http://127.0.0.1:$(cat "$work/port")

# The demo project's dataset, published by Verity to the same server.
project=$("$out/verity" demo --dir "$work/demo" | tail -1)
"$out/verity" --project "$project" export --format hub --license mit --subset all --out "$work/dataset" >/dev/null
HF_ENDPOINT=$endpoint HF_TOKEN=$token HF_HOME="$work/home" \
  "$out/verity" publish check/verity-demo --folder "$work/dataset" --message "the demo panel" >/dev/null

# Xet storage is the Hub's, not the test server's: huggingface_hub uploads through LFS.
HF_HUB_DISABLE_XET=1 HF_HUB_DISABLE_PROGRESS_BARS=1 HF_HUB_DISABLE_TELEMETRY=1 HF_HOME="$work/home" \
  "$venv/bin/python" bench/hub_check.py "$endpoint" "$token" "$work" check/verity-demo "$work/dataset"
