#!/usr/bin/env bash
# Installs what the core library and the `verity` CLI need to build and test on Debian:
# a C compiler and cmake (SQLite, libgit2 and zlib-ng are compiled from source by their crates),
# pkg-config, OpenSSL's headers (libgit2's https transport, for `verity repo clone`) and git;
# the tests make a TLS certificate with the openssl command and serve git over https with python3.
# Idempotent: apt skips what is installed.
set -euo pipefail

need=(build-essential pkg-config libssl-dev openssl cmake git python3)
# A faster linker, when asked for (CI sets VERITY_LINKER=mold; scripts/test.sh passes it to rustc).
if [ "${VERITY_LINKER:-}" = mold ]; then need+=(mold); fi
missing=()
for pkg in "${need[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
command -v cargo >/dev/null || { echo "setup: Rust (cargo) is required: https://rustup.rs" >&2; exit 2; }
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy rustfmt >/dev/null 2>&1 || true
